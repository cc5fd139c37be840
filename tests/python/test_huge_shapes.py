"""Huge shapes from tiny inputs, and allocations the OS refuses: PyTorch's error, never an abort.

The expected exception class and message are what PyTorch 2.15 raises for the same call. Every
case runs in one child process whose address space is capped (RLIMIT_AS) 2 GiB above what it uses
after import, under a timeout: a regression (an abort, a segfault, a hang, or an allocation that
succeeds) then fails the cases it reached without taking the test run or the machine with it, and
the requests below either exceed any machine (>= 2**40 bytes) or exceed the cap, so nothing is
ever really allocated.
"""
import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")

HEADROOM = 2 << 30
ALLOC = "DefaultCPUAllocator: can't allocate memory: you tried to allocate"


def overflow(sizes):
    return f"Storage size calculation overflowed with sizes={sizes}"


def alloc(nbytes=None):
    return ALLOC if nbytes is None else f"{ALLOC} {nbytes} bytes."


# name: (expression, expected exception class or "ok", message fragment or the result's shape)
CASES = {}

# Reductions over the empty dim of a huge tensor: the output alone is 2**40 elements.
for op in ["sum", "prod", "mean", "var", "std", "logsumexp"]:
    CASES[f"empty_dim_{op}"] = (f"Z.{op}(0)", "RuntimeError", alloc(4398046511104))
CASES["empty_dim_sum_int"] = ("Z.long().sum(0)", "RuntimeError", alloc(8796093022208))
CASES["empty_dim_norm"] = ("torch.norm(Z, dim=0)", "RuntimeError", alloc(4398046511104))
CASES["empty_dim_any"] = ("Z.any(0)", "RuntimeError", alloc(1099511627776))
CASES["empty_dim_all"] = ("Z.all(0)", "RuntimeError", alloc(1099511627776))
# These refuse an empty reduction dim before sizing anything, as in PyTorch.
for op in ["amax", "amin", "max", "min", "argmax", "argmin", "median"]:
    CASES[f"empty_dim_{op}"] = (f"Z.{op}(0)", "IndexError", f"{op}(): Expected reduction dim 0 to have non-zero size.")
# Scans keep the (empty) shape: nothing to allocate.
CASES["empty_dim_cumsum"] = ("Z.cumsum(0)", "ok", [0, 2**40])
CASES["empty_dim_cumprod"] = ("Z.cumprod(1)", "ok", [0, 2**40])

# One element expanded to 2**40: every op that writes a new tensor of that size.
for name, expr in {
    "sort": "E.sort()", "argsort": "E.argsort()", "cumsum": "E.cumsum(0)",
    "cumprod": "E.cumprod(0)", "contiguous": "E.contiguous()", "clone": "E.clone()", "add": "E + 1",
    "where": "torch.where(E > 0, E, E)", "flip": "E.flip(0)", "roll": "E.roll(1)", "cat": "torch.cat([E, E])",
    "stack": "torch.stack([E, E])", "zeros_like": "torch.zeros_like(E)",
    "index_select": "E.index_select(0, torch.zeros(1, dtype=torch.long).expand(2**40))",
    "softmax": "E.softmax(0)", "matmul": "torch.ones(2**22, 1) @ torch.ones(1, 2**22)",
    "broadcast_mul": "torch.ones(2**22, 1) * torch.ones(1, 2**22)",
    "unfold": "torch.ones(2**20).unfold(0, 2**19, 1).contiguous()",
    "tril": "torch.ones(1, 1).expand(2**21, 2**21).tril()",
    "one_hot": "F.one_hot(torch.tensor([0]), 2**45)",
    "embedding": "F.embedding(torch.zeros(1, dtype=torch.long).expand(2**40), torch.ones(2, 4))",
    "pad_constant": "F.pad(torch.ones(1, 1, 2), (2**40, 2))",
    "pad_replicate": "F.pad(torch.ones(1, 1, 2), (2**44, 0), mode='replicate')",
}.items():
    CASES[f"expanded_{name}"] = (expr, "RuntimeError", alloc())
# PyTorch's message here is "std::bad_alloc".
CASES["expanded_topk"] = ("E.topk(3)", "RuntimeError", "")

