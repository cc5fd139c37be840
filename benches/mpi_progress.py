"""Does Open MPI move a non-blocking all_reduce on while the process computes? A 4 MB Iallreduce
is started, then the process computes (matmuls) and waits; the time left in Wait shows how much of
the transfer happened during the compute. Without MPI calls in between (Open MPI has no progress
thread) the wait takes about the whole blocking Allreduce; with a Test between compute chunks (what
DDP's later gradient hooks do) the transfer completes during the compute. Run:

    mpiexec --allow-run-as-root --oversubscribe -n 2 .venv/bin/python benches/mpi_progress.py"""
import statistics
import time

import numpy as np
from mpi4py import MPI

import rstorch


def main():
    comm = MPI.COMM_WORLD
    buf = np.ones(1 << 20, np.float32)
    a = rstorch.randn(256, 256)

    def compute(request=None):
        for _ in range(10):
            for _ in range(4):
                a @ a
            if request is not None:
                request.Test()

    rows = {"blocking Allreduce": [], "compute alone": [], "wait after compute, no Test": [],
            "wait after compute with Tests": []}
    for _ in range(15):
        comm.Barrier()
        start = time.perf_counter()
        comm.Allreduce(MPI.IN_PLACE, buf)
        rows["blocking Allreduce"].append(time.perf_counter() - start)
        comm.Barrier()
        start = time.perf_counter()
        compute()
        rows["compute alone"].append(time.perf_counter() - start)
        for name, poll in (("wait after compute, no Test", False), ("wait after compute with Tests", True)):
            comm.Barrier()
            request = comm.Iallreduce(MPI.IN_PLACE, buf)
            compute(request if poll else None)
            start = time.perf_counter()
            request.Wait()
            rows[name].append(time.perf_counter() - start)
    if comm.rank == 0:
        for name, times in rows.items():
            print(f"| {name} | median {statistics.median(times) * 1e3:.2f} ms | min {min(times) * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()
