"""Every op rstorch has, timed against PyTorch in one process with equal threads (issue 23).

    PYTHONPATH=python /work/torchref/bin/python benches/op_sweep.py [--threads 2] [--sizes 1M 1K] [--cpu-time]
        [--only REGEX] [--float64] [--no-backward] [--repeats 7] [--json out.json]
    python benches/op_sweep.py --merge run1.json run2.json run3.json

Each row is one op at one size: float32 (float64 too with --float64), a contiguous input and a
strided or broadcast one, forward and (for differentiable ops) forward plus backward. The unary
and binary ops come from rstorch's op tables (`_C._unary_ops()`, `_C._binary_ops()`), so ops
declared there join the sweep when they land; the rest are listed below by family. Sizes are
square: 1M is 1024x1024, 1K 32x32.

A cell is the median over `--repeats` timed loops (each about 20 ms long, calibrated per
framework) of the seconds per call; the ratio is PyTorch's time / rstorch's, above 1 when rstorch
is faster. The summary gives the median ratio per size and lists the rows under `--target`
(0.8 by default, issue 23's floor at 1M elements). Without PyTorch only rstorch's times print.
`--merge` times nothing: it reports each row's medians over earlier runs' `--json` files.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import cpu_model, fmt_time, median_time  # noqa: E402

import rstorch  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

SIZES = {"1M": 1024, "1K": 32, "16K": 128, "4M": 2048}
LOOP_SECONDS = 0.02
# Aliases share their op's kernel: timing them again adds rows, not information.
ALIASES = {"negative", "absolute", "fix", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
           "multiply", "arctan2", "not_equal", "less", "less_equal", "greater", "greater_equal"}
# Input ranges where the op is defined and not saturated: (low, high) of the uniform inputs.
DOMAINS = {"acosh": (1.1, 3.0), "log": (0.1, 10.0), "log2": (0.1, 10.0), "log10": (0.1, 10.0),
           "exp": (-3.0, 3.0), "exp2": (-3.0, 3.0), "expm1": (-3.0, 3.0), "sinh": (-3.0, 3.0),
           "cosh": (-3.0, 3.0), "tanh": (-3.0, 3.0), "sigmoid": (-5.0, 5.0), "erf": (-3.0, 3.0),
           "erfc": (-3.0, 3.0), "erfinv": (-0.9, 0.9), "atanh": (-0.9, 0.9), "asin": (-0.9, 0.9),
           "acos": (-0.9, 0.9), "lgamma": (0.1, 10.0), "digamma": (0.1, 10.0), "i0": (-3.0, 3.0),
           "sin": (-6.0, 6.0), "cos": (-6.0, 6.0), "tan": (-1.5, 1.5), "atan": (-5.0, 5.0), "asinh": (-5.0, 5.0)}
DEFAULT_DOMAIN = (-2.0, 2.0)
POSITIVE = {"sqrt", "rsqrt", "log1p", "reciprocal"}
NOT_DIFFERENTIABLE = {"sign", "floor", "ceil", "trunc", "eq", "ne", "lt", "le", "gt", "ge", "floor_divide",
                      "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
                      "remainder", "fmod", "argmax", "argmin", "sort", "topk", "nonzero", "masked_select_idx"}
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor"}
# Table ops bound privately as `_special_X` are PyTorch's `torch.special.X`. Forward only: the four below
# record no node, and igamma/igammac have no derivative for their first operand (in PyTorch neither).
SPECIAL_PREFIX = "_special_"
NOT_DIFFERENTIABLE |= {"_special_scaled_modified_bessel_k0", "_special_scaled_modified_bessel_k1",
                       "_special_spherical_bessel_j0", "_special_airy_ai",
                       "igamma", "igammac"}
DOMAINS.update({"_special_ndtri": (0.05, 0.95), "_special_bessel_y0": (0.1, 5.0), "_special_bessel_y1": (0.1, 5.0),
                "_special_modified_bessel_k0": (0.1, 5.0), "_special_modified_bessel_k1": (0.1, 5.0),
                "_special_scaled_modified_bessel_k0": (0.1, 5.0), "_special_scaled_modified_bessel_k1": (0.1, 5.0)})


def unary_function(tt, name):
    if name.startswith(SPECIAL_PREFIX):
        return getattr(tt.special, name[len(SPECIAL_PREFIX):])
    return getattr(tt, name)


def uniform(tt, side, dtype, low, high, requires_grad=False):
    return (tt.rand(side, side, dtype=dtype) * (high - low) + low).requires_grad_(requires_grad)


# ----- cases ----------------------------------------------------------------------------------
# A case builds, for one framework, size and dtype, the call to time: `build(tt, side, dtype,
# variant, backward)` returns a no-argument function. `variant` is "contig" or "strided"
# (a transposed view for one input; a broadcast row for the second input of a binary op).

class Case:
    def __init__(self, family, name, build, differentiable=True, variants=("contig", "strided")):
        self.family, self.name, self.build = family, name, build
        self.differentiable, self.variants = differentiable, variants


def timed_step(forward, leaves, backward):
    """The function to time: the forward call alone, or forward then backward of its result
    with a ones gradient (the leaves' grads cleared each time so that no step accumulates)."""
    if not backward:
        return forward

    def step():
        out = forward()
        out.backward(grad)
        for leaf in leaves:
            leaf.grad = None

    grad = forward().detach() * 0 + 1
    for leaf in leaves:
        leaf.grad = None
    return step


def unary_case(name):
    low, high = (0.1, 2.0) if name in POSITIVE else DOMAINS.get(name, DEFAULT_DOMAIN)

    def build(tt, side, dtype, variant, backward):
        x = uniform(tt, side, dtype, low, high, backward)
        fn = unary_function(tt, name)
        if variant == "strided":
            return timed_step(lambda: fn(x.t()), [x], backward)
        return timed_step(lambda: fn(x), [x], backward)

    return Case("unary", name, build, differentiable=name not in NOT_DIFFERENTIABLE)


def binary_case(name, fn_of=None):
    """`fn(x, y)` of two same-shaped inputs, or of `x` and a broadcast row `y` (1, side)."""
    def build(tt, side, dtype, variant, backward):
        rows = 1 if variant == "strided" else side
        if name in INTEGER_ONLY:
            x = tt.randint(0, 1000, (side, side), dtype=tt.int32)
            y = tt.randint(0, 1000, (rows, side), dtype=tt.int32)
        else:
            x = uniform(tt, side, dtype, 0.5, 2.0, backward)
            y = (tt.rand(rows, side, dtype=dtype) * 1.5 + 0.5).requires_grad_(backward)
        fn = fn_of(tt) if fn_of else getattr(tt, name)
        return timed_step(lambda: fn(x, y), [x, y], backward)

    return Case("binary", name, build, differentiable=name not in NOT_DIFFERENTIABLE)


def method_case(family, name, call, differentiable=True, low=-2.0, high=2.0, variants=("contig", "strided")):
    """An op of one input given as `call(tt, x)`; strided inputs are transposed views."""
    def build(tt, side, dtype, variant, backward):
        x = uniform(tt, side, dtype, low, high, backward)
        if variant == "strided":
            return timed_step(lambda: call(tt, x.t()), [x], backward)
        return timed_step(lambda: call(tt, x), [x], backward)

    return Case(family, name, build, differentiable, variants)


def index_case(name, call, differentiable=True):
    """An op that reads an index tensor: `call(tt, x, index_rows, index_full, mask)`."""
    def build(tt, side, dtype, variant, backward):
        x = uniform(tt, side, dtype, -2.0, 2.0, backward)
        tt.manual_seed(1)  # the same indices in both frameworks' runs (each draws its own)
        rows = tt.randint(0, side, (side,))
        full = tt.randint(0, side, (side, side))
        mask = tt.rand(side, side) > 0.5
        if variant == "strided":
            return timed_step(lambda: call(tt, x.t(), rows, full, mask), [x], backward)
        return timed_step(lambda: call(tt, x, rows, full, mask), [x], backward)

    return Case("index", name, build, differentiable)


def two_input_case(family, name, call, differentiable=True):
    """An op of two same-shaped inputs given as `call(tt, x, y)` (cat, stack, where...)."""
    def build(tt, side, dtype, variant, backward):
        x, y = uniform(tt, side, dtype, -2.0, 2.0, backward), uniform(tt, side, dtype, -2.0, 2.0, backward)
        if variant == "strided":
            return timed_step(lambda: call(tt, x.t(), y.t()), [x, y], backward)
        return timed_step(lambda: call(tt, x, y), [x, y], backward)

    return Case(family, name, build, differentiable)


def all_cases():
    unary_names, _ = rstorch._C._unary_ops()
    cases = [unary_case(n) for n in unary_names if n not in ALIASES]
    cases += [binary_case(n) for n in rstorch._C._binary_ops() if n not in ALIASES]
    cases += [binary_case(n, lambda tt, n=n: getattr(tt, n)) for n in ("add", "sub", "div", "pow", "hypot", "copysign")]
    F = "pointwise"
    for name, call in [
        ("gelu", lambda tt, x: tt.nn.functional.gelu(x)),
        ("gelu(tanh)", lambda tt, x: tt.nn.functional.gelu(x, approximate="tanh")),
        ("silu", lambda tt, x: tt.nn.functional.silu(x)),
        ("mish", lambda tt, x: tt.nn.functional.mish(x)),
        ("softplus", lambda tt, x: tt.nn.functional.softplus(x)),
        ("elu", lambda tt, x: tt.nn.functional.elu(x)),
        ("selu", lambda tt, x: tt.nn.functional.selu(x)),
        ("celu", lambda tt, x: tt.nn.functional.celu(x)),
        ("leaky_relu", lambda tt, x: tt.nn.functional.leaky_relu(x)),
        ("hardtanh", lambda tt, x: tt.nn.functional.hardtanh(x)),
        ("hardswish", lambda tt, x: tt.nn.functional.hardswish(x)),
        ("hardsigmoid", lambda tt, x: tt.nn.functional.hardsigmoid(x)),
        ("logsigmoid", lambda tt, x: tt.nn.functional.logsigmoid(x)),
        ("softsign", lambda tt, x: tt.nn.functional.softsign(x)),
        ("tanhshrink", lambda tt, x: tt.nn.functional.tanhshrink(x)),
        ("relu6", lambda tt, x: tt.nn.functional.relu6(x)),
        ("softmax(dim=1)", lambda tt, x: tt.softmax(x, dim=1)),
        ("softmax(dim=0)", lambda tt, x: tt.softmax(x, dim=0)),
        ("log_softmax(dim=1)", lambda tt, x: tt.log_softmax(x, dim=1)),
        ("layer_norm", lambda tt, x: tt.nn.functional.layer_norm(x, x.shape[-1:])),
        ("dropout(train)", lambda tt, x: tt.nn.functional.dropout(x, 0.5, True)),
        ("clamp", lambda tt, x: x.clamp(-0.5, 0.5)),
        ("pow(x, 2.5)", lambda tt, x: (x.abs() + 0.1).pow(2.5)),
        ("x * 2.0", lambda tt, x: x * 2.0),
        ("x + 1.0", lambda tt, x: x + 1.0),
    ]:
        cases.append(method_case(F, name, call))
    for name, call, diff in [
        ("sum", lambda tt, x: x.sum(), True),
        ("sum(dim=0)", lambda tt, x: x.sum(dim=0), True),
        ("sum(dim=1)", lambda tt, x: x.sum(dim=1), True),
        ("mean(dim=1)", lambda tt, x: x.mean(dim=1), True),
        ("prod(dim=1)", lambda tt, x: x.prod(dim=1), True),
        ("var(dim=1)", lambda tt, x: x.var(dim=1), True),
        ("std", lambda tt, x: x.std(), True),
        ("norm", lambda tt, x: x.norm(), True),
        ("logsumexp(dim=1)", lambda tt, x: x.logsumexp(dim=1), True),
        ("amax(dim=1)", lambda tt, x: x.amax(dim=1), True),
        ("max(dim=1)", lambda tt, x: x.max(dim=1)[0], True),
        ("min(dim=0)", lambda tt, x: x.min(dim=0)[0], True),
        ("max", lambda tt, x: x.max(), True),
        ("argmax(dim=1)", lambda tt, x: x.argmax(dim=1), False),
        ("all(x > 0)", lambda tt, x: (x > -5).all(), False),
        ("cumsum(dim=1)", lambda tt, x: x.cumsum(dim=1), True),
        ("cumsum(dim=0)", lambda tt, x: x.cumsum(dim=0), True),
        ("cumprod(dim=1)", lambda tt, x: x.cumprod(dim=1), True),
        ("sort(dim=1)", lambda tt, x: x.sort(dim=1)[0], True),
        ("topk(8, dim=1)", lambda tt, x: x.topk(8, dim=1)[0], True),
    ]:
        cases.append(method_case("reduction", name, call, diff))
    for name, call, diff in [
        ("contiguous()", lambda tt, x: x.contiguous() if not x.is_contiguous() else x.clone(), True),
        ("flip(0)", lambda tt, x: x.flip(0), True),
        ("roll(3, 1)", lambda tt, x: x.roll(3, 1), True),
        ("repeat(2, 1)", lambda tt, x: x.repeat(2, 1), True),
        ("tril", lambda tt, x: x.tril(), True),
        ("narrow+clone", lambda tt, x: x.narrow(1, 1, x.shape[1] - 2).clone(), True),
        ("reshape(-1) of view", lambda tt, x: x.reshape(-1), True),
        ("to(float64)", lambda tt, x: x.to(tt.float64), False),
    ]:
        cases.append(method_case("shape", name, call, diff))
    for name, call in [
        ("cat(dim=0)", lambda tt, x, y: tt.cat([x, y], dim=0)),
        ("cat(dim=1)", lambda tt, x, y: tt.cat([x, y], dim=1)),
        ("stack", lambda tt, x, y: tt.stack([x, y])),
        ("where", lambda tt, x, y: tt.where(x > 0, x, y)),
        ("lerp", lambda tt, x, y: tt.lerp(x, y, 0.3)),
        ("addcmul", lambda tt, x, y: tt.addcmul(x, x, y, value=0.5)),
        ("mse_loss", lambda tt, x, y: tt.nn.functional.mse_loss(x, y)),
        ("smooth_l1_loss", lambda tt, x, y: tt.nn.functional.smooth_l1_loss(x, y)),
        ("bce_with_logits", lambda tt, x, y: tt.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid())),
    ]:
        cases.append(two_input_case("binary", name, call))
    for name, call, diff in [
        ("index_select(0)", lambda tt, x, r, f, m: x.index_select(0, r), True),
        ("x[rows]", lambda tt, x, r, f, m: x[r], True),
        ("gather(1)", lambda tt, x, r, f, m: x.gather(1, f), True),
        ("scatter(1)", lambda tt, x, r, f, m: x.scatter(1, f, x), True),
        ("scatter_add(1)", lambda tt, x, r, f, m: x.scatter_add(1, f, x), True),
        ("index_add(0)", lambda tt, x, r, f, m: x.index_add(0, r, x), True),
        ("embedding", lambda tt, x, r, f, m: tt.nn.functional.embedding(r, x), True),
        ("masked_fill", lambda tt, x, r, f, m: x.masked_fill(m, 0.0), True),
        ("masked_select", lambda tt, x, r, f, m: x.masked_select(m), True),
        ("x[mask]", lambda tt, x, r, f, m: x[m], True),
        ("nonzero", lambda tt, x, r, f, m: m.nonzero(), False),
        ("take", lambda tt, x, r, f, m: x.take(f), True),
        ("cross_entropy", lambda tt, x, r, f, m: tt.nn.functional.cross_entropy(x, r), True),
        ("nll_loss", lambda tt, x, r, f, m: tt.nn.functional.nll_loss(x, r), True),
        ("one_hot", lambda tt, x, r, f, m: tt.nn.functional.one_hot(r, x.shape[1]), False),
    ]:
        cases.append(index_case(name, call, diff))
    return cases


