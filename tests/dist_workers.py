"""Runs under `mpiexec -n N` (tests/python/test_distributed.py launches it): every collective of
rstorch.distributed on each rank, checked against expectations NumPy computes from the data every
rank would hold (each rank's data is a seeded function of its rank, so no rank needs another's).
Prints "OK <rank>" when every check passed; a failed check raises, and mpiexec exits non-zero."""
import datetime
import sys
import warnings

import numpy as np

import rstorch
import rstorch.distributed as dist

DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.float32,
          "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
          "bool": np.bool_}
FLOATS = ("float32", "float64", "float16", "bfloat16")
SHAPES = [(), (0,), (5,), (3, 4)]


def values(seed, rank, dtype, shape):
    """Small integers (exact in every dtype, sums and products of up to 3 ranks included)."""
    rng = np.random.default_rng(1000 * seed + rank)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    low = 0 if dtype == "uint8" else -3
    return rng.integers(low, 4, shape).astype(DTYPES[dtype])


def tensor(array, dtype, strided=False):
    """`array` as an rstorch tensor; strided: a transposed (non-contiguous) view holding it."""
    if strided and array.ndim == 2:
        return tensor(np.ascontiguousarray(array.T), dtype).t()
    return rstorch.tensor(array.tolist(), dtype=getattr(rstorch, dtype))


def numpy_of(t):
    t = t.float() if t.dtype == rstorch.bfloat16 else t
    return np.array(t.tolist(), dtype=None).reshape(tuple(t.shape))


def check(got, expected, what, approx=False):
    got = numpy_of(got) if isinstance(got, rstorch.Tensor) else np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    if approx:
        assert np.allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-2, atol=1e-2), \
            f"{what}: {got} != {expected}"
    else:
        assert np.array_equal(got.astype(np.float64), expected.astype(np.float64)), f"{what}: {got} != {expected}"


def reduce_numpy(arrays, op, dtype):
    stack = np.stack(arrays).astype(np.float64 if dtype in FLOATS else np.int64)
    if dtype == "bool":
        stack = stack.astype(bool)
        return {"SUM": stack.any(0), "AVG": stack.any(0), "PRODUCT": stack.all(0), "MIN": stack.all(0),
                "MAX": stack.any(0), "BAND": stack.all(0), "BOR": stack.any(0),
                "BXOR": np.bitwise_xor.reduce(stack, 0)}[op]
    if op == "AVG":
        total = stack.sum(0)
        return total / len(arrays) if dtype in FLOATS else np.trunc(total / len(arrays))
    return {"SUM": lambda: stack.sum(0), "PRODUCT": lambda: stack.prod(0), "MIN": lambda: stack.min(0),
            "MAX": lambda: stack.max(0), "BAND": lambda: np.bitwise_and.reduce(stack, 0),
            "BOR": lambda: np.bitwise_or.reduce(stack, 0), "BXOR": lambda: np.bitwise_xor.reduce(stack, 0)}[op]()


def ops_for(dtype):
    ops = ["SUM", "PRODUCT", "MIN", "MAX", "AVG"]
    return ops if dtype in FLOATS else ops + ["BAND", "BOR", "BXOR"]


def cases():
    for dtype in DTYPES:
        for shape in SHAPES:
            for strided in (False, True) if len(shape) == 2 else (False,):
                yield dtype, shape, strided


def test_reductions(rank, size):
    for seed, (dtype, shape, strided) in enumerate(cases()):
        every = [values(seed, r, dtype, shape) for r in range(size)]
        for op in ops_for(dtype):
            what = f"all_reduce {op} {dtype} {shape} strided={strided}"
            t = tensor(every[rank], dtype, strided)
            assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op)) is None
            check(t, reduce_numpy(every, op, dtype), what, approx=op == "AVG" and dtype in FLOATS)
            t = tensor(every[rank], dtype, strided)
            dst = size - 1
            dist.reduce(t, dst=dst, op=getattr(dist.ReduceOp, op))
            expected = reduce_numpy(every, op, dtype) if rank == dst else every[rank]
            check(t, expected, "reduce " + what, approx=op == "AVG" and dtype in FLOATS)
        if dtype in FLOATS:
            try:
                dist.all_reduce(tensor(every[rank], dtype), op=dist.ReduceOp.BAND)
                raise AssertionError("BAND on floats must raise")
            except RuntimeError as e:
                assert "non-integral dtype" in str(e)


