"""Elementwise functions (erfc, erfinv, lgamma, digamma, polygamma, i0, sinc, logit, heaviside,
gcd, ...), in-place forms and aliases at Tensor and torch level, predicates, splits, scatters,
windows, finfo/iinfo and the legacy tensor types, against PyTorch's results of the same calls
(tests/tensorfns_cases.py; recorded by tests/record_tensorfns.py into fixtures/tensorfns.json),
with gradcheck in float64 for the differentiable ones and the wgpu kernels of the new unary ops."""
import json
import math
import pathlib
import sys

import pytest

import rstorch
from rstorch.autograd import gradcheck, gradgradcheck

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tensorfns_cases import capture, cases  # noqa: E402

RECORDED = json.loads((HERE.parent / "fixtures" / "tensorfns.json").read_text())["cases"]
CASES = dict(cases())
# float32 special functions compute in float64 and round once (PyTorch computes in float32):
# within a few ulp; float64 within a few ulp too, except next to the zeros of lgamma and digamma.
# The grad_fn nodes compared: those of the ops declared in the core (src/ops/unary.rs,
# src/ops/composite.rs); the Python compositions record the nodes of the ops they are made of.
CORE_NODES = {f"{n}Backward0" for n in ("Erfc", "Erfinv", "Lgamma", "Digamma", "I0", "Sinc", "Deg2Rad", "Rad2Deg",
                                        "Polygamma", "Fmax", "Fmin")}
RTOL = {"float32": 2e-6, "float64": 1e-13, "float16": 1e-3, "bfloat16": 1e-2}


# PyTorch's trigamma (polygamma(1, x), digamma's derivative) is a short asymptotic series good to
# ~1e-11: psi1(0.1) = 101.43329915079275882 exactly, PyTorch gives 101.43329914989455, rstorch
# (the Hurwitz zeta function to machine precision) 101.43329915079273.
TRIGAMMA = ("polygamma1-", "polygamma0-grad", "digamma-grad")


def same_values(got, want, dtype, name):
    assert len(got) == len(want), name
    rtol = RTOL.get(dtype, 0)
    if dtype == "float64" and name.startswith(TRIGAMMA):
        rtol = 1e-8
    for g, w in zip(got, want):
        if isinstance(w, float) and math.isnan(w):
            assert isinstance(g, float) and math.isnan(g), (name, got, want)
        elif isinstance(w, float) and (math.isinf(w) or w == 0.0):
            assert g == w, (name, got, want)
        elif isinstance(w, float):
            assert abs(g - w) <= rtol * abs(w) + 1e-300, (name, g, w, got, want)
        else:
            assert g == w, (name, got, want)


def same(got, want, name):
    if "error" in want:
        assert "error" in got, (name, got, want)
        assert (got["error"], got["message"]) == (want["error"], want["message"]), name
        return
    assert "error" not in got, (name, got)
    if "seq" in want:
        assert "seq" in got and len(got["seq"]) == len(want["seq"]), (name, got)
        for g, w in zip(got["seq"], want["seq"]):
            same(g, w, name)
        return
    if "py" in want:
        if isinstance(want["py"], float):
            same_values([got["py"]], [want["py"]], "float64", name)
        else:
            assert got["py"] == want["py"], (name, got, want)
        return
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), (name, got, want)
    same_values(got["v"], want["v"], want["dtype"], name)
    if "grads" in want:
        if want.get("grad_fn") in CORE_NODES:
            assert got["grad_fn"] == want["grad_fn"], (name, got["grad_fn"], want["grad_fn"])
        for g, w in zip(got["grads"], want["grads"]):
            assert (g is None) == (w is None), name
            if w is not None:
                assert g["shape"] == w["shape"], name
                same_values(g["v"], w["v"], "float64" if w["dtype"] == "float64" else w["dtype"], name)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_pytorch(name):
    same(capture(rstorch, CASES[name]), RECORDED[name], name)


def test_every_case_is_recorded():
    assert set(CASES) == set(RECORDED)


def _domain(op, *shape):
    x = rstorch.rand(*shape, dtype=rstorch.float64)
    if op == "erfinv":
        return x * 1.6 - 0.8
    if op in ("lgamma", "digamma", "polygamma", "mvlgamma"):
        return x * 4 + 2.2
    if op == "logit":
        return x * 0.8 + 0.1
    return x * 6 - 3


UNARY = ["erfc", "erfinv", "lgamma", "digamma", "i0", "sinc", "deg2rad", "rad2deg", "logit"]


@pytest.mark.parametrize("op", UNARY)
def test_gradcheck(op):
    rstorch.manual_seed(0)
    f = getattr(rstorch, op)
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
    contiguous = _domain(op, 3, 4).requires_grad_()
    transposed = _domain(op, 4, 3).t().detach().requires_grad_()
    for x in (contiguous, transposed):
        assert gradcheck(f, (x,), **kw)
        assert gradgradcheck(f, (x,), **kw)


