"""Optimizer step cost, rstorch against PyTorch in one process: `opt.step()` alone over fixed
gradients (the MLP of nn_compare.py, 784-512-512-10, and a model of many small parameters), and
the whole MLP training step at batch 64 and 256. CPU time per call (time.process_time, fair on a
shared machine), medians of repeated batches, one kernel thread for both by default.

    .venv/bin/python benches/optim_step.py [--threads 1] [--repeats 9]

PyTorch runs with its defaults (on the CPU foreach=None means its per-parameter loop) and, where
it accepts them, with foreach=True and fused=True; rstorch with foreach=None (its multi-tensor
pass) and foreach=False (one call per parameter).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from nn_compare import build_mlp  # noqa: E402


def mlp_params(torch):
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    return list(model.parameters())


def small_params(torch, count=200, size=1024):
    rng = np.random.default_rng(0)
    return [torch.from_numpy(rng.standard_normal(size).astype(np.float32)).requires_grad_() for _ in range(count)]


def build_opt_step(torch, make_params, cls="Adam", **options):
    params = make_params(torch)
    rng = np.random.default_rng(1)
    for p in params:
        p.grad = torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32))
    opt = getattr(torch.optim, cls)(params, lr=1e-3, **options)
    return opt.step


def build_mlp_step(torch, batch, **options):
    """nn_compare's MLP step at another batch size (its inputs are sliced to `batch` rows)."""
    step = build_mlp(torch)
    cells = step.__closure__
    names = step.__code__.co_freevars
    x = cells[names.index("x")].cell_contents
    y = cells[names.index("y")].cell_contents
    model = cells[names.index("model")].cell_contents
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, **options)
    xb, yb = x[:batch].contiguous(), y[:batch].contiguous()
    F = torch.nn.functional

    def run():
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()
    return run


def median_ms(fn, repeats, number, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - t0) / number * 1e3)
    return statistics.median(times)


WORKLOADS = [
    # title, builder(torch, **options), calls per batch
    ("Adam.step, MLP params (6 tensors, 670K elements)", lambda t, **o: build_opt_step(t, mlp_params, **o), 20),
    ("AdamW.step, MLP params", lambda t, **o: build_opt_step(t, mlp_params, "AdamW", **o), 20),
    ("Adam.step, 200 params x 1K", lambda t, **o: build_opt_step(t, small_params, **o), 20),
    ("AdamW(amsgrad).step, 200 params x 1K", lambda t, **o: build_opt_step(t, small_params, "AdamW", amsgrad=True, **o), 20),
    ("MLP step batch 64 (Adam)", lambda t, **o: build_mlp_step(t, 64, **o), 10),
    ("MLP step batch 256 (Adam)", lambda t, **o: build_mlp_step(t, 256, **o), 5),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--only", default="", help="run the workloads whose title contains this")
    args = parser.parse_args()
    import rstorch
    runs = [("rstorch", rstorch, {}), ("rstorch foreach=False", rstorch, {"foreach": False})]
    try:
        import torch
        runs += [("torch", torch, {}), ("torch foreach", torch, {"foreach": True}), ("torch fused", torch, {"fused": True})]
    except ImportError:
        pass
    for _, module, _ in runs:
        module.set_num_threads(args.threads)
    print(f"threads: {args.threads}, CPU ms per call (medians of {args.repeats})")
    for title, build, number in WORKLOADS:
        if args.only not in title:
            continue
        cells = []
        results = {}
        for name, module, options in runs:
            ms = median_ms(build(module, **options), args.repeats, number)
            results[name] = ms
            cells.append(f"{name} {ms:.3f}")
        ratio = f"  torch/rstorch {results['torch'] / results['rstorch']:.2f}x" if "torch" in results else ""
        print(f"{title}: " + "  ".join(cells) + ratio, flush=True)


if __name__ == "__main__":
    main()