def test_movement(rank, size):
    for seed, (dtype, shape, strided) in enumerate(cases()):
        every = [values(seed, r, dtype, shape) for r in range(size)]
        what = f"{dtype} {shape} strided={strided}"
        src = size - 1
        t = tensor(every[rank], dtype, strided)
        dist.broadcast(t, src=src)
        check(t, every[src], "broadcast " + what)

        outs = [tensor(np.zeros(shape, DTYPES[dtype]), dtype, strided) for _ in range(size)]
        dist.all_gather(outs, tensor(every[rank], dtype, strided))
        for r in range(size):
            check(outs[r], every[r], f"all_gather[{r}] " + what)

        flat = rstorch.zeros(size * int(np.prod(shape)), dtype=getattr(rstorch, dtype))
        dist.all_gather_into_tensor(flat, tensor(every[rank], dtype, strided))
        check(flat, np.concatenate([e.reshape(-1) for e in every]), "all_gather_into_tensor " + what)

        dst = 1 % size
        gathered = [tensor(np.zeros(shape, DTYPES[dtype]), dtype, strided) for _ in range(size)] if rank == dst else None
        dist.gather(tensor(every[rank], dtype, strided), gathered, dst=dst)
        if rank == dst:
            for r in range(size):
                check(gathered[r], every[r], f"gather[{r}] " + what)

        pieces = [values(seed + 500, r, dtype, shape) for r in range(size)]
        out = tensor(np.zeros(shape, DTYPES[dtype]), dtype, strided)
        dist.scatter(out, [tensor(p, dtype, strided) for p in pieces] if rank == src else None, src=src)
        check(out, pieces[rank], "scatter " + what)

        # reduce_scatter: rank r's input list entry j is values(seed, r * size + j).
        inputs = [[values(seed + 900, r * size + j, dtype, shape) for j in range(size)] for r in range(size)]
        out = tensor(np.zeros(shape, DTYPES[dtype]), dtype, strided)
        dist.reduce_scatter(out, [tensor(a, dtype, strided) for a in inputs[rank]])
        check(out, reduce_numpy([inputs[r][rank] for r in range(size)], "SUM", dtype), "reduce_scatter " + what)
        out = tensor(np.zeros(shape, DTYPES[dtype]), dtype, strided)
        whole = tensor(np.stack(inputs[rank]), dtype)
        dist.reduce_scatter_tensor(out, whole.reshape(-1) if shape == () else whole.reshape(size * shape[0], *shape[1:])
                                   if shape else whole)
        check(out, reduce_numpy([inputs[r][rank] for r in range(size)], "SUM", dtype), "reduce_scatter_tensor " + what)


def test_all_to_all(rank, size):
    for dtype in DTYPES:
        # Uneven: rank r sends (r + j) % 3 elements to rank j.
        sent = {(r, j): values(7, 100 * r + j, dtype, ((r + j) % 3,)) for r in range(size) for j in range(size)}
        outs = [rstorch.zeros((j + rank) % 3, dtype=getattr(rstorch, dtype)) for j in range(size)]
        dist.all_to_all(outs, [tensor(sent[rank, j], dtype) for j in range(size)])
        for j in range(size):
            check(outs[j], sent[j, rank], f"all_to_all from {j} {dtype}")
        # all_to_all_single with split sizes along dim 0 of a (rows, 2) tensor.
        splits = lambda r: [(r + j) % 3 + 1 for j in range(size)]
        rows = {r: values(8, r, dtype, (sum(splits(r)), 2)) for r in range(size)}
        in_splits = splits(rank)
        out_splits = [splits(j)[rank] for j in range(size)]
        out = rstorch.zeros(sum(out_splits), 2, dtype=getattr(rstorch, dtype))
        dist.all_to_all_single(out, tensor(rows[rank], dtype), out_splits, in_splits)
        expected = np.concatenate([rows[j][sum(splits(j)[:rank]):sum(splits(j)[:rank + 1])] for j in range(size)])
        check(out, expected, f"all_to_all_single {dtype}")
    even = rstorch.arange(2 * size, dtype=rstorch.float64) + 100 * rank
    out = rstorch.zeros(2 * size, dtype=rstorch.float64)
    dist.all_to_all_single(out, even)
    check(out, np.concatenate([np.arange(2 * rank, 2 * rank + 2) + 100 * j for j in range(size)]), "all_to_all_single even")