def test_gradcheck_parametrised():
    rstorch.manual_seed(0)
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
    x = _domain("polygamma", 5).requires_grad_()
    for n in (0, 1, 3):
        assert gradcheck(lambda v: rstorch.polygamma(n, v), (x,), **kw)
        assert gradgradcheck(lambda v: rstorch.polygamma(n, v), (x,), **kw)
    assert gradcheck(lambda v: rstorch.mvlgamma(v, 3), (x,), **kw)
    assert gradcheck(lambda v: rstorch.logit(v, 0.2), (_domain("logit", 6).requires_grad_(),), **kw)
    a, b = _domain("x", 6).requires_grad_(), _domain("x", 6).requires_grad_()
    assert gradcheck(rstorch.fmax, (a, b), **kw) and gradcheck(rstorch.fmin, (a, b), **kw)
    assert gradcheck(lambda v: rstorch.ldexp(v, rstorch.tensor([1, -2, 0, 3, 1, 2])), (a,), **kw)
    # I0' = I1 and its own derivative (double backward), 1/2 at 0
    z = rstorch.tensor([0.0, -1.5, 2.0], dtype=rstorch.float64, requires_grad=True)
    assert gradgradcheck(rstorch.i0, (z,), **kw)
    s = rstorch.tensor([0.0, 0.5, -2.5], dtype=rstorch.float64, requires_grad=True)
    assert gradcheck(rstorch.sinc, (s,), **kw) and gradgradcheck(rstorch.sinc, (s,), **kw)


def test_scatters_gradcheck():
    rstorch.manual_seed(0)
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
    base = rstorch.rand(3, 4, dtype=rstorch.float64, requires_grad=True)
    src = rstorch.rand(2, 4, dtype=rstorch.float64, requires_grad=True)
    idx = rstorch.tensor([2, 0])
    assert gradcheck(lambda b, s: b.index_copy(0, idx, s), (base, src), **kw)
    assert gradcheck(lambda b, s: rstorch.slice_scatter(b, s, 0, 0, 3, 2), (base, src), **kw)
    assert gradcheck(lambda b: b.index_fill(1, rstorch.tensor([1, 3]), 2.0), (base,), **kw)
    assert gradcheck(lambda s: rstorch.diag_embed(s, 1), (src,), **kw)
    sidx = rstorch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])
    for reduce in ("sum", "mean", "amax", "amin"):
        for include in (True, False):
            assert gradcheck(lambda b, s: b.scatter_reduce(0, sidx, s, reduce, include_self=include), (base, src), **kw)


def test_in_place_geometry_keeps_the_storage():
    x = rstorch.arange(6.0).reshape(2, 3)
    ptr = x.data_ptr()
    assert x.t_() is x and x.shape == (3, 2) and x.data_ptr() == ptr
    x.unsqueeze_(0).squeeze_(0)
    assert x.shape == (3, 2)
    assert rstorch.arange(3.0).pin_memory().tolist() == [0.0, 1.0, 2.0]


def test_numpy_names_on_unwrapped_calls():
    x = rstorch.arange(6.0).reshape(2, 3)
    assert x.sum(1, True).tolist() == x.sum(axis=1, keepdims=True).tolist()
    assert rstorch.sum(x, dim=0).tolist() == rstorch.sum(x, axis=0).tolist()


needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")

# The device kernels against the CPU's: erfc's far tail is 0 on the device (1 - erf), and the
# float64 device math is f64.wgsl's, a few ulp from the CPU's.
WGPU_INPUTS = {
    "erfc": [-3.0, -0.5, 0.0, 0.3, 1.0, 2.5],
    "erfinv": [-0.99, -0.5, 0.0, 0.1, 0.7, 0.999, 1.0, -1.0, 1.5],
    "lgamma": [-2.5, -0.5, 0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 35.0, -3.0],
    "digamma": [-2.5, -0.5, 0.1, 0.5, 1.0, 1.5, 3.7, 10.0, 35.0, -3.0, 0.0],
    "i0": [-40.0, -3.0, 0.0, 0.5, 2.0, 10.0, 29.0, 31.0, 60.0],
    "sinc": [-2.5, -1.0, 0.0, 1e-3, 0.5, 3.3],
    "deg2rad": [-180.0, 0.0, 45.0, 720.0],
    "rad2deg": [-3.0, 0.0, 1.0, 6.5],
}


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(WGPU_INPUTS) + ["polygamma1", "polygamma2", "polygamma3"])
def test_wgpu_kernels(op, dtype):
    dt = getattr(rstorch, dtype)
    if dt is rstorch.float64 and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 on this adapter")
    if op.startswith("polygamma"):
        n = int(op[-1])
        f = lambda v: rstorch.polygamma(n, v)
        xs = [-2.5, 0.25, 0.5, 1.0, 1.5, 3.7, 10.0, 35.0]
    else:
        f, xs = getattr(rstorch, op), WGPU_INPUTS[op]
    x = rstorch.tensor(xs, dtype=dt)
    got = f(x.to("wgpu"))
    assert got.device.type == "wgpu" and got.dtype is dt
    want = f(x).tolist()
    rtol = 2e-5 if dt is rstorch.float32 else 1e-12
    for g, w in zip(got.cpu().tolist(), want):
        if math.isnan(w) or math.isinf(w):
            assert g == w or (math.isnan(g) and math.isnan(w)), (op, got, want)
        else:
            assert abs(g - w) <= rtol * abs(w) + (1e-6 if dt is rstorch.float32 else 1e-14), (op, g, w)
