"""The one-pass float kernels of src/cpu/binary_math.rs. fmod, remainder and floor_divide of
floats (computed by an exact truncated quotient in vector lanes, the C library only where a
result holds NaN), float32 pow (exp(y log|x|) in float64 lanes), hypot and copysign: fmod is numpy's (C's) bit for bit on a dense grid, all three equal the C-library path
(forced by a NaN in the operands), and pow's largest float32 error on the grid of
tests/pow_grid_common.py is no larger than PyTorch 2.15's (fixtures/pow_f32grid.json, recorded by
tests/record_pow_f32grid.py), its special values PyTorch's bit for bit; float32 hypot is the
float64 result correctly rounded (C's hypot's special values), copysign reads every sign bit."""
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
import pow_grid_common as p  # noqa: E402

FIXTURE = json.loads((TESTS / "fixtures" / "pow_f32grid.json").read_text())
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.5, -2.5, 3.0, -3.0, 0.1, -0.1, 1e-30, -1e-30,
            1e30, -1e30, 7.0, 1e-45, 3.4e38, 16777216.0, -16777217.0]


def operands(dtype):
    """Special pairs, then dividends over every binade against divisors of nearby magnitude,
    whole multiples of the divisor and their neighbours, and divisors far smaller (huge
    quotients, where the C library takes over)."""
    s = np.array(SPECIALS, dtype=dtype)
    x = g.grid()[::5].astype(dtype)
    rng = np.random.default_rng(0)
    shift = np.exp2(rng.integers(-30, 30, x.size)).astype(dtype)
    k = rng.integers(0, 1 << 20, x.size).astype(dtype)
    with np.errstate(over="ignore"):
        b = (x * shift * rng.choice([-1.0, 1.0], x.size).astype(dtype)).astype(dtype)
        m = (b * k).astype(dtype)
    up, down = np.nextafter(m, np.array(np.inf, dtype)), np.nextafter(m, np.array(-np.inf, dtype))
    a = np.concatenate([np.repeat(s, s.size), x, m, up, down])
    d = np.concatenate([np.tile(s, s.size), b, b, b, b])
    return a, d


