"""A loop of MLP training steps (nn_compare.py's 784-512-512-10 MLP, batch 256, Adam), for
`perf stat -e task-clock` (CPU time, fair on a shared machine). `--linear matmul` swaps
F.linear back to a matrix product then a bias add, to compare with the one-op addmm.

    perf stat -e task-clock .venv/bin/python benches/mlp_step.py --steps 200 [--linear matmul] [--threads 1]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import rstorch  # noqa: E402
import rstorch.nn.functional as F  # noqa: E402
from nn_compare import build_mlp  # noqa: E402


def linear_matmul(input, weight, bias=None):
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--linear", choices=["addmm", "matmul"], default="addmm")
    p.add_argument("--threads", type=int, default=0, help="kernel threads (0: rstorch's default)")
    args = p.parse_args()
    if args.threads:
        rstorch.set_num_threads(args.threads)
    if args.linear == "matmul":
        F.linear = linear_matmul
    step = build_mlp(rstorch)
    for _ in range(args.steps):
        step()


if __name__ == "__main__":
    main()
