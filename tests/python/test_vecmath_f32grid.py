"""Float32 accuracy of the exp/log/activation and erf families, asin, acos and atanh over a dense grid
of the whole float32 range (every 1021st bit pattern of both signs, tests/f32grid_common.py) against PyTorch 2.15's own
float32 results on the same grid, recorded by tests/record_vecmath_f32grid.py in
fixtures/vecmath_f32grid.json: rstorch's largest error in ulps (against float64 references) is
never larger than PyTorch's, and the special values (NaN, infinities, signed zeros, subnormals,
the overflow and underflow edges) are PyTorch's, bit for bit."""
import json
import math
import pathlib
import sys

import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import f32grid_common as g  # noqa: E402

FIXTURE = json.loads((TESTS / "fixtures" / "vecmath_f32grid.json").read_text())

OPS = {
    "exp": rstorch.exp, "exp2": rstorch.exp2, "expm1": rstorch.expm1, "log": rstorch.log, "log2": rstorch.log2,
    "log10": rstorch.log10, "log1p": rstorch.log1p, "tanh": rstorch.tanh, "sigmoid": rstorch.sigmoid, "silu": F.silu,
    "softplus": F.softplus, "mish": F.mish, "elu": F.elu, "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=g.CELU_ALPHA), "logsigmoid": F.logsigmoid,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "erf": rstorch.erf, "erfc": rstorch.erfc, "gelu": F.gelu,
    "asin": rstorch.asin, "acos": rstorch.acos, "atanh": rstorch.atanh,
}


@pytest.fixture(scope="module")
def grid():
    return g.grid()


def run(name, x):
    return OPS[name](rstorch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))).numpy()


@pytest.mark.parametrize("name", sorted(OPS))
def test_max_ulp_not_worse_than_pytorch(name, grid):
    case = FIXTURE["ops"][name]
    err, i = g.max_ulp(run(name, grid), g.reference(name, grid))
    assert err <= case["torch_max_ulp"], f"{name}: {err:.4f} ulp at {float(grid[i])!r} (PyTorch {case['torch_max_ulp']:.4f})"


# PyTorch's vectorised float32 gelu gives NaN at +inf (x (1 + erf(x / sqrt 2)) / 2 in float32);
# rstorch gives the exact value, inf (as tests/python/test_vecmath.py's PYTORCH_OVERFLOWS).
EXACT_WHERE_PYTORCH_OVERFLOWS = {("gelu", math.inf)}


def same_bits(got, want):
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


@pytest.mark.parametrize("name", sorted(OPS))
def test_special_values_as_pytorch(name):
    """At NaN, the infinities and the zeros: PyTorch's result, bit for bit. At the finite edges
    (subnormals, the largest floats, overflow and underflow thresholds): no further from the
    float64 reference than PyTorch's result (which flushes some subnormal results to zero)."""
    xs = np.array([float(s) for s in FIXTURE["specials"]], dtype=np.float32)
    want = [float(s) for s in FIXTURE["ops"][name]["torch_specials"]]
    got = run(name, xs).tolist()
    ref = g.reference(name, xs)
    for j, (x, a, w) in enumerate(zip(xs.tolist(), got, want)):
        if (name, x) in EXACT_WHERE_PYTORCH_OVERFLOWS:
            assert a == x
        elif not math.isfinite(x) or x == 0:
            assert same_bits(a, w), f"{name}({x!r}): {a!r}, PyTorch {w!r}"
        else:
            mine, torch_err = g.max_ulp([a], ref[j:j + 1])[0], g.max_ulp([w], ref[j:j + 1])[0]
            assert mine <= max(torch_err, 0.5), f"{name}({x!r}): {a!r} ({mine:.3g} ulp), PyTorch {w!r} ({torch_err:.3g} ulp)"


@pytest.mark.parametrize("name", ["exp", "exp2"])
def test_blocks_without_subnormal_results_take_the_same_values(name):
    """Contiguous float32 exp and exp2 choose per block of elements a kernel without the
    subnormal path where no result is subnormal (`map1_split`): bit for bit the values of the
    full kernel, which a strided view always takes, in blocks with and without such inputs."""
    rng = np.random.default_rng(11)
    low = -104.0 if name == "exp" else -151.0
    x = rng.uniform(-80.0, 80.0, 8192).astype(np.float32)
    # Every third block of 512 gets a subnormal result, a NaN or -inf at a varying place.
    for k, block in enumerate(range(0, 8192, 1536)):
        x[block + (k * 97) % 512] = [low + 2.0, float("nan"), -float("inf")][k % 3]
    x[-1] = low + 10.0
    contiguous = run(name, x)
    base = np.zeros((8192, 2), dtype=np.float32)
    base[:, 0] = x
    strided = OPS[name](rstorch.from_numpy(base)[:, 0]).numpy()
    assert not rstorch.from_numpy(base)[:, 0].is_contiguous()
    np.testing.assert_array_equal(contiguous.view(np.uint32), strided.view(np.uint32))
