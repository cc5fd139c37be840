"""Runs under `mpiexec -n N` (tests/python/test_distributed.py launches it): DistributedDataParallel
training checked on every rank against one process training the same model on the global batch
(which each rank also runs, locally). Prints "OK <rank>" when every check passed."""
import sys

import numpy as np

import rstorch
import rstorch.distributed as dist
from rstorch import nn
from rstorch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    """The seed MNIST network's shape, small; `unused` takes part only when asked."""

    def __init__(self, with_unused=False):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 4)
        if with_unused:
            self.unused = nn.Linear(4, 4)
        self.register_buffer("steps", rstorch.zeros(1, dtype=rstorch.float64))

    def forward(self, x, use_all=False):
        out = self.fc2(rstorch.relu(self.fc1(x)))
        return self.unused(out) if use_all else out


def data(step, size, batch=6):
    rng = np.random.default_rng(step)
    x = rng.standard_normal((batch * size, 12))
    y = rng.integers(0, 4, batch * size)
    return rstorch.tensor(x.tolist(), dtype=rstorch.float64), rstorch.tensor(y.tolist())


def shard(tensor, rank, size):
    per = tensor.shape[0] // size
    return tensor[rank * per:(rank + 1) * per]


def assert_close(got, expected, what, rtol=1e-10):
    got, expected = np.array(got.tolist()), np.array(expected.tolist())
    scale = max(np.abs(expected).max(), 1e-300)
    assert np.abs(got - expected).max() <= rtol * scale, f"{what}: max diff {np.abs(got - expected).max()}"


def train(rank, size, bucket_cap_mb, accumulate, steps=20):
    rstorch.manual_seed(0)
    reference = Net().double()
    rstorch.manual_seed(0 if rank == 0 else 100 + rank)   # DDP must broadcast rank 0's state
    local = Net().double()
    model = DDP(local, bucket_cap_mb=bucket_cap_mb)
    assert model.module is local
    assert list(model.state_dict()) == ["module." + k for k in reference.state_dict()]
    for name, p in reference.named_parameters():
        assert_close(model.module.get_parameter(name), p, f"broadcast {name}", rtol=0)
    opt = rstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = rstorch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        x, y = data(step, size)
        ref_opt.zero_grad()
        loss_fn(reference(x), y).backward()
        ref_opt.step()
        opt.zero_grad()
        xs, ys = shard(x, rank, size), shard(y, rank, size)
        if accumulate:
            # Two micro-batches: the first under no_sync, the second synchronises the sum.
            half = xs.shape[0] // 2
            with model.no_sync():
                (loss_fn(model(xs[:half]), ys[:half]) * 0.5).backward()
            (loss_fn(model(xs[half:]), ys[half:]) * 0.5).backward()
        else:
            loss_fn(model(xs), ys).backward()
        opt.step()
    for name, p in reference.named_parameters():
        assert_close(model.module.get_parameter(name), p, f"{name} after {steps} steps (cap {bucket_cap_mb} MB)")
    # The replicas hold the same bits.
    for name, p in model.module.named_parameters():
        everyone = [rstorch.zeros_like(p) for _ in range(size)]
        dist.all_gather(everyone, p.detach())
        assert all(rstorch.equal(e, everyone[0]) for e in everyone), f"{name} differs between ranks"


def unused_parameters(rank, size):
    rstorch.manual_seed(0)
    model = DDP(Net(with_unused=True).double(), find_unused_parameters=True, bucket_cap_mb=0.0005)
    x, y = data(99, size)
    nn.CrossEntropyLoss()(model(shard(x, rank, size)), shard(y, rank, size)).backward()
    assert model.module.unused.weight.grad is None or not model.module.unused.weight.grad.abs().sum().item()
    assert model.module.fc1.weight.grad is not None
    # The next iteration uses every parameter.
    model(shard(x, rank, size), use_all=True).sum().backward()
    assert model.module.unused.weight.grad.abs().sum().item() > 0
    strict = DDP(Net(with_unused=True).double())
    strict(shard(x, rank, size)).sum().backward()   # `unused` never reports: the reduction cannot finish
    try:
        strict(shard(x, rank, size))
        raise AssertionError("an unfinished reduction must raise at the next forward")
    except RuntimeError as e:
        assert "Expected to have finished reduction in the prior iteration" in str(e)


