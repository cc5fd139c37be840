"""`nn.utils.clip_grad_norm_` cost, rstorch against PyTorch in one process: 200 parameters of 1K
float32 elements and 10 of 1M. CPU time per call (time.process_time), medians of repeated
batches, one kernel thread for both.

    PYTHONPATH=python /work/torchref/bin/python benches/clip_grad.py [--repeats 7]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from compare_torch import median_time  # noqa: E402


def build(torch, count, size):
    rng = np.random.default_rng(0)
    params = [torch.from_numpy(rng.standard_normal(size).astype(np.float32)).requires_grad_() for _ in range(count)]
    for p in params:
        p.grad = torch.from_numpy(rng.standard_normal(size).astype(np.float32))
    # A max_norm far below the total norm: every call scales every gradient (by a factor near 1,
    # so that repeated calls keep the numbers finite).
    total = float(np.sqrt(sum(float((p.grad.double() ** 2).sum()) for p in params)))
    return lambda: torch.nn.utils.clip_grad_norm_(params, total * 0.999999)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    import rstorch
    import torch
    torch.set_num_threads(1)
    rstorch.set_num_threads(1)
    for count, size, number in [(200, 1024, 50), (10, 1 << 20, 5)]:
        times = {}
        for name, lib in [("torch", torch), ("rstorch", rstorch)]:
            times[name] = median_time(build(lib, count, size), number, args.repeats, clock=time.process_time)
        print(f"clip_grad_norm_ {count} x {size}: torch {times['torch'] * 1e6:.0f} us, "
              f"rstorch {times['rstorch'] * 1e6:.0f} us, speedup {times['torch'] / times['rstorch']:.2f}x")


if __name__ == "__main__":
    main()
