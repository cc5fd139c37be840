"""`rstorch.distributed`: the names a program checks before it goes distributed.

rstorch has no process groups yet (scaling out over MPI is an issue of its own), so this is
PyTorch's API with no default group ever initialised: `is_available()` is False, as in a PyTorch
build without distributed, `is_initialized()` is False, the group operations raise PyTorch's
"Default process group has not been initialized" ValueError, and `init_process_group` raises a
RuntimeError saying rstorch cannot create one. A program that takes its single-process path when
no group exists (`rank = dist.get_rank() if dist.is_initialized() else 0`) runs unchanged.
"""
import os

__all__ = ["Backend", "ReduceOp", "all_gather", "all_reduce", "barrier", "broadcast", "destroy_process_group",
           "gather", "get_backend", "get_rank", "get_world_size", "group", "init_process_group", "is_available",
           "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available",
           "is_torchelastic_launched", "is_ucc_available", "new_group", "reduce", "scatter"]

_NO_PROCESS_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp:
    """The reductions a collective applies (names only: no collective runs here)."""
    SUM = "SUM"
    PRODUCT = "PRODUCT"
    MIN = "MIN"
    MAX = "MAX"
    BAND = "BAND"
    BOR = "BOR"
    BXOR = "BXOR"
    AVG = "AVG"
    PREMUL_SUM = "PREMUL_SUM"


class Backend(str):
    """A backend's name, lower-cased as PyTorch's `Backend("GLOO") == "gloo"`."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name):
        return super().__new__(cls, name.lower())


class group:  # noqa: N801  (PyTorch's name)
    WORLD = None


def is_available():
    return False


def is_initialized():
    return False


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    raise RuntimeError("rstorch.distributed cannot create process groups yet: run the program as one process "
                       "(rstorch.distributed.is_available() is False)")


def _no_group(*args, **kwargs):
    raise ValueError(_NO_PROCESS_GROUP)


get_rank = get_world_size = get_backend = barrier = destroy_process_group = new_group = _no_group
all_reduce = broadcast = all_gather = reduce = gather = scatter = _no_group
