"""Loaded by every Python process that tools/run_examples.py starts (this folder is on their
PYTHONPATH), including processes a program spawns itself (mnist_hogwild's trainers use the
'spawn' start method, which starts a fresh interpreter): each gets the same framework and the
same measuring hooks as the program's main process."""
import os
import sys

if os.environ.get("RSTORCH_EXAMPLES_FRAMEWORK"):
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import run_examples

    run_examples.install_hooks(os.environ["RSTORCH_EXAMPLES_FRAMEWORK"])
