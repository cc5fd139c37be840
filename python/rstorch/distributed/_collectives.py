"""The tensor collectives and point-to-point operations of `rstorch.distributed`. With
`async_op=True` each starts MPI's non-blocking call and returns a Work whose completion writes the
results into the caller's tensors; without it the blocking call runs and the call returns None."""
import numpy as np

import rstorch

from ._buffers import Staged, Work, average, direct_array, direct_op, in_place, mpi_op
from ._checks import check_tensor, check_tensor_list, group_or_none, list_length, peer, same_layout
from ._state import GroupMember, ReduceOp, _mpi, _world


def _start(pg, name, async_op, *args):
    """Start MPI's non-blocking `name` (Iallreduce...) when the caller wants a handle; otherwise run
    the blocking call (MPI's tuned algorithms, which can be faster) and return no request."""
    if async_op:
        return getattr(pg.comm, name)(*args)
    getattr(pg.comm, name[1].upper() + name[2:])(*args)
    return None


def _done(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _finisher(outputs, op=None, size=1):
    """Completion: average if AVG, then write each staged output back into its tensor."""
    def finish():
        for staged in outputs:
            if op is not None and op == ReduceOp.AVG and not staged.is_bool:
                average(staged.array, size)
            staged.finish()
    return finish


def _scatter_rows(recv, outputs):
    """Completion of a gather into a list: row i of `recv` into the i-th output tensor."""
    def finish():
        for row, out in zip(recv, outputs):
            staged = Staged(out)
            staged.array[...] = row.reshape(staged.array.shape)
            staged.finish()
    return finish


def _rows(staged_list, dtype):
    """The staged tensors' data one after another in one contiguous array (what MPI sends)."""
    if not staged_list:
        return np.empty(0, dtype)
    return np.concatenate([s.array.reshape(-1) for s in staged_list])


def _averager(array, size):
    return lambda: average(array, size)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    pg = _world["default"] if group is None or group is GroupMember.WORLD else None
    if pg is not None and isinstance(tensor, rstorch.Tensor):
        # The fast path: the tensor's own memory, reduced in place, with no staging and no work
        # object unless the caller asked for one.
        array = direct_array(tensor)
        mop = None if array is None else direct_op(op, array)
        if mop is not None:
            avg = op.value == ReduceOp.AVG.value and pg.size() > 1
            if async_op:
                request = pg.comm.Iallreduce(in_place(), array, mop)
                return Work([request], _averager(array, pg.size()) if avg else None, keep=(array,))
            pg.comm.Allreduce(in_place(), array, mop)
            if avg:
                average(array, pg.size())
            return None
    check_tensor(tensor, "tensor")
    pg = group_or_none(group, "all_reduce")
    if pg is None:
        return None
    staged = Staged(tensor)
    request = _start(pg, "Iallreduce", async_op, _mpi().IN_PLACE, staged.array, mpi_op(op, staged))
    return _done(Work([request], _finisher([staged], op, pg.size())), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    check_tensor(tensor, "tensor")
    pg = group_or_none(group, "broadcast")
    if pg is None:
        return None
    root = peer(pg, src, group_src, "src")
    staged = Staged(tensor)
    request = _start(pg, "Ibcast", async_op, staged.array, root)
    return _done(Work([request], _finisher([staged] if pg.rank() != root else [])), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    check_tensor(tensor, "tensor")
    pg = group_or_none(group, "reduce")
    if pg is None:
        return None
    root = peer(pg, dst, group_dst, "dst")
    staged = Staged(tensor)
    mop = mpi_op(op, staged)
    if pg.rank() == root:
        request = _start(pg, "Ireduce", async_op, _mpi().IN_PLACE, staged.array, mop, root)
        return _done(Work([request], _finisher([staged], op, pg.size())), async_op)
    request = _start(pg, "Ireduce", async_op, staged.array, None, mop, root)
    return _done(Work([request], keep=(staged,)), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    pg = group_or_none(group, "all_gather")
    if pg is None:
        return None
    list_length(tensor_list, pg.size(), "all_gather")
    same_layout(tensor_list, tensor, "all_gather")
    send = Staged(tensor).array
    recv = np.empty((pg.size(), send.size), send.dtype)
    request = _start(pg, "Iallgather", async_op, send, recv)
    return _done(Work([request], _scatter_rows(recv, tensor_list), keep=(send,)), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = group_or_none(group, "all_gather_into_tensor")
    if pg is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if output_tensor.numel() != pg.size() * input_tensor.numel():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    send, out = Staged(input_tensor).array, Staged(output_tensor)
    request = _start(pg, "Iallgather", async_op, send, out.array)
    return _done(Work([request], _finisher([out]), keep=(send,)), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    check_tensor(tensor, "tensor")
    check_tensor_list(gather_list if gather_list is not None else [], "gather_list")
    pg = group_or_none(group, "gather")
    if pg is None:
        return None
    root = peer(pg, dst, group_dst, "dst")
    send = Staged(tensor).array
    if pg.rank() != root:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        return _done(Work([_start(pg, "Igather", async_op, send, None, root)], keep=(send,)), async_op)
    if gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    list_length(gather_list, pg.size(), "gather")
    same_layout(gather_list, tensor, "gather")
    recv = np.empty((pg.size(), send.size), send.dtype)
    request = _start(pg, "Igather", async_op, send, recv, root)
    return _done(Work([request], _scatter_rows(recv, gather_list), keep=(send,)), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    check_tensor(tensor, "tensor")
    check_tensor_list(scatter_list if scatter_list is not None else [], "scatter_list")
    pg = group_or_none(group, "scatter")
    if pg is None:
        return None
    root = peer(pg, src, group_src, "src")
    out = Staged(tensor)
    if pg.rank() != root:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        return _done(Work([_start(pg, "Iscatter", async_op, None, out.array, root)], _finisher([out])), async_op)
    if scatter_list is None:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    list_length(scatter_list, pg.size(), "scatter")
    same_layout(scatter_list, tensor, "scatter")
    send = _rows([Staged(t) for t in scatter_list], out.array.dtype)
    request = _start(pg, "Iscatter", async_op, send, out.array, root)
    return _done(Work([request], _finisher([out]), keep=(send,)), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    pg = group_or_none(group, "reduce_scatter")
    if pg is None:
        return None
    list_length(input_list, pg.size(), "reduce_scatter")
    same_layout(input_list, output, "reduce_scatter")
    out = Staged(output)
    send = _rows([Staged(t) for t in input_list], out.array.dtype)
    request = _start(pg, "Ireduce_scatter_block", async_op, send, out.array, mpi_op(op, out))
    return _done(Work([request], _finisher([out], op, pg.size()), keep=(send,)), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002 (PyTorch's name)
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = group_or_none(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise TypeError("input tensor must be the same type as the output tensor.")
    if input.numel() != pg.size() * output.numel():
        raise ValueError("input tensor must be the same size as output size times world size")
    out, send = Staged(output), Staged(input).array
    request = _start(pg, "Ireduce_scatter_block", async_op, send, out.array, mpi_op(op, out))
    return _done(Work([request], _finisher([out], op, pg.size()), keep=(send,)), async_op)


def _alltoallv(pg, async_op, send, send_counts, recv, recv_counts):
    displacements = lambda counts: np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()
    return _start(pg, "Ialltoallv", async_op, [send, (list(send_counts), displacements(send_counts))],
                  [recv, (list(recv_counts), displacements(recv_counts))])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = group_or_none(group, "all_to_all")
    if pg is None:
        return None
    list_length(output_tensor_list, pg.size(), "all_to_all")
    list_length(input_tensor_list, pg.size(), "all_to_all")
    outputs = [Staged(t) for t in output_tensor_list]
    dtype = outputs[0].array.dtype
    send = _rows([Staged(t) for t in input_tensor_list], dtype)
    if send.dtype != dtype:
        raise TypeError("all_to_all: the input tensors must have the output tensors' dtype")
    recv_counts = [s.array.size for s in outputs]
    recv = np.empty(sum(recv_counts), dtype)
    request = _alltoallv(pg, async_op, send, [t.numel() for t in input_tensor_list], recv, recv_counts)

    def finish():
        for staged, piece in zip(outputs, np.split(recv, np.cumsum(recv_counts)[:-1])):
            staged.array[...] = piece.reshape(staged.array.shape)
            staged.finish()
    return _done(Work([request], finish, keep=(send,)), async_op)


def _split_counts(tensor, splits, size, what):
    rows = tensor.shape[0] if tensor.dim() > 0 else 1
    per_row = tensor.numel() // rows if rows else 0
    if splits is None or len(splits) == 0:
        if rows % size:
            raise ValueError(f"all_to_all_single: {what} dim 0 ({rows}) is not divisible by the group size {size}")
        return [rows // size * per_row] * size
    if len(splits) != size or sum(splits) != rows:
        raise ValueError(f"all_to_all_single: {what}_split_sizes {list(splits)} must have {size} entries summing to {rows}")
    return [int(s) * per_row for s in splits]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,  # noqa: A002
                      async_op=False):
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = group_or_none(group, "all_to_all_single")
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise TypeError("all_to_all_single: input and output must have the same dtype")
    out, send = Staged(output), Staged(input).array
    request = _alltoallv(pg, async_op, send, _split_counts(input, input_split_sizes, pg.size(), "input"),
                         out.array, _split_counts(output, output_split_sizes, pg.size(), "output"))
    return _done(Work([request], _finisher([out]), keep=(send,)), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    pg = group_or_none(group, "barrier")
    if pg is None:
        return None
    return _done(Work([_start(pg, "Ibarrier", async_op)]), async_op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    check_tensor(tensor, "tensor")
    pg = group_or_none(group, "isend")
    if pg is None:
        return None
    peer_rank = peer(pg, dst, group_dst, "dst")
    if peer_rank == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    send = Staged(tensor).array
    return Work([pg.comm.Isend(send, peer_rank, tag)], keep=(send,))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    check_tensor(tensor, "tensor")
    pg = group_or_none(group, "irecv")
    if pg is None:
        return None
    if src is None and group_src is None:
        source = _mpi().ANY_SOURCE
    else:
        source = peer(pg, src, group_src, "src")
        if source == pg.rank():
            raise ValueError("Invalid source rank: source rank should not be the same as "
                             "the rank of the current process.")
    out = Staged(tensor)
    work = Work([pg.comm.Irecv(out.array, source, tag)], _finisher([out]))
    work._group_ranks = pg.ranks
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into `tensor`; returns the sender's global rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._group_ranks[work.source_rank()]