def same_bits(got, want):
    u = np.uint32 if got.dtype == np.float32 else np.uint64
    return (got.view(u) == want.view(u)) | (np.isnan(got) & np.isnan(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fmod_is_c_bit_for_bit(dtype):
    a, b = operands(dtype)
    got = rstorch.fmod(rstorch.from_numpy(a), rstorch.from_numpy(b)).numpy()
    with np.errstate(all="ignore"):
        want = np.fmod(a, b)
    bad = ~same_bits(got, want)
    assert not bad.any(), list(zip(a[bad][:5], b[bad][:5], got[bad][:5], want[bad][:5]))


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_path_equals_c_library_path(name, dtype):
    a, b = operands(dtype)
    f = getattr(rstorch, name)
    quick = f(rstorch.from_numpy(a), rstorch.from_numpy(b)).numpy()
    # One NaN operand sends the whole tensor through the C library's fmod.
    na, nb = np.append(a, dtype(math.nan)), np.append(b, dtype(1.0))
    exact = f(rstorch.from_numpy(na), rstorch.from_numpy(nb)).numpy()[:-1]
    bad = ~same_bits(quick, exact)
    assert not bad.any(), list(zip(a[bad][:5], b[bad][:5], quick[bad][:5], exact[bad][:5]))
    # A strided and a broadcast divisor take the same kernels.
    t = rstorch.from_numpy(np.stack([a, a])).t()
    got = f(t, rstorch.from_numpy(b).unsqueeze(1)).numpy()
    assert same_bits(got[:, 0], exact).all() and same_bits(got[:, 1], exact).all()


def test_pow_tensor_not_worse_than_pytorch():
    x = p.bases()
    y = p.exponents(x.size)
    got = rstorch.pow(rstorch.from_numpy(x), rstorch.from_numpy(y)).numpy()
    err, i = g.max_ulp(got, p.reference(x, y))
    limit = FIXTURE["cases"]["tensor"]["torch_max_ulp"]
    assert err <= limit, f"{err:.4f} ulp at pow({float(x[i])!r}, {float(y[i])!r}) (PyTorch {limit:.4f})"


@pytest.mark.parametrize("e", p.SCALAR_EXPONENTS)
def test_pow_number_not_worse_than_pytorch(e):
    x = p.bases()
    got = (rstorch.from_numpy(x) ** e).numpy()
    err, i = g.max_ulp(got, p.reference(x, x * 0 + np.float32(e)))
    limit = FIXTURE["cases"][repr(e)]["torch_max_ulp"]
    assert err <= limit, f"{err:.4f} ulp at {float(x[i])!r} ** {e} (PyTorch {limit:.4f})"


def test_pow_special_values_as_pytorch():
    """Where an operand is special (zero, infinite, NaN, a base of ±1) or the result is (NaN,
    infinite, zero): PyTorch's result bit for bit. Elsewhere among these pairs the result is the
    float64 result correctly rounded (PyTorch's is a unit off at max ** 0.5, 0.99999994 ** -1)."""
    sx, sy = p.special_pairs()
    got = rstorch.pow(rstorch.from_numpy(sx), rstorch.from_numpy(sy)).numpy()
    want = np.array([float(v) for v in FIXTURE["torch_specials"]], dtype=np.float32)
    special = ~np.isfinite(want) | (want == 0) | ~np.isfinite(sx) | ~np.isfinite(sy) | (sx == 0) | (sy == 0) | (np.abs(sx) == 1)
    bad = special & ~same_bits(got, want)
    assert not bad.any(), list(zip(sx[bad], sy[bad], got[bad], want[bad]))
    err, i = g.max_ulp(got[~special], p.reference(sx, sy)[~special])
    assert err <= 0.5001, f"{err:.4f} ulp at pow({float(sx[~special][i])!r}, {float(sy[~special][i])!r})"


def test_hypot_float32_is_correctly_rounded():
    x = g.grid()[::3]
    y = np.roll(x, 12345) * np.float32(0.37)
    got = rstorch.hypot(rstorch.from_numpy(x), rstorch.from_numpy(y)).numpy()
    err, i = g.max_ulp(got, np.hypot(x.astype(np.float64), y.astype(np.float64)))
    assert err <= 0.5001, f"{err:.4f} ulp at hypot({float(x[i])!r}, {float(y[i])!r})"


@pytest.mark.parametrize("dtype", [rstorch.float32, rstorch.float64])
def test_hypot_special_values(dtype):
    inf, nan = math.inf, math.nan
    a = rstorch.tensor([inf, -inf, nan, 1.0, -0.0, 3e300, 3e-300, -3.0], dtype=dtype)
    b = rstorch.tensor([nan, 1.0, -inf, nan, -0.0, 4e300, 4e-300, 4.0], dtype=dtype)
    got = rstorch.hypot(a, b).tolist()
    want = [inf, inf, inf, nan, 0.0, 5e300, 5e-300, 5.0]
    if dtype is rstorch.float32:
        want[5], want[6] = inf, 0.0  # the operands are inf and 0 in float32
    assert [repr(v) for v in got] == [repr(v) for v in want]


def test_copysign_reads_every_sign_bit():
    a = np.array([1.0, -2.0, 0.0, -0.0, math.inf, math.nan, 3.0, 3.0], dtype=np.float32)
    b = np.array([-0.0, 0.0, -1.0, 1.0, -math.nan, -1.0, math.nan, -math.inf], dtype=np.float32)
    for dt in [np.float32, np.float64]:
        got = rstorch.copysign(rstorch.from_numpy(a.astype(dt)), rstorch.from_numpy(b.astype(dt))).numpy()
        assert same_bits(got, np.copysign(a.astype(dt), b.astype(dt))).all()
        assert np.array_equal(np.signbit(got), np.signbit(b))
    # strided and broadcast operands
    t = rstorch.from_numpy(np.stack([a, a])).t()
    got = rstorch.copysign(t, rstorch.from_numpy(b).unsqueeze(1)).numpy()
    assert np.array_equal(np.signbit(got), np.signbit(np.stack([b, b]).T))
