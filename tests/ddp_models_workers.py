"""Runs under `mpiexec -n N` (tests/python/test_distributed.py launches it): DistributedDataParallel
training of the seed MNIST network (examples/mnist.py's Net, dropout off so every process draws
nothing at random) and of a small transformer (nn.TransformerEncoder between an embedding and a
head) for 20 steps, in float64 and float32, checked on every rank against one process training the
same model on the global batch (each rank also runs that one locally): float64 within 1e-10
relative, float32 within 1e-5. Prints "HASH <rank> <what> <sha256 of the final state_dict>" (the
caller compares runs and ranks) and "OK <rank>" when every check passed."""
import hashlib
import pathlib
import sys

import numpy as np

import rstorch
import rstorch.distributed as dist
from rstorch import nn
from rstorch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
from ddp_workers import assert_close, shard  # noqa: E402
from mnist import Net  # noqa: E402

STEPS = 20
GLOBAL_BATCH = 6   # divisible by 2 and 3 processes


class TinyTransformer(nn.Module):
    def __init__(self, vocab=11, width=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


def mnist_batch(step, dtype):
    rng = np.random.default_rng(step)
    x = rstorch.tensor(rng.standard_normal((GLOBAL_BATCH, 1, 28, 28)).tolist(), dtype=dtype)
    return x, rstorch.tensor(rng.integers(0, 10, GLOBAL_BATCH).tolist())


def token_batch(step, dtype):
    rng = np.random.default_rng(1000 + step)
    tokens = rstorch.tensor(rng.integers(0, 11, (GLOBAL_BATCH, 5)).tolist())
    return tokens, rstorch.tensor(rng.integers(0, 11, (GLOBAL_BATCH, 5)).tolist())


def mnist_loss(model, x, y):
    return nn.functional.nll_loss(model(x), y)


def token_loss(model, x, y):
    logits = model(x)
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def state_hash(module):
    digest = hashlib.sha256()
    for name, value in module.state_dict().items():
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(value.detach().numpy()).tobytes())
    return digest.hexdigest()


def train(rank, size, make, batch, loss_fn, dtype, rtol):
    rstorch.manual_seed(0)
    reference = make().to(dtype).eval()
    rstorch.manual_seed(0 if rank == 0 else 7 + rank)   # DDP must broadcast rank 0's state
    model = DDP(make().to(dtype).eval(), bucket_cap_mb=0.01)
    assert len(model._reducer.buckets) > 1
    opt = rstorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ref_opt = rstorch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    for step in range(STEPS):
        x, y = batch(step, dtype)
        ref_opt.zero_grad()
        loss_fn(reference, x, y).backward()
        ref_opt.step()
        opt.zero_grad()
        loss_fn(model, shard(x, rank, size), shard(y, rank, size)).backward()
        opt.step()
    for name, p in reference.state_dict().items():
        assert_close(model.module.state_dict()[name], p, f"{make.__name__} {dtype} {name} after {STEPS} steps", rtol)
    return state_hash(model.module)


def main():
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    for make, batch, loss_fn in ((Net, mnist_batch, mnist_loss), (TinyTransformer, token_batch, token_loss)):
        for dtype, rtol in ((rstorch.float64, 1e-10), (rstorch.float32, 1e-5)):
            digest = train(rank, size, make, batch, loss_fn, dtype, rtol)
            print(f"HASH {rank} {make.__name__}-{str(dtype).rpartition('.')[2]} {digest}", flush=True)
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
