"""Float32 circular functions (the gate for native float32 kernels, issue 23 item 2) against
PyTorch's own float32 accuracy on a dense grid of the whole float32 range (every STEP-th bit
pattern, both signs), recorded by
tests/record_vecmath_f32.py in fixtures/vecmath_f32.json: rstorch's largest error in ulps against
its float64 result must be no larger than PyTorch's, on contiguous and transposed inputs, and the
special values must be PyTorch's. Tensors whose values all lie within 2^24 take a cheaper
reduction by π/2; the grid's points there are held to PyTorch's error on the same points."""
import json
import math
import pathlib

import numpy as np
import pytest

import rstorch

DATA = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "vecmath_f32.json").read_text())


def grid():
    pos = np.arange(0, 0x7F800000, DATA["step"], dtype=np.uint32).view(np.float32)
    return np.concatenate([pos, -pos])


def ulp_errors(got32, want64):
    """The recorder's measure (tests/record_vecmath_f32.py)."""
    got = got32.astype(np.float64)
    w32 = want64.astype(np.float32)
    e = np.maximum(np.frexp(np.abs(want64))[1] - 1, -126)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - want64) / np.ldexp(1.0, e - 23)
    special = ~np.isfinite(w32) | ~np.isfinite(got32)
    same = (got32 == w32) | (np.isnan(got32) & np.isnan(w32))
    err[special] = np.where(same[special], 0.0, np.inf)
    return err


def check_grid(name, x, torch_err):
    """rstorch's largest error on the points `x` is no larger than PyTorch's `torch_err`, and
    transposed and strided views of the same values give the same bits."""
    f = getattr(rstorch, name)
    t = rstorch.tensor(x.tolist(), dtype=rstorch.float32)
    got = np.array(f(t).tolist(), dtype=np.float32)
    want = np.array(f(t.double()).tolist(), dtype=np.float64)
    err = ulp_errors(got, want)
    i = int(np.argmax(err))
    assert err[i] <= torch_err, f"{name}: {err[i]:.4f} ulp at {x[i]!r} (PyTorch {torch_err:.4f})"
    m = t[: (t.shape[0] // 64) * 64].reshape(64, -1)
    assert f(m.t()).tolist() == f(m.t().contiguous()).tolist()
    assert f(m[:, ::3]).tolist() == f(m[:, ::3].contiguous()).tolist()


@pytest.mark.parametrize("name", sorted(DATA["ops"]))
def test_max_ulp_not_worse_than_pytorch(name):
    check_grid(name, grid(), DATA["ops"][name]["torch_max_ulp"])


@pytest.mark.parametrize("name", sorted(DATA["ops"]))
def test_small_arguments_not_worse_than_pytorch(name):
    # Every value within 2^24: the tensor takes the cheap reduction.
    x = grid()
    check_grid(name, x[np.abs(x) <= DATA["small"]], DATA["ops"][name]["torch_max_ulp_small"])


@pytest.mark.parametrize("name", sorted(DATA["ops"]))
def test_special_values_as_pytorch(name):
    f = getattr(rstorch, name)
    got = f(rstorch.tensor(DATA["specials"], dtype=rstorch.float32)).tolist()
    for v, g, w in zip(DATA["specials"], got, DATA["ops"][name]["torch_specials"]):
        w = float(w)
        ok = (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
        assert ok, f"{name}({v!r}): {g!r}, PyTorch {w!r}"
    # The same values without the large finite ones: the tensor takes the cheap reduction.
    keep = [i for i, v in enumerate(DATA["specials"]) if not (math.isfinite(v) and abs(v) > DATA["small"])]
    got = f(rstorch.tensor([DATA["specials"][i] for i in keep], dtype=rstorch.float32)).tolist()
    for i, g in zip(keep, got):
        v, w = DATA["specials"][i], float(DATA["ops"][name]["torch_specials"][i])
        ok = (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
        assert ok, f"{name}({v!r}) among small values: {g!r}, PyTorch {w!r}"
