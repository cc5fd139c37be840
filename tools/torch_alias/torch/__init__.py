"""`torch` for the processes a program run by tools/run_as_torch.py starts with multiprocessing's
'spawn' method (mnist_hogwild does): such a process is a fresh interpreter that gets the parent's
sys.path, where run_as_torch put this folder, but not its import hooks. Importing this package
installs run_as_torch's alias there and hands back rstorch itself, so the child's `torch` is the
parent's. In the parent the alias answers first and this package is never imported."""
import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from run_as_torch import _TorchAlias  # noqa: E402 - tools/ has just been put on sys.path

sys.meta_path.insert(0, _TorchAlias())
import rstorch  # noqa: E402

sys.modules[__name__] = rstorch
