"""float32 matrix products at every size issue 23 names, rstorch against PyTorch in one process.

    PYTHONPATH=python /work/torchref/bin/python benches/matmul_sizes.py --threads 1 --cpu-time
        [--only REGEX] [--repeats 5] [--no-backward]

Rows: square `a @ b` from 64 to 4096, and the shapes of the MLP (784-512-512-10 at batch 64 and
256) and of the LSTM LM (a 20x200 state by the 200x800 gate weights, the 700x200 batched input)
as `F.linear(x, W, b)` runs them (x @ W^T + b). "fwd" times the product; "f+b" the product and
its backward with gradients for both operands (and the bias): the transposed-operand products
g @ W and g^T @ x. A cell is the median over `--repeats` loops (each about 50 ms, calibrated per
framework) of the seconds per call; the ratio is PyTorch's time / rstorch's, above 1 when
rstorch is faster.
"""
import argparse
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import fmt_time, median_time  # noqa: E402

import rstorch  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

LOOP_SECONDS = 0.05
SQUARE = [64, 128, 256, 384, 512, 768, 1024, 2048, 4096]
# (name, batch rows, in features, out features) of F.linear.
LINEAR = [
    ("mlp64 784->512", 64, 784, 512), ("mlp64 512->512", 64, 512, 512), ("mlp64 512->10", 64, 512, 10),
    ("mlp256 784->512", 256, 784, 512), ("mlp256 512->512", 256, 512, 512), ("mlp256 512->10", 256, 512, 10),
    ("lstm state 20x200->800", 20, 200, 800), ("lstm input 700x200->800", 700, 200, 800),
    ("lstm decoder 700x200->10000", 700, 200, 10000),
    ("gpt qkv 512x128->384", 512, 128, 384), ("gpt proj 512x128->128", 512, 128, 128),
    ("gpt fc 512x128->512", 512, 128, 512), ("gpt mlp_proj 512x512->128", 512, 512, 128),
    ("gpt head 512x128->65", 512, 128, 65),
]


def arrays(tt, shapes, seed):
    rng = np.random.default_rng(seed)
    return [tt.from_numpy(rng.standard_normal(s, dtype=np.float32)) for s in shapes]


def square(tt, n, backward):
    a, b = arrays(tt, [(n, n), (n, n)], n)
    if not backward:
        return lambda: a @ b
    a.requires_grad_(True)
    b.requires_grad_(True)
    g = arrays(tt, [(n, n)], n + 1)[0]

    def step():
        a.grad = b.grad = None
        (a @ b).backward(g)
    return step


def linear(tt, rows, fin, fout, backward):
    x, w, bias, g = arrays(tt, [(rows, fin), (fout, fin), (fout,), (rows, fout)], rows * fin + fout)
    f = tt.nn.functional.linear
    if not backward:
        return lambda: f(x, w, bias)
    for t in (x, w, bias):
        t.requires_grad_(True)

    def step():
        x.grad = w.grad = bias.grad = None
        f(x, w, bias).backward(g)
    return step


def cases():
    for n in SQUARE:
        for bwd in (False, True):
            yield f"square {n} {'f+b' if bwd else 'fwd'}", lambda tt, n=n, bwd=bwd: square(tt, n, bwd)
    for name, rows, fin, fout in LINEAR:
        for bwd in (False, True):
            yield f"{name} {'f+b' if bwd else 'fwd'}", lambda tt, r=rows, i=fin, o=fout, bwd=bwd: linear(tt, r, i, o, bwd)


def timed(fn, repeats, clock):
    start = clock()
    fn()
    once = max(clock() - start, 1e-7)
    number = max(1, int(LOOP_SECONDS / once))
    return median_time(fn, number, repeats, clock=clock)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--cpu-time", action="store_true", help="process CPU time (use with --threads 1 on a loaded host)")
    p.add_argument("--only", default="", help="regex on the row names")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--no-backward", action="store_true")
    args = p.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    frameworks = [("rstorch", rstorch)] + ([("torch", torch)] if torch is not None else [])
    for _, tt in frameworks:
        tt.set_num_threads(args.threads)
    print(f"threads {args.threads}, clock {'CPU' if args.cpu_time else 'wall'}, load {os.getloadavg()[0]:.2f}")
    ratios = []
    for name, build in cases():
        if args.only and not re.search(args.only, name):
            continue
        if args.no_backward and name.endswith("f+b"):
            continue
        times = {fw: timed(build(tt), args.repeats, clock) for fw, tt in frameworks}
        line = f"{name:34s} " + "  ".join(f"{fw} {fmt_time(t)}" for fw, t in times.items())
        if "torch" in times:
            ratio = times["torch"] / times["rstorch"]
            ratios.append((ratio, name))
            line += f"  x{ratio:.2f}"
        print(line, flush=True)
    if ratios:
        below = [f"{n} x{r:.2f}" for r, n in ratios if r < 1.0]
        print(f"min x{min(ratios)[0]:.2f} ({min(ratios)[1]}); below 1.0: {', '.join(below) or 'none'}")


if __name__ == "__main__":
    main()
