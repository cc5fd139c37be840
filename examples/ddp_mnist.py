"""Trains examples/mnist.py's network data-parallel over several processes, PyTorch's way.

    python -m rstorch.distributed.run --nproc-per-node 2 examples/ddp_mnist.py --epochs 2
    mpiexec -n 8 --hostfile hosts python -m rstorch.distributed.run --worker examples/ddp_mnist.py

Each process trains on its DistributedSampler share of every epoch with per-process batches of
batch-size / world-size images; DistributedDataParallel averages the gradients, so the replicas
take the steps one process would take on the whole batch. Run plainly (`python examples/ddp_mnist.py`)
it is the one-process program."""
import argparse
import os
import pathlib
import sys
import time

import rstorch as torch
import rstorch.distributed as dist
import rstorch.nn.functional as F
from rstorch.nn.parallel import DistributedDataParallel as DDP
from rstorch.utils.data import DataLoader, DistributedSampler

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mnist import Net, datasets, evaluate  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64, help="the global batch, split over the processes")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--data", help="a folder with the standard MNIST IDX files")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    ddp = int(os.environ.get("RANK", -1)) != -1   # set by the launcher
    if ddp:
        dist.init_process_group(backend="gloo")
    rank, world = (dist.get_rank(), dist.get_world_size()) if ddp else (0, 1)
    torch.manual_seed(args.seed)
    train_set, test_set = datasets(args.data)
    sampler = DistributedSampler(train_set, seed=args.seed) if ddp else None
    loader = DataLoader(train_set, batch_size=args.batch_size // world, sampler=sampler, shuffle=sampler is None)
    model = DDP(Net()) if ddp else Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)   # a new shuffle each epoch, the same on every process
        model.train()
        for data, target in loader:
            optimizer.zero_grad()
            F.nll_loss(model(data), target).backward()
            optimizer.step()
        if rank == 0:
            net = model.module if ddp else model
            test_loss, accuracy = evaluate(net, DataLoader(test_set, batch_size=1000))
            print(f"epoch {epoch}: test loss {test_loss:.4f}, test accuracy {accuracy:.2%} "
                  f"({world} process{'es' if world > 1 else ''}, {time.perf_counter() - start:.1f} s)", flush=True)
    if ddp:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