def test_point_to_point(rank, size):
    right, left = (rank + 1) % size, (rank - 1) % size
    for dtype in ("float64", "int32", "bool", "bfloat16"):
        out = tensor(np.zeros((3, 4), DTYPES[dtype]), dtype, strided=True)
        send = dist.isend(tensor(values(3, rank, dtype, (3, 4)), dtype, strided=True), dst=right)
        recv = dist.irecv(out, src=left)
        assert send.wait() and recv.wait() and recv.is_completed()
        check(out, values(3, left, dtype, (3, 4)), f"isend/irecv {dtype}")
    if rank == 0:
        for _ in range(size - 1):
            got = rstorch.zeros(1, dtype=rstorch.int64)
            sender = dist.recv(got)
            assert got.item() == 10 * sender, (sender, got)
    else:
        dist.send(rstorch.tensor([10 * rank]), dst=0)
    try:
        dist.send(rstorch.ones(1), dst=rank)
        raise AssertionError("send to self must raise")
    except ValueError as e:
        assert "should not be the same as the rank of the current process" in str(e)


def test_batched_point_to_point_and_monitored_barrier(rank, size):
    right, left = (rank + 1) % size, (rank - 1) % size
    outs = [rstorch.zeros(3, dtype=rstorch.float64), rstorch.zeros(2, 2, dtype=rstorch.int32).t()]
    ops = [dist.P2POp(dist.irecv, outs[0], left), dist.P2POp(dist.isend, rstorch.full((3,), float(rank), dtype=rstorch.float64), right),
           dist.P2POp(dist.isend, rstorch.full((2, 2), rank, dtype=rstorch.int32), group_peer=right, tag=3),
           dist.P2POp(dist.irecv, outs[1], group_peer=left, tag=3)]
    assert "P2POp(irecv pg=0, group_src/group_dst=" in repr(ops[0])
    works = dist.batch_isend_irecv(ops)
    assert len(works) == 4
    for w in works:
        w.wait()
    check(outs[0], np.full(3, float(left)), "batch_isend_irecv float64")
    check(outs[1], np.full((2, 2), left), "batch_isend_irecv into a strided int32 view")
    for bad, text in ((lambda: dist.P2POp(dist.send, outs[0], right), "Invalid ``op``"),
                      (lambda: dist.batch_isend_irecv([ops[0], "x"]), "Invalid ``p2p_op_list``")):
        try:
            bad()
            raise AssertionError(f"expected ValueError: {text}")
        except ValueError as e:
            assert text in str(e)
    dist.monitored_barrier()
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30), wait_all_ranks=True)
    if rank == 0:   # the others do not come: rank 0 names who it did not hear from
        for wait_all, text in ((False, "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 300 ms"),
                               (True, "[Rank 0]: Ranks " + ", ".join(map(str, range(1, size)))
                                + " failed to pass monitoredBarrier in 300 ms")):
            try:
                dist.monitored_barrier(timeout=datetime.timedelta(seconds=0.3), wait_all_ranks=wait_all)
                raise AssertionError("monitored_barrier must time out")
            except RuntimeError as e:
                assert str(e) == text, str(e)
    dist.barrier()


