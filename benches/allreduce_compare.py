"""all_reduce bandwidth: rstorch.distributed.all_reduce against mpi4py's raw Allreduce on the same
buffer (a float32 tensor's memory), 1 KB to 256 MB. Run under MPI:

    mpiexec --allow-run-as-root --oversubscribe -n 2 .venv/bin/python benches/allreduce_compare.py

Each size alternates the two in rounds (so drift hits both) and reports medians; rank 0 prints a
Markdown table (bus bandwidth as NCCL's tests define it: 2 (n-1)/n bytes per second)."""
import statistics
import sys
import time

from mpi4py import MPI

import rstorch
import rstorch.distributed as dist


def timed(call, reps):
    MPI.COMM_WORLD.Barrier()
    start = time.perf_counter()
    for _ in range(reps):
        call()
    return (time.perf_counter() - start) / reps


def main():
    dist.init_process_group("mpi")
    comm, size = MPI.COMM_WORLD, dist.get_world_size()
    sizes = [1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20]
    if len(sys.argv) > 1:
        sizes = [s for s in sizes if s <= int(sys.argv[1]) << 20]
    rows = []
    for nbytes in sizes:
        tensor = rstorch.zeros(nbytes // 4)
        array = tensor.numpy()
        raw = lambda: comm.Allreduce(MPI.IN_PLACE, array, MPI.SUM)
        ours = lambda: dist.all_reduce(tensor)
        once = timed(raw, 1)
        reps = comm.bcast(max(1, min(200, int(0.05 / max(once, 1e-7)))), 0)   # the same count on every rank
        times = {"raw": [], "ours": []}
        for _ in range(3):
            times["raw"].append(timed(raw, reps))
            times["ours"].append(timed(ours, reps))
        raw_t, ours_t = statistics.median(times["raw"]), statistics.median(times["ours"])
        rows.append((nbytes, raw_t, ours_t))
    if dist.get_rank() == 0:
        bus = 2 * (size - 1) / size
        print("| size | mpi4py Allreduce | rstorch all_reduce | rstorch bus GB/s | ratio (mpi4py time / rstorch time) |")
        print("|---|---|---|---|---|")
        for nbytes, raw_t, ours_t in rows:
            label = f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"
            print(f"| {label} | {raw_t * 1e6:.1f} us | {ours_t * 1e6:.1f} us | {bus * nbytes / ours_t / 1e9:.2f} | "
                  f"{raw_t / ours_t:.3f} |")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
