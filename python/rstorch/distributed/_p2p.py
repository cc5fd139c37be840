"""Batched point-to-point operations (`P2POp`, `batch_isend_irecv`) and `monitored_barrier`."""
import datetime
import time
import warnings

from ._checks import group_or_none, peer
from ._collectives import irecv, isend
from ._state import _mpi, _resolve

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)   # PyTorch's default process-group timeout
_MONITOR_TAG = 32000                                 # within MPI's guaranteed tag range (>= 32767)


class P2POp:
    """One send or receive for `batch_isend_irecv`: `op` is `isend` or `irecv`, `peer` a global rank
    (or `group_peer` a rank within `group`)."""

    def __new__(cls, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op is not isend and op is not irecv:
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        return object.__new__(cls)

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        self.op = op
        self.tensor = tensor
        self.group = _resolve(group)
        self.tag = tag
        if self.group is None:   # outside the group: the op itself warns and does nothing
            self.peer, self.group_peer = peer, group_peer
            return
        self.group_peer = _group_rank(self.group, peer, group_peer)
        self.peer = self.group.ranks[self.group_peer]

    def __repr__(self):
        name = "default_pg" if self.group is None else self.group.group_name
        return (f"P2POp({self.op.__name__} pg={name}, group_src/group_dst={self.group_peer}, "
                f"src/dst={self.peer}, {tuple(self.tensor.shape)}, {self.tensor.dtype})")


def _group_rank(pg, global_rank, group_rank):
    if global_rank is None and group_rank is None:
        raise ValueError("Either peer or group_peer must be specified")
    return peer(pg, global_rank, group_rank, "peer")


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of the list; returns their Work handles (MPI's non-blocking
    point-to-point calls cannot deadlock whatever the order the peers list them in)."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    group = p2p_op_list[0].group
    if not all(p.group is group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, group=p.group, tag=p.tag, group_dst=p.group_peer))
        else:
            works.append(irecv(p.tensor, group=p.group, tag=p.tag, group_src=p.group_peer))
    return works


def _seconds(timeout):
    if timeout is None:
        return _DEFAULT_TIMEOUT.total_seconds()
    if isinstance(timeout, float):
        warnings.warn("Please specify timeout arg as a timedelta. "
                      f"Converting current value of {timeout} assuming it represents seconds", stacklevel=3)
        return timeout
    return timeout.total_seconds()


def _wait_all(requests, deadline, receives=True):
    """Poll until every request completes or the deadline passes; the indices still pending
    (receives are cancelled; a 1-byte send has left already, MPI sending it eagerly)."""
    pending = dict(enumerate(requests))
    while pending:
        for i in [i for i, r in pending.items() if r.Test()]:
            del pending[i]
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(0.0005)
    if receives:
        for r in pending.values():
            r.Cancel()
            r.Wait()
    return sorted(pending)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not reach it in time: every other rank reports to
    group rank 0 and waits for its answer; rank 0 raises for the first rank (every rank with
    `wait_all_ranks`) it has not heard from within `timeout`."""
    pg = group_or_none(group, "monitored_barrier")
    if pg is None:
        return
    seconds = _seconds(timeout)
    deadline = time.monotonic() + seconds
    mpi, me, millis = _mpi(), pg.rank(), int(seconds * 1000)
    token = bytearray(1)
    if me != 0:
        missing = _wait_all([pg.comm.Isend(token, 0, _MONITOR_TAG)], deadline, receives=False)
        if not missing:
            missing = _wait_all([pg.comm.Irecv(token, 0, _MONITOR_TAG)], deadline)
        if missing:
            raise RuntimeError(f"[Rank {me}]: Rank 0 timed out in monitoredBarrier after {millis} ms")
        return
    others = list(range(1, pg.size()))
    tokens = [bytearray(1) for _ in others]
    requests = [pg.comm.Irecv(t, r, _MONITOR_TAG) for t, r in zip(tokens, others)]
    if not wait_all_ranks:
        # Fail fast: the first rank (in rank order) not heard from.
        for r, request in zip(others, requests):
            if _wait_all([request], deadline):
                _wait_all(requests, 0)   # cancels the receives still posted
                raise RuntimeError(f"[Rank 0]: Rank {r} failed to pass monitoredBarrier in {millis} ms")
    else:
        failed = [others[i] for i in _wait_all(requests, deadline)]
        if failed:
            raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, failed))} failed to pass monitoredBarrier "
                               f"in {millis} ms")
    mpi.Request.Waitall([pg.comm.Isend(token, r, _MONITOR_TAG) for r in others])