def test_async_and_objects(rank, size):
    t = rstorch.full((1000,), float(rank + 1), dtype=rstorch.float64)
    work = dist.all_reduce(t, async_op=True)
    assert isinstance(work, dist.Work)
    work.wait()
    assert work.is_completed()
    check(t, np.full(1000, size * (size + 1) / 2), "async all_reduce")
    works = [dist.broadcast(rstorch.tensor([float(rank)]), src=r, async_op=True) for r in range(size)]
    for w in works:
        w.wait()
    dist.barrier()
    dist.barrier(async_op=True).wait()
    # Every collective's non-blocking path: results land only once wait() returns.
    mine = rstorch.arange(4 * size, dtype=rstorch.float64).reshape(2 * size, 2).t() + 100 * rank   # strided
    everyone = [np.arange(4 * size, dtype=np.float64).reshape(2 * size, 2).T + 100 * r for r in range(size)]
    outs = [rstorch.zeros(2, 2 * size, dtype=rstorch.float64) for _ in range(size)]
    whole = rstorch.zeros(2 * size, 2 * size, dtype=rstorch.float64)
    part = rstorch.zeros(2, 2, dtype=rstorch.float64)
    shuffled = rstorch.zeros(2 * size, 2, dtype=rstorch.float64)
    gathered = [rstorch.zeros(2, 2 * size, dtype=rstorch.float64) for _ in range(size)] if rank == 0 else None
    scattered = rstorch.zeros(2, 2 * size, dtype=rstorch.float64)
    reduced = mine.clone()
    works = [dist.all_gather(outs, mine, async_op=True),
             dist.all_gather_into_tensor(whole, mine.contiguous(), async_op=True),
             dist.reduce_scatter_tensor(part, rstorch.arange(4.0 * size, dtype=rstorch.float64).reshape(2 * size, 2)
                                        + rank, async_op=True),
             dist.all_to_all_single(shuffled, rstorch.full((2 * size, 2), float(rank), dtype=rstorch.float64),
                                    async_op=True),
             dist.gather(mine, gathered, dst=0, async_op=True),
             dist.scatter(scattered, [t + 1 for t in [mine] * size] if rank == size - 1 else None, src=size - 1,
                          async_op=True),
             dist.reduce(reduced, dst=0, op=dist.ReduceOp.MAX, async_op=True)]
    for w in works:
        w.wait()
    for r in range(size):
        check(outs[r], everyone[r], f"async all_gather[{r}]")
        check(whole[2 * r:2 * r + 2], everyone[r], f"async all_gather_into_tensor[{r}]")
        check(shuffled[2 * r:2 * r + 2], np.full((2, 2), float(r)), f"async all_to_all_single[{r}]")
        if rank == 0:
            check(gathered[r], everyone[r], f"async gather[{r}]")
    base = np.arange(4.0 * size).reshape(2 * size, 2)
    check(part, size * base[2 * rank:2 * rank + 2] + size * (size - 1) / 2, "async reduce_scatter_tensor")
    check(scattered, everyone[size - 1] + 1, "async scatter")
    check(reduced, everyone[size - 1] if rank == 0 else everyone[rank], "async reduce MAX")

    objects = [{"rank": rank}, "x"] if rank == 0 else [None, None]
    dist.broadcast_object_list(objects, src=0)
    assert objects == [{"rank": 0}, "x"], objects
    everyone = [None] * size
    dist.all_gather_object(everyone, ("r", rank, [rank] * rank))
    assert everyone == [("r", r, [r] * r) for r in range(size)], everyone
    dst = size - 1
    gathered = [None] * size if rank == dst else None
    dist.gather_object(rank * 2, gathered, dst=dst)
    assert rank != dst or gathered == [2 * r for r in range(size)], gathered
    out = [None]
    dist.scatter_object_list(out, [f"to {r}" for r in range(size)] if rank == 0 else None, src=0)
    assert out == [f"to {rank}"], out