# ----- running ------------------------------------------------------------------------------

def calibrated_time(fn, repeats, clock):
    """Median seconds per call over `repeats` loops of about LOOP_SECONDS each."""
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, min(100_000, int(LOOP_SECONDS / once)))
    return median_time(fn, number, repeats, clock)


def measure(tt, case, side, dtype_name, variant, backward, repeats, clock):
    try:
        tt.manual_seed(0)
        fn = case.build(tt, side, getattr(tt, dtype_name), variant, backward)
        return calibrated_time(fn, repeats, clock), None
    except Exception as e:  # noqa: BLE001 - a case one framework lacks is reported, not fatal
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--sizes", nargs="+", default=["1M", "1K"], choices=sorted(SIZES))
    parser.add_argument("--only", help="a regular expression over `family/name`")
    parser.add_argument("--float64", action="store_true", help="also float64 (contiguous only)")
    parser.add_argument("--no-backward", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--target", type=float, default=0.8)
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU time (use with --threads 1 on a loaded host)")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="time nothing: each row's medians over these runs' --json files")
    args = parser.parse_args()
    if args.merge:
        rows = merged_runs(args.merge)
        args.sizes = [size for size in SIZES if any(r["size"] == size for r in rows)]
        report(rows, args)
        return 0
    clock = time.process_time if args.cpu_time else time.perf_counter

    frameworks = [rstorch] + ([torch] if torch else [])
    for tt in frameworks:
        tt.set_num_threads(args.threads)
    pattern = re.compile(args.only) if args.only else None
    rows = []
    for case in all_cases():
        if pattern and not pattern.search(f"{case.family}/{case.name}"):
            continue
        passes = [False] + ([True] if case.differentiable and not args.no_backward else [])
        dtypes = ["float32"] + (["float64"] if args.float64 else [])
        for size in args.sizes:
            for dtype_name in dtypes:
                variants = case.variants if dtype_name == "float32" else ("contig",)
                for variant in variants:
                    for backward in passes:
                        ours, our_err = measure(rstorch, case, SIZES[size], dtype_name, variant, backward, args.repeats, clock)
                        settle_short()
                        theirs, their_err = (measure(torch, case, SIZES[size], dtype_name, variant, backward, args.repeats, clock)
                                             if torch else (None, None))
                        settle_short()
                        row = dict(family=case.family, op=case.name, size=size, dtype=dtype_name, variant=variant,
                                   pass_="fwd+bwd" if backward else "fwd", rstorch_s=ours, torch_s=theirs,
                                   ratio=(theirs / ours) if ours and theirs else None,
                                   error=our_err or "", torch_error=their_err or "")
                        rows.append(row)
                        print(f"  {case.family}/{case.name} {size} {dtype_name} {variant} {row['pass_']}: "
                              f"{fmt_time(ours)} vs {fmt_time(theirs)}"
                              + (f"  ratio {row['ratio']:.2f}" if row["ratio"] else f"  {our_err or their_err}"),
                              file=sys.stderr, flush=True)
    report(rows, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


def merged_runs(paths):
    """Each row's median times and median ratio over the runs in `paths` (rows measured in every
    run with both frameworks; the sweep's rows move by up to 2x between runs on a shared host)."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    key = lambda r: (r["family"], r["op"], r["size"], r["dtype"], r["variant"], r["pass_"])  # noqa: E731
    seen = {}
    for run in runs:
        for r in run:
            seen.setdefault(key(r), []).append(r)
    rows = []
    for same in seen.values():
        if len(same) != len(runs) or not all(r["ratio"] for r in same):
            continue
        rows.append(dict(same[0], rstorch_s=statistics.median(r["rstorch_s"] for r in same),
                         torch_s=statistics.median(r["torch_s"] for r in same),
                         ratio=statistics.median(r["ratio"] for r in same)))
    return rows


def settle_short():
    # Shorter than compare_torch's settle: hundreds of rows; the workers' spin ends in ~0.1 s.

    time.sleep(0.1)


def report(rows, args):
    command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
    print(f"- Date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"- Machine: {cpu_model()}, {os.cpu_count()} logical cores, {platform.system()} {platform.machine()}")
    if not args.merge:
        print(f"- rstorch {rstorch.__version__}; PyTorch {torch.__version__ if torch else 'not installed'}; "
              f"threads {args.threads}, {'CPU' if args.cpu_time else 'wall'} time; "
              f"median of {args.repeats} loops of ~{LOOP_SECONDS * 1e3:.0f} ms")
    print(f"- Command: `{command}`")
    if args.merge:
        print(f"- Each row: the median over {len(args.merge)} runs (its ratio the median of theirs)")
    print()
    print("| op | size | dtype | input | pass | rstorch | PyTorch | PyTorch / rstorch |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else (r["error"] or r["torch_error"] or "—")
        print(f"| {r['family']}/{r['op']} | {r['size']} | {r['dtype']} | {r['variant']} | {r['pass_']} | "
              f"{fmt_time(r['rstorch_s'])} | {fmt_time(r['torch_s'])} | {ratio} |")
    print()
    for size in args.sizes:
        ratios = [r["ratio"] for r in rows if r["size"] == size and r["ratio"]]
        if not ratios:
            continue
        under = sorted((r for r in rows if r["size"] == size and r["ratio"] and r["ratio"] < args.target),
                       key=lambda r: r["ratio"])
        geo = math.exp(statistics.fmean(math.log(x) for x in ratios))
        print(f"- {size}: {len(ratios)} rows, median ratio {statistics.median(ratios):.2f}, geometric mean {geo:.2f}, "
              f"{len(under)} under {args.target}")
        if under:
            print("  under target: " + ", ".join(
                f"{r['op']} {r['dtype']} {r['variant']} {r['pass_']} {r['ratio']:.2f}" for r in under))
    failed = [r for r in rows if r["error"]]
    if failed:
        print(f"- rstorch failed {len(failed)} rows: " + "; ".join(f"{r['op']} {r['variant']} {r['pass_']}: {r['error']}"
                                                            for r in failed[:40]))


if __name__ == "__main__":
    sys.exit(main())
