"""torch.multiprocessing: Python's multiprocessing, with tensors that travel between processes
through shared memory (see rstorch/_shared_memory.py) instead of being copied.

Everything of the standard module is re-exported as PyTorch does (Process, Queue, Pool,
set_start_method, get_context, ...). Importing this module registers the tensor reducers with
multiprocessing's pickler, so a Module or tensor passed to a Process is the same memory in the
child: hogwild training (several processes updating one model) works.
"""
import multiprocessing
from multiprocessing import *  # noqa: F403 - PyTorch re-exports the standard module's names

from .._shared_memory import _register_reducers

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

# PyTorch's names for how CPU tensors are shared on Linux. rstorch shares through named POSIX
# shared-memory segments whichever is chosen; the setting is kept so programs can read it back.
_all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies, (
        f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    return _sharing_strategy


def get_all_sharing_strategies():
    return _all_sharing_strategies


def init_reductions():
    _register_reducers()


init_reductions()
