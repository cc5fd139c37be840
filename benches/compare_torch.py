"""Run the same workloads on rstorch and PyTorch in one process and print a markdown table.

    PYTHONPATH=python /work/torchenv/bin/python benches/compare_torch.py [--quick] [--threads N]

Each cell is the median over several repeats of a timed loop, divided by the loop's length.
The ratio is torch_time / rstorch_time: above 1 means rstorch is faster. Without PyTorch
installed (as in the project's .venv, which `make bench` uses) only rstorch's numbers are shown.
The output (header lines and table) is meant to be pasted into BENCHMARKS.md.
"""
import argparse
import datetime
import gc
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

import rstorch

try:
    import torch
except ImportError:
    torch = None

N_LARGE = 1 << 24  # 16M float32 = 64 MiB per tensor, well past any cache
N_MATMUL = 2048


def median_time(fn, number, repeats, clock=time.perf_counter):
    """Median seconds per call of `fn` over `repeats` loops of `number` calls, after one warm-up.

    `clock` is wall time by default; `time.process_time` (CPU time, for one thread) keeps a loaded
    host's waiting out of the numbers."""
    fn()
    samples = []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as timeit does: a collection in one loop and not another is noise
    try:
        for _ in range(repeats):
            start = clock()
            for _ in range(number):
                fn()
            samples.append((clock() - start) / number)
    finally:
        if gc_was_enabled:
            gc.enable()
    return statistics.median(samples)


# ----- workloads ---------------------------------------------------------------------------------
# Each takes the framework module (rstorch or torch, same API) and returns the call to time.
# Inputs are built outside the call so only the op itself is measured.

def matmul(tt):
    a, b = tt.rand(N_MATMUL, N_MATMUL), tt.rand(N_MATMUL, N_MATMUL)
    return lambda: a @ b


def add_large(tt):
    a, b = tt.rand(N_LARGE), tt.rand(N_LARGE)
    return lambda: a + b


def exp_large(tt):
    a = tt.rand(N_LARGE)
    return lambda: a.exp()


def sum_large(tt):
    a = tt.rand(N_LARGE)
    return lambda: a.sum()


def transpose_contiguous(tt):
    t = tt.rand(N_MATMUL, N_MATMUL).t()
    return lambda: t.contiguous()


def add_tiny(tt):
    a, b = tt.rand(4), tt.rand(4)
    return lambda: a + b


def backward_tiny(tt):
    x = tt.rand(4, requires_grad=True)

    def step():
        (x * x).sum().backward()
        x.grad = None  # keep every step identical instead of accumulating

    return step


# (label, workload, calls per timed loop, calls per timed loop with --quick)
WORKLOADS = [
    (f"matmul f32 {N_MATMUL}x{N_MATMUL}", matmul, 1, 1),
    ("add f32 16M", add_large, 5, 2),
    ("exp f32 16M", exp_large, 5, 2),
    ("sum f32 16M", sum_large, 10, 3),
    (f"contiguous() of {N_MATMUL}x{N_MATMUL} transpose", transpose_contiguous, 10, 3),
    ("a + b, 4 elements (per op)", add_tiny, 100_000, 10_000),
    ("(x*x).sum().backward(), 4 elements", backward_tiny, 10_000, 1_000),
]


def settle():
    """Lets the other framework's worker threads go idle: spinning OpenMP or rayon workers
    would otherwise steal the cores from the next measurement."""
    time.sleep(0.5)


def import_time(module, repeats):
    """Median wall seconds of a fresh `python -c "import module"` (interpreter start included)."""
    cmd = [sys.executable, "-c", f"import {module}"]
    subprocess.run(cmd, check=True)  # warm-up: measure a warm file cache, not the first disk read
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


# ----- reporting ---------------------------------------------------------------------------------

def fmt_time(seconds):
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_ratio(ours, theirs):
    return f"{theirs / ours:.2f}" if ours and theirs else "—"


def cpu_model():
    """The CPU's model name and its widest vector extension (virtual CPUs often hide the model)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or "unknown CPU"
    flags = info.get("flags", "").split()
    simd = next((f for f in ("avx512f", "avx2", "sse4_2") if f in flags), "")
    return f"{info.get('model name', 'unknown CPU')}{f' ({simd})' if simd else ''}"


def run_workload(tt, workload, number, repeats):
    """Median seconds per call, or None with the reason when `tt` cannot run it."""
    try:
        fn = workload(tt)
        return median_time(fn, number, repeats), None
    except (AttributeError, TypeError, NotImplementedError, RuntimeError) as e:
        return None, f"{type(e).__name__}: {e}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and shorter loops")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="intra-op threads for both frameworks (default: os.cpu_count())")
    args = parser.parse_args()
    repeats = 5 if args.quick else 11
    import_repeats = 3 if args.quick else 7

    frameworks = [rstorch] + ([torch] if torch else [])
    for tt in frameworks:
        tt.set_num_threads(args.threads)
        tt.manual_seed(0)

    rows, notes = [], []
    for label, workload, number, quick_number in WORKLOADS:
        number = quick_number if args.quick else number
        if workload is backward_tiny and not hasattr(rstorch.Tensor, "backward"):
            notes.append(f"`{label}`: skipped for rstorch, which has no `Tensor.backward` yet.")
            ours = None
        else:
            ours, why = run_workload(rstorch, workload, number, repeats)
            settle()
            if why:
                notes.append(f"`{label}`: rstorch failed ({why}).")
        theirs = None
        if torch:
            theirs, why = run_workload(torch, workload, number, repeats)
            settle()
            if why:
                notes.append(f"`{label}`: PyTorch failed ({why}).")
        extra = ""
        if workload is matmul:
            flop = 2 * N_MATMUL**3
            gflops = [f"{name} {flop / t / 1e9:.1f}" for name, t in (("rstorch", ours), ("torch", theirs)) if t]
            extra = "GFLOP/s: " + ", ".join(gflops)
        rows.append((label, ours, theirs, extra))
        print(f"  done: {label}", file=sys.stderr, flush=True)

    ours_import = import_time("rstorch", import_repeats)
    theirs_import = import_time("torch", import_repeats) if torch else None
    bare = import_time("sys", import_repeats)  # `sys` is built in: the interpreter's own start-up
    rows.append(("`python -c \"import X\"` (wall)", ours_import, theirs_import,
                 f"bare interpreter start {fmt_time(bare)}"))

    # ----- print ---------------------------------------------------------------------------------
    command = shlex.join([sys.executable] + sys.argv)
    if os.environ.get("PYTHONPATH"):
        command = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} {command}"
    print(f"- Date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"- Machine: {cpu_model()}, {os.cpu_count()} logical cores, {platform.system()} {platform.machine()}")
    print(f"- Python {platform.python_version()}; rstorch {rstorch.__version__}; "
          f"PyTorch {torch.__version__ if torch else 'not installed'}")
    print(f"- Threads: {args.threads}{' for both' if torch else ''} (set_num_threads); "
          f"median of {repeats} timed loops per cell{' (--quick)' if args.quick else ''}")
    print(f"- Command: `{command}`")
    print()
    print("| Workload | rstorch | PyTorch | torch / rstorch | Notes |")
    print("|---|---:|---:|---:|---|")
    for label, ours, theirs, extra in rows:
        print(f"| {label} | {fmt_time(ours)} | {fmt_time(theirs)} | {fmt_ratio(ours, theirs)} | {extra} |")
    print()
    print("Ratio > 1 means rstorch is faster. Times are per call.")
    if not torch:
        print("PyTorch is not importable in this interpreter: rstorch numbers only.")
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