# Factories of 2**45 elements (far past any machine) and of shapes whose bytes overflow.
for name, (expr, nbytes) in {
    "empty": ("torch.empty(2**45)", 140737488355328), "zeros": ("torch.zeros(2**45)", 140737488355328),
    "ones": ("torch.ones(2**45)", 140737488355328), "full": ("torch.full((2**45,), 1.5)", 140737488355328),
    "arange": ("torch.arange(2**45)", 281474976710656), "arange_float": ("torch.arange(0, 2**45, 1.0)", 140737488355328),
    "linspace": ("torch.linspace(0, 1, 2**45)", 140737488355328), "randn": ("torch.randn(2**45)", 140737488355328),
    "rand": ("torch.rand(2**45)", 140737488355328), "randint": ("torch.randint(0, 5, (2**45,))", 281474976710656),
    "randperm": ("torch.randperm(2**45)", 281474976710656), "eye": ("torch.eye(2**23)", 281474976710656),
    "repeat": ("torch.ones(2).repeat(2**44)", 140737488355328),
    "new_zeros": ("torch.ones(2).new_zeros(2**45)", 140737488355328),
    "new_ones": ("torch.ones(2).new_ones(2**45)", 140737488355328),
    "new_full": ("torch.ones(2).new_full((2**45,), 2.0)", 140737488355328),
    "new_empty": ("torch.ones(2).new_empty(2**45)", 140737488355328),
}.items():
    CASES[f"factory_{name}"] = (expr, "RuntimeError", alloc(nbytes))
CASES["factory_overflow_elements"] = ("torch.zeros(2**40, 2**30)", "RuntimeError", overflow([2**40, 2**30]))
CASES["factory_overflow_bytes"] = ("torch.zeros(2**62)", "RuntimeError", overflow([2**62]))
CASES["factory_overflow_bytes_int64"] = ("torch.empty(2**61, dtype=torch.int64)", "RuntimeError", overflow([2**61]))

# chunk / split: PyTorch computes the piece size in wrapping 64-bit arithmetic.
CASES["chunk_near_2_63"] = ("torch.ones(3).chunk(2**63 - 1)", "RuntimeError",
                            "split expects split_size be non-negative, but got split_size=-1")
CASES["chunk_2_63_minus_2"] = ("torch.ones(3).chunk(2**63 - 2)", "RuntimeError",
                               "split expects split_size be non-negative, but got split_size=-1")
CASES["chunk_2_63_minus_3"] = ("torch.ones(3).chunk(2**63 - 3)", "ok", [[1], [1], [1]])
CASES["chunk_2_62"] = ("torch.ones(3).chunk(2**62)", "ok", [[1], [1], [1]])
CASES["chunk_empty_dim_many"] = ("torch.ones(0).chunk(2**40)", "RuntimeError", "")
CASES["chunk_empty_dim_few"] = ("torch.ones(0).chunk(3)", "ok", [[0], [0], [0]])
CASES["split_negative"] = ("torch.ones(3).split(-1)", "RuntimeError",
                           "split expects split_size be non-negative, but got split_size=-1")
CASES["split_huge"] = ("torch.ones(3).split(2**63 - 1)", "ok", [[3]])