def test_groups_and_errors(rank, size):
    assert dist.is_initialized() and dist.get_rank() == rank and dist.get_world_size() == size
    assert dist.get_backend() == BACKEND and dist.group.WORLD is dist.GroupMember.WORLD
    members = [0, size - 1]
    sub = dist.new_group(members)
    if rank in members:
        assert dist.get_rank(sub) == members.index(rank) and dist.get_world_size(sub) == 2
        assert dist.get_process_group_ranks(sub) == members
        t = rstorch.tensor([float(rank)])
        dist.all_reduce(t, group=sub)
        check(t, [float(sum(members))], "sub-group all_reduce")
        t = rstorch.tensor([float(rank)])
        dist.broadcast(t, src=size - 1, group=sub)   # src is a global rank
        check(t, [float(size - 1)], "sub-group broadcast")
        try:
            dist.broadcast(t, src=1 if size > 2 else 5, group=sub)
            raise AssertionError("a src outside the group must raise")
        except ValueError as e:
            assert "is not part of group" in str(e)
    else:
        assert sub == dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(sub) == -1 and dist.get_world_size(sub) == -1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(rstorch.ones(1), group=sub) is None
        assert "does not belong to the given group" in str(caught[0].message)
    expectations = [
        (lambda: dist.init_process_group("gloo"), ValueError, "trying to initialize the default process group twice!"),
        (lambda: dist.broadcast(rstorch.ones(1), src=size), RuntimeError, "Invalid src rank"),
        (lambda: dist.all_gather([rstorch.ones(1)] * (size + 1), rstorch.ones(1)), ValueError, "expected a list of"),
        (lambda: dist.all_gather_into_tensor(rstorch.ones(1), rstorch.ones(1)), ValueError, "world_size times"),
        (lambda: dist.all_reduce([1.0]), TypeError, "Expected parameter `tensor` of type torch.Tensor"),
        (lambda: dist.all_reduce(rstorch.ones(1), op="sum"), TypeError, "op must be a ReduceOp"),
    ]
    for call, error, text in expectations:
        try:
            call()
        except error as e:
            assert text in str(e), (text, str(e))
        else:
            raise AssertionError(f"expected {error.__name__}: {text}")
    # A gradient-carrying leaf (what DDP reduces) takes the result in place.
    w = rstorch.ones(3, requires_grad=True)
    dist.all_reduce(w)
    check(w.detach(), np.full(3, size), "all_reduce of a leaf requiring grad")
    if rank in members:
        dist.destroy_process_group(sub)
        assert dist.is_initialized()


def test_wgpu_tensors(rank, size):
    """wgpu tensors stage through host memory; results land back on the device, views included."""
    if not rstorch.wgpu.is_available():
        return
    every = [values(11, r, "float32", (3, 4)) for r in range(size)]
    t = tensor(every[rank], "float32").to("wgpu")
    dist.all_reduce(t)
    assert t.device.type == "wgpu"
    check(t.cpu(), reduce_numpy(every, "SUM", "float32"), "wgpu all_reduce")
    view = tensor(every[rank], "float32").to("wgpu").t()
    dist.broadcast(view, src=0)
    check(view.cpu(), every[0].T, "wgpu broadcast into a transposed view")
    outs = [rstorch.zeros(3, 4, device="wgpu") for _ in range(size)]
    dist.all_gather(outs, tensor(every[rank], "float32").to("wgpu"))
    for r in range(size):
        check(outs[r].cpu(), every[r], f"wgpu all_gather[{r}]")


BACKEND = sys.argv[1] if len(sys.argv) > 1 else "gloo"


def main():
    dist.init_process_group(backend=BACKEND)
    rank, size = dist.get_rank(), dist.get_world_size()
    for test in (test_reductions, test_movement, test_all_to_all, test_point_to_point,
                 test_batched_point_to_point_and_monitored_barrier, test_async_and_objects, test_groups_and_errors,
                 test_wgpu_tensors):
        test(rank, size)
        dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"OK {rank}", flush=True)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        # One rank failing would leave the others blocked in a collective: end the whole job now.
        import traceback

        from mpi4py import MPI
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(1)