def overlap(rank, size):
    """Buckets start during backward: when fc1's gradient (the last produced) is computed, fc2's
    bucket is already in flight; after backward none is left and every .grad is the average."""
    rstorch.manual_seed(0)
    model = DDP(Net().double(), bucket_cap_mb=0.0005)
    reducer = model._reducer
    assert len(reducer.buckets) > 2
    in_flight = []
    model.module.fc1.weight.register_hook(lambda g: in_flight.append(len(reducer.launched)))
    x, y = data(5, size)
    nn.CrossEntropyLoss()(model(shard(x, rank, size)), shard(y, rank, size)).backward()
    assert in_flight and in_flight[0] >= 1, in_flight
    assert not reducer.launched and not reducer.started
    for p in model.module.parameters():
        everyone = [rstorch.zeros_like(p.grad) for _ in range(size)]
        dist.all_gather(everyone, p.grad)
        assert all(rstorch.equal(e, everyone[0]) for e in everyone)


def uneven_inputs(rank, size):
    """join(): rank r trains on 2 + r batches; a joined rank shadows the others' all_reduces. Each
    step's gradient is the sum over the ranks still training of their mean gradients divided by the
    group size (PyTorch's divide_by_initial_world_size), which one process reproduces; at the end
    every replica holds the last rank's parameters, equal to that process's within 1e-10."""
    rstorch.manual_seed(0)
    reference = Net().double()
    rstorch.manual_seed(0)
    model = DDP(Net().double(), bucket_cap_mb=0.0005)
    opt = rstorch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = rstorch.optim.SGD(reference.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with model.join():
        for step in range(2 + rank):
            x, y = data(200 + step, size)
            opt.zero_grad()
            loss_fn(model(shard(x, rank, size)), shard(y, rank, size)).backward()
            opt.step()
    for step in range(2 + size - 1):
        x, y = data(200 + step, size)
        active = [r for r in range(size) if step < 2 + r]
        ref_opt.zero_grad()
        (sum(loss_fn(reference(shard(x, r, size)), shard(y, r, size)) for r in active) / size).backward()
        ref_opt.step()
    for name, p in reference.named_parameters():
        assert_close(model.module.get_parameter(name), p, f"join: {name}")
    try:
        with model.join(throw_on_early_termination=True):
            for _ in range(1 + rank):
                x, y = data(300, size)
                model(shard(x, rank, size)).sum().backward()
        raise AssertionError("throw_on_early_termination must raise")
    except RuntimeError as e:
        assert "Detected at least one rank that exhausted inputs" in str(e)
        model._reducer.reset()
    dist.barrier()


def sampler(rank, size):
    """DistributedSampler takes the group's size and rank; the shards partition one permutation per epoch."""
    from rstorch.utils.data import DistributedSampler
    for epoch in (0, 1):
        s = DistributedSampler(list(range(10)), seed=3)
        assert (s.num_replicas, s.rank) == (size, rank)
        s.set_epoch(epoch)
        everyone = [None] * size
        dist.all_gather_object(everyone, list(s))
        flat = sorted(i for shard in everyone for i in shard)
        assert set(flat) == set(range(10)) and len(flat) == s.total_size, everyone


def main():
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    for cap, accumulate in ((25, False), (0.0005, False), (0.001, True)):
        train(rank, size, cap, accumulate)
    unused_parameters(rank, size)
    overlap(rank, size)
    uneven_inputs(rank, size)
    sampler(rank, size)
    dist.barrier()
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
