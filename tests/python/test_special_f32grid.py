"""Float32 accuracy of the Bessel family (J0, J1, Y0, Y1, K0, K1, the scaled K, I0, I1, the scaled I), ndtri,
erfinv, gammaln, digamma, erfcx, log_ndtr, airy_ai and spherical_bessel_j0 over a dense grid
of the whole float32 range (every 4093rd bit pattern of both signs) against PyTorch 2.15's own
float32 results, recorded by tests/record_special_f32grid.py in fixtures/special_f32grid.json:
rstorch's largest error in ulps against float64 references (rstorch's float64 kernels: series,
quadrature, Hankel's expansion and ndtri's Newton iteration, checked against mpmath in test_special*.py) is no larger than
PyTorch's, and within the bound the float32 fits were made for; PyTorch's special values (NaN,
the infinities, the zeros, negative x for Y and K, 0 and 1 for ndtri and erfinv) bit for bit."""
import json
import math
import pathlib
import sys

import numpy as np
import pytest

import rstorch

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import f32grid_common as g  # noqa: E402

FIXTURE = json.loads((TESTS / "fixtures" / "special_f32grid.json").read_text())
NAMES = sorted(FIXTURE["ops"])
# The kernels compute in float64 to about 1e-13 and round once: half an ulp and a little more
# (the margin covers the float64 references' own error next to zeros of J and Y).
BOUND = 0.52
DEFINED_BELOW_ZERO = ("bessel_j", "i0", "i1", "erfinv", "gammaln", "digamma", "erfcx", "log_ndtr", "airy_ai", "spherical")


@pytest.fixture(scope="module")
def grid():
    bits = np.arange(0, 0x7F800000, FIXTURE["meta"]["stride"], dtype=np.uint32)
    pos = bits.view(np.float32)
    return np.concatenate([pos, -pos])


def run(name, x, dtype=np.float32):
    return getattr(rstorch.special, name)(rstorch.from_numpy(np.ascontiguousarray(x, dtype=dtype))).numpy()


@pytest.mark.parametrize("name", NAMES)
def test_max_ulp_not_worse_than_pytorch(name, grid):
    case = FIXTURE["ops"][name]
    err, i = g.max_ulp(run(name, grid), run(name, grid, np.float64))
    assert err <= min(case["torch_max_ulp"], BOUND), f"{name}: {err:.4f} ulp at {float(grid[i])!r} (PyTorch {case['torch_max_ulp']:.4g})"


def same_bits(got, want):
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


@pytest.mark.parametrize("name", NAMES)
def test_special_values_as_pytorch(name):
    xs = np.array([float(s) for s in FIXTURE["specials"]], dtype=np.float32)
    want = [float(s) for s in FIXTURE["ops"][name]["torch_specials"]]
    got = run(name, xs).tolist()
    ref = run(name, xs, np.float64)
    for j, (x, a, w) in enumerate(zip(xs.tolist(), got, want)):
        # Where the function is defined for negative x, only there a finite negative x is compared
        # by its error (Y, K and ndtri are NaN below 0); at ±0 a zero or non-finite result bit for
        # bit (its sign), a finite nonzero one (I0's 1) by its error.
        exact_at_zero = x == 0 and (w == 0 or not math.isfinite(w))
        if not math.isfinite(x) or exact_at_zero or (x < 0 and not name.startswith(DEFINED_BELOW_ZERO)):
            assert same_bits(a, w), f"{name}({x!r}): {a!r}, PyTorch {w!r}"
        else:
            mine, theirs = g.max_ulp([a], ref[j:j + 1])[0], g.max_ulp([w], ref[j:j + 1])[0]
            assert mine <= max(theirs, 0.5), f"{name}({x!r}): {a!r} ({mine:.3g} ulp), PyTorch {w!r} ({theirs:.3g} ulp)"


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("bessel_")])
def test_small_argument_path(name, grid):
    # A tensor whose every |x| is at most 2^24 takes the cheap reduction of J's and Y's phase
    # (the whole grid, with its huge values, takes the exact one): the same bound there.
    x = grid[np.abs(grid) <= 2.0**24]
    err, i = g.max_ulp(run(name, x), run(name, x, np.float64))
    assert err <= BOUND, f"{name}: {err:.4f} ulp at {float(x[i])!r}"
