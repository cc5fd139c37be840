"""Elementwise ops on transposed inputs, rstorch against PyTorch in one process, one thread:
the results keep the input's memory order (src/result_layout.rs), so the kernels stream through
storage as for contiguous tensors. Medians of one-thread CPU time (time.process_time).

    PYTHONPATH=python /work/torchref/bin/python benches/transposed_ops.py
"""
import statistics
import time

import torch

import rstorch

OPS = [
    ("exp", lambda m, x, y: x.exp()),
    ("sigmoid", lambda m, x, y: x.sigmoid()),
    ("add", lambda m, x, y: x + y),
    ("mul", lambda m, x, y: x * y),
    ("where", lambda m, x, y: m.where(x > 0, x, y)),
    ("clone", lambda m, x, y: x.clone()),
    ("to_f64", lambda m, x, y: x.double()),
]


def median_cpu_time(f, repeats=7, inner=10):
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(inner):
            f()
        times.append((time.process_time() - t0) / inner)
    return statistics.median(times)


def main():
    torch.set_num_threads(1)
    rstorch.set_num_threads(1)
    for name, fn in OPS:
        row = []
        for m in (rstorch, torch):
            x, y = m.randn(1024, 1024).t(), m.randn(1024, 1024).t()
            row.append(median_cpu_time(lambda: fn(m, x, y)))
        print(f"{name:8s} transposed 1M float32: rstorch {row[0] * 1e3:7.3f} ms  PyTorch {row[1] * 1e3:7.3f} ms  "
              f"ratio {row[1] / row[0]:.2f}")


if __name__ == "__main__":
    main()
