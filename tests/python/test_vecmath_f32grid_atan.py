"""Float32 atan (float32 lanes, src/cpu/vecmath_f32trig.rs) over the dense grid of the whole
float32 range shared with test_vecmath_f32grid.py (tests/f32grid_common.py) against PyTorch 2.15's
own float32 atan on the same grid, recorded by tests/record_vecmath_f32grid_atan.py in
fixtures/vecmath_f32grid_atan.json: rstorch's largest error in ulps (against numpy's float64
arctan) is never larger than PyTorch's, strided views give the same bits, and the special values
(NaN, infinities, signed zeros, subnormals, the largest floats) are PyTorch's."""
import json
import math
import pathlib
import sys

import numpy as np

import rstorch

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import f32grid_common as g  # noqa: E402

FIXTURE = json.loads((TESTS / "fixtures" / "vecmath_f32grid_atan.json").read_text())
CASE = FIXTURE["ops"]["atan"]


def reference(x32):
    return np.arctan(x32.astype(np.float64))


def test_max_ulp_not_worse_than_pytorch():
    x = g.grid()
    got = rstorch.atan(rstorch.from_numpy(x)).numpy()
    err, i = g.max_ulp(got, reference(x))
    assert err <= CASE["torch_max_ulp"], f"atan: {err:.4f} ulp at {float(x[i])!r} (PyTorch {CASE['torch_max_ulp']:.4f})"


def test_strided_views_take_the_same_kernel():
    x = g.grid()[: 4096 * 64].reshape(64, 4096)
    t = rstorch.from_numpy(x)
    want = rstorch.atan(t).numpy()
    np.testing.assert_array_equal(rstorch.atan(t.t()).numpy().view(np.uint32), want.T.view(np.uint32))
    np.testing.assert_array_equal(rstorch.atan(t[:, ::3]).numpy().view(np.uint32), want[:, ::3].view(np.uint32))


def test_special_values_as_pytorch():
    xs = np.array([float(s) for s in FIXTURE["specials"]], dtype=np.float32)
    want = [float(s) for s in CASE["torch_specials"]]
    got = rstorch.atan(rstorch.from_numpy(xs)).numpy().tolist()
    ref = reference(xs)
    for j, (x, a, w) in enumerate(zip(xs.tolist(), got, want)):
        if math.isnan(w):
            assert math.isnan(a), f"atan({x!r}): {a!r}, PyTorch nan"
        elif not math.isfinite(x) or x == 0:
            assert a == w and math.copysign(1.0, a) == math.copysign(1.0, w), f"atan({x!r}): {a!r}, PyTorch {w!r}"
        else:
            mine, torch_err = g.max_ulp([a], ref[j:j + 1])[0], g.max_ulp([w], ref[j:j + 1])[0]
            assert mine <= max(torch_err, 0.5), f"atan({x!r}): {a!r} ({mine:.3g} ulp), PyTorch {w!r} ({torch_err:.3g} ulp)"