# NumPy refuses arrays whose non-zero dims overflow, even empty ones.
CASES["numpy_empty_too_big"] = ("torch.zeros(0, 2**62).numpy()", "ValueError",
                                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
CASES["numpy_empty_too_big_2_61"] = ("torch.zeros(0, 2**61).numpy()", "ValueError", "array is too big")
CASES["numpy_empty_fits"] = ("torch.zeros(0, 2**60).numpy()", "ok", [0, 2**60])
CASES["tolist_empty_huge"] = ("torch.zeros(0, 2**62).tolist()", "ok", None)
# A leading dim of 2**40 over an empty tensor: one list slot or one view per index is refused,
# not looped over until memory runs out (PyTorch: MemoryError, and std::bad_alloc for the views).
ZT = "torch.zeros(2**40, 0)"
CASES["tolist_empty_long_dim"] = (f"{ZT}.tolist()", "MemoryError", "")
CASES["unbind_empty_long_dim"] = (f"{ZT}.unbind(0)", "RuntimeError", "")
CASES["iter_empty_long_dim"] = (f"list({ZT})", "RuntimeError", "")
# Ops with nothing to compute keep the empty shape, however long its dims.
CASES["flip_empty_long_dim"] = (f"{ZT}.flip(0)", "ok", [2**40, 0])
CASES["tril_empty_long_dim"] = (f"{ZT}.tril()", "ok", [2**40, 0])
CASES["triu_empty_long_dim"] = (f"{ZT}.t().triu(1)", "ok", [0, 2**40])

# interpolate and adaptive pooling: no per-element Python work before the output is sized.
for name, expr in {
    "nearest_size": "F.interpolate(torch.ones(1, 1, 2), size=2**40)",
    "nearest_size_2_31": "F.interpolate(torch.ones(1, 1, 2), size=2**31 - 1)",
    "linear_size_2_31": "F.interpolate(torch.ones(1, 1, 2), size=2**31 - 1, mode='linear')",
    "nearest_scale_1d": "F.interpolate(torch.ones(1, 1, 2), scale_factor=1e9)",
    "linear_scale_1d": "F.interpolate(torch.ones(1, 1, 2), scale_factor=1e9, mode='linear')",
    "adaptive_pool_2_31": "F.adaptive_avg_pool2d(torch.ones(1, 1, 2, 2), (2**31 - 1, 2))",
    "adaptive_pool1d": "F.adaptive_avg_pool1d(torch.ones(1, 1, 2), 2**40)",
    "avg_pool1d_expanded": "F.avg_pool1d(torch.ones(1, 1, 1).expand(1, 1, 2**40), 2)",
    "avg_pool2d_expanded": "F.avg_pool2d(torch.ones(1, 1, 1, 1).expand(1, 1, 2**20, 2**21), 2)",
}.items():
    CASES[f"interpolate_{name}"] = (expr, "RuntimeError", alloc())
for name, (expr, sizes) in {
    "nearest_scale_2d": ("F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=1e9)", [1, 1, 2 * 10**9, 2 * 10**9]),
    "bilinear_scale_2d": ("F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=1e9, mode='bilinear')",
                          [1, 1, 2 * 10**9, 2 * 10**9]),
    "nearest_scale_1e18": ("F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=1e18)", [1, 1, 2 * 10**18, 2 * 10**18]),
    "bilinear_size": ("F.interpolate(torch.ones(1, 1, 2, 2), size=(2**31 - 1, 2**31 - 1), mode='bilinear')",
                      [1, 1, 2**31 - 1, 2**31 - 1]),
    "adaptive_pool_overflow": ("F.adaptive_avg_pool2d(torch.ones(1, 1, 2, 2), (2**31 - 1, 2**31 - 1))",
                               [1, 1, 2**31 - 1, 2**31 - 1]),
}.items():
    CASES[f"interpolate_{name}"] = (expr, "RuntimeError", overflow(sizes))

# Sizes a machine could hold but the capped process cannot: the OS refuses, and the refusal is
# the allocator's error (Rust's global allocator would abort the process).
CASES["refused_empty_8gb"] = ("torch.empty(2**31)", "RuntimeError", alloc(8589934592))
CASES["refused_reduction_output"] = ("torch.ones(1, 1).expand(3 * 2**28, 4).sum(1)", "RuntimeError", alloc(3221225472))
CASES["refused_cumsum"] = ("torch.ones(1).expand(2**30).cumsum(0)", "RuntimeError", alloc(4294967296))
CASES["refused_sort"] = ("torch.ones(1).expand(2**29).sort()", "RuntimeError", alloc())
CASES["refused_matmul"] = ("torch.ones(2**15, 1) @ torch.ones(1, 2**15)", "RuntimeError", alloc(4294967296))
CASES["refused_copy"] = ("torch.ones(1).expand(2**30).contiguous()", "RuntimeError", alloc(4294967296))
CASES["refused_interpolate"] = ("F.interpolate(torch.ones(1, 1, 2), size=2**30)", "RuntimeError", alloc())
# Work that fits the cap still runs after all those failures.
CASES["fits_after_failures"] = ("torch.ones(2**20).sum()", "ok", [])

CHILD = textwrap.dedent("""
    import json, resource, sys
    import rstorch as torch
    import rstorch.nn.functional as F

    # Start the kernel threads before capping the address space: their stacks are not the subject.
    (torch.ones(256, 256) @ torch.ones(256, 256)).sum()
    torch.ones(1 << 20).exp().sum()
    vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
    cap = vm + int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    Z = torch.zeros(0, 2**40)
    E = torch.ones(1).expand(2**40)

    def describe(r):
        if isinstance(r, (tuple, list)):
            return [describe(x) for x in r]
        return list(getattr(r, "shape", ())) if hasattr(r, "shape") else None

    for name, expr in json.loads(sys.argv[1]).items():
        print(json.dumps({"start": name}), flush=True)
        try:
            result = {"name": name, "ok": describe(eval(expr))}
        except BaseException as e:
            result = {"name": name, "error": type(e).__name__, "message": str(e)}
        print(json.dumps(result), flush=True)
""")


@pytest.fixture(scope="module")
def outcomes():
    cases = {name: expr for name, (expr, _, _) in CASES.items()}
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(cases), str(HEADROOM)],
                              check=False, capture_output=True, text=True, timeout=120)
        out, ended = proc.stdout, f"exit status {proc.returncode}: {proc.stderr[-2000:]}"
    except subprocess.TimeoutExpired as e:
        out, ended = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
    results, last = {}, None
    for line in out.splitlines():
        record = json.loads(line)
        if "start" in record:
            last = record["start"]
        else:
            results[record["name"]] = record
    return results, last, ended


@pytest.mark.parametrize("name", list(CASES))
def test_huge_shape(outcomes, name):
    results, last, ended = outcomes
    expr, kind, expected = CASES[name]
    if name not in results:
        pytest.fail(f"{expr}: no result; the child process died ({ended}) while running case {last!r}")
    got = results[name]
    if kind == "ok":
        assert "ok" in got, f"{expr} raised {got.get('error')}: {got.get('message')}"
        if expected is not None:
            assert got["ok"] == expected
    else:
        assert got.get("error") == kind, f"{expr}: expected {kind}, got {got}"
        assert expected in got["message"], f"{expr}: {got['message']!r} lacks {expected!r}"
