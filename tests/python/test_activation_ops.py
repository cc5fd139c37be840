"""The pointwise activations of `nn.functional` declared in the core's op registry
(`src/ops/unary.rs`, `with_params`): values, signs, gradients and `grad_fn` names against
PyTorch's recorded ones (fixtures/activations.json, written by tests/record_activations.py) at
boundaries and special values; their in-place forms and integer inputs; gradcheck and
gradgradcheck in float64 on non-contiguous inputs; and the wgpu kernels against the CPU's. Then
glu and prelu (`src/ops/nn/activation.rs`) against PyTorch's values and checks."""
import json
import math
import pathlib

import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck

CASES = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "activations.json").read_text())["cases"]
# Against PyTorch's values: relative, a few ulp (exp, log1p and tanh are not PyTorch's own);
# absolute, the subnormal range (where float32's exp here gives fewer digits or zero).
RTOL = {"float32": 1e-6, "float64": 1e-14}
ATOL = {"float32": 2e-38, "float64": 3e-308}
# PyTorch's float64 gradients of these carry float32 constants (hardsigmoid's 1/6, celu's
# 1/alpha, whose error grows with |x| through exp): 0.1666666716337204 where 1/6 is
# 0.16666666666666666. rstorch's are exact.
GRAD_RTOL_F64 = {"hardsigmoid": 1e-7, "celu": 1e-5}


def same(got, want, rtol, signs=None, atol=0.0):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        if math.isnan(w):
            assert math.isnan(g), (i, got, want)
        elif math.isinf(w) or w == 0.0:
            assert g == w or abs(g) <= atol, (i, g, w, got, want)
        else:
            assert abs(g - w) <= rtol * abs(w) + atol, (i, g, w, got, want)
        if signs is not None and signs[i] is not None and abs(w) > atol:
            assert math.copysign(1.0, g) == signs[i], (i, g, w)


def case_id(c):
    kw = ",".join(f"{k}={v}" for k, v in c["kwargs"].items())
    return f"{c['fn']}({kw})-{c['dtype']}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_values_gradients_and_nodes_match_pytorch(case):
    dt = getattr(rstorch, case["dtype"])
    f, kwargs, rtol, atol = getattr(F, case["fn"]), case["kwargs"], RTOL[case["dtype"]], ATOL[case["dtype"]]
    y = f(rstorch.tensor(case["x"], dtype=dt), **kwargs)
    assert y.dtype is dt
    same(y.tolist(), case["y"], rtol, case["sign"], atol)
    grad_rtol = GRAD_RTOL_F64.get(case["fn"], rtol) if dt is rstorch.float64 else rtol
    x = rstorch.tensor(case["x"], dtype=dt, requires_grad=True)
    out = f(x, **kwargs)
    assert type(out.grad_fn).__name__ == case["grad_fn"]
    out.sum().backward()
    same(x.grad.tolist(), case["grad"], grad_rtol, atol=atol)
    if "grad_fn_inplace" not in case:
        return
    # In place on a non-leaf: the same values. PyTorch numbers the node of some in-place forms 1
    # (ThresholdBackward1, EluBackward1); rstorch names them as the op's.
    x = rstorch.tensor(case["x"], dtype=dt, requires_grad=True)
    z = x * 1
    r = f(z, inplace=True, **kwargs)
    assert r is z
    assert type(r.grad_fn).__name__[:-1] == case["grad_fn_inplace"][:-1]
    same(r.tolist(), case["y"], rtol, case["sign"], atol)
    r.sum().backward()
    # From the result, `alpha * exp(x)` is `result + alpha`: its digits are lost far below zero,
    # as in PyTorch.
    from_result = case["fn"] in ("elu", "celu", "selu")
    slack = 4e-7 if dt is rstorch.float32 else 1e-15
    same(x.grad.tolist(), case["grad_inplace"], 1e-4 if from_result else grad_rtol, atol=slack if from_result else atol)


def test_integers_keep_their_dtype_in_threshold_and_hardtanh():
    # PyTorch's values: the parameters truncated to the integer type, bool refused.
    x = rstorch.tensor([-4, -1, 0, 2, 7])
    for y, want in [(F.threshold(x, -0.5, 9), [9, 9, 9, 2, 7]), (F.threshold(x, -1.5, 9), [9, 9, 0, 2, 7]),
                    (F.threshold(x, 0.5, 5.5), [5, 5, 5, 2, 7]), (F.hardtanh(x, -2.7, 2.7), [-2, -1, 0, 2, 2]),
                    (F.relu6(x * 2), [0, 0, 0, 4, 6])]:
        assert y.dtype is rstorch.int64 and y.tolist() == want
    x8 = x.to(rstorch.int8)
    for y, want in [(F.threshold(x8, -0.5, 100), [100, 100, 100, 2, 7]), (F.hardtanh(x8, -2.7, 2.7), [-2, -1, 0, 2, 2])]:
        assert y.dtype is rstorch.int8 and y.tolist() == want
    z = x.clone()
    assert F.relu6(z, inplace=True) is z and z.tolist() == [0, 0, 0, 2, 6]
    b = rstorch.tensor([True, False])
    with pytest.raises(NotImplementedError, match="\"threshold_cpu\" not implemented for 'Bool'"):
        F.threshold(b, 0, 1)
    for f in [F.hardtanh, F.relu6]:
        with pytest.raises(NotImplementedError, match="Bool inputs not supported for hardtanh"):
            f(b)
    # the others are float-only kernels in PyTorch, which refuses integers there
    with pytest.raises(NotImplementedError, match="\"hardsigmoid_cpu\" not implemented for 'Long'"):
        F.hardsigmoid(x)
    with pytest.raises(NotImplementedError, match="\"elu_cpu\" not implemented for 'Long'"):
        F.celu(x)


# Each with its kinks (where the gradient jumps), which the inputs keep away from.
OPS = {
    "threshold": (lambda t: F.threshold(t, 0.3, -1.5), [0.3]),
    "hardtanh": (lambda t: F.hardtanh(t, -0.8, 0.9), [-0.8, 0.9]),
    "relu6": (lambda t: F.relu6(t * 4), [0.0, 1.5]),
    "hardsigmoid": (lambda t: F.hardsigmoid(t * 3), [-1.0, 1.0]),
    "hardswish": (lambda t: F.hardswish(t * 3), [-1.0, 1.0]),
    "mish": (F.mish, []),
    "celu": (lambda t: F.celu(t, 0.7), [0.0]),
    "selu": (F.selu, [0.0]),
    "logsigmoid": (F.logsigmoid, []),
    "elu": (lambda t: F.elu(t, 1.3), [0.0]),
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.2), [0.0]),
    "softplus": (lambda t: F.softplus(t, beta=2.0, threshold=1.0), [0.5]),
}


def inputs(kinks, *shape):
    """Float64 values in [-2, 2] at least 1e-3 from every kink."""
    t = rstorch.rand(*shape, dtype=rstorch.float64) * 4 - 2
    for k in kinks:
        near = (t - k).abs() < 1e-3
        t = rstorch.where(near, t + 0.01, t)
    return t


@pytest.mark.parametrize("name", list(OPS))
def test_gradcheck_and_gradgradcheck_noncontiguous(name):
    rstorch.manual_seed(3)
    f, kinks = OPS[name]
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
    transposed = inputs(kinks, 4, 3).t().detach().requires_grad_()
    sliced = inputs(kinks, 3, 8)[:, ::2].detach().requires_grad_()
    assert not transposed.is_contiguous() and not sliced.is_contiguous()
    for x in [inputs(kinks, 5).requires_grad_(), transposed, sliced]:
        assert gradcheck(f, (x,), **kw)
        assert gradgradcheck(f, (x,), **kw)


@pytest.mark.parametrize("name", ["celu", "selu", "elu", "leaky_relu"])
def test_in_place_keeps_the_result(name):
    # PyTorch's rule for leaky_relu_ and the elu family: the node keeps the result, not a copy of
    # the input, so writing over the result afterwards is caught in backward.
    f, _ = OPS[name]
    x = rstorch.randn(4, requires_grad=True)
    y = x * 1
    f_inplace = {"celu": lambda t: F.celu(t, 0.7, inplace=True), "selu": lambda t: F.selu(t, inplace=True),
                 "elu": lambda t: F.elu(t, 1.3, inplace=True), "leaky_relu": lambda t: F.leaky_relu(t, 0.2, True)}[name]
    f_inplace(y)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_in_place_celu_with_a_negative_alpha_is_refused_in_backward():
    x = rstorch.randn(4, requires_grad=True)
    y = F.celu(x * 1, alpha=-1.0, inplace=True)
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"):
        y.sum().backward()
    # out of place, a negative alpha is fine
    F.celu(x * 1, alpha=-1.0).sum().backward()


IN_PLACE = {"threshold": lambda t, i: F.threshold(t, 0.3, -1.5, inplace=i), "hardtanh": lambda t, i: F.hardtanh(t, inplace=i),
            "hardsigmoid": lambda t, i: F.hardsigmoid(t, inplace=i), "hardswish": lambda t, i: F.hardswish(t, inplace=i),
            "mish": lambda t, i: F.mish(t, inplace=i)}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_keeps_the_input_values(name):
    # The others keep a copy of the input as it was: a later write over the result is harmless.
    f = IN_PLACE[name]
    base = rstorch.randn(6, dtype=rstorch.float64) * 3
    x = base.clone().requires_grad_()
    y = x * 1
    f(y, True)
    y.mul_(2)
    y.sum().backward()
    ref = base.clone().requires_grad_()
    (f(ref, False) * 2).sum().backward()
    same(x.grad.tolist(), ref.grad.tolist(), 1e-14)


def test_glu_and_prelu_follow_pytorch():
    # PyTorch's values, nodes and checks (glu and prelu are ops::nn::activation's).
    x = rstorch.arange(12.).reshape(3, 4).requires_grad_()
    y = F.glu(x)
    assert type(y.grad_fn).__name__ == "GluBackward0" and list(y.shape) == [3, 2]
    same(y.tolist()[0] + y.tolist()[1], [0.0, 0.9525741338729858, 3.990109920501709, 4.995445728302002], 1e-6)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        F.glu(x, 0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.glu(x, 2)
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(rstorch.tensor(1.))
    with pytest.raises(NotImplementedError, match="\"glu_cpu\" not implemented for 'Long'"):
        F.glu(rstorch.arange(4))
    # prelu: at zero the weight's side, in value (a negative weight gives -0.0) and gradient
    for weight, want, grad in [(0.25, [-0.25, 0.0, -0.0, 2.0], [0.25, 0.25, 0.25, 1.0]),
                               (-0.25, [0.25, -0.0, 0.0, 2.0], [-0.25, -0.25, -0.25, 1.0])]:
        x = rstorch.tensor([-1., 0., -0., 2.], requires_grad=True)
        w = rstorch.tensor([weight], requires_grad=True)
        y = F.prelu(x, w)
        assert type(y.grad_fn).__name__ == "PreluKernelBackward0"
        same(y.tolist(), want, 0.0, [math.copysign(1.0, v) for v in want])
        y.sum().backward()
        assert x.grad.tolist() == grad and w.grad.tolist() == [-1.0]
    xx = rstorch.arange(24.).reshape(2, 4, 3) - 12
    assert F.prelu(xx, rstorch.tensor([0.25, 0.5, 0.75, 1.0])).reshape(-1).tolist()[:6] == [-3.0, -2.75, -2.5, -4.5, -4.0, -3.5]
    assert F.prelu(rstorch.tensor(-1.), rstorch.tensor([0.1])).shape == ()
    with pytest.raises(RuntimeError, match="Found parameter numbers = 3 and channel size = 4"):
        F.prelu(xx, rstorch.ones(3))
    with pytest.raises(RuntimeError, match="Found parameter numbers = 2 and channel size = 1"):
        F.prelu(rstorch.tensor([-1., 2.]), rstorch.tensor([0.1, 0.2]))
    with pytest.raises(RuntimeError, match="prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"):
        F.prelu(xx, rstorch.ones(2, 2))
    with pytest.raises(NotImplementedError, match="\"prelu_cpu\" not implemented for 'Long'"):
        F.prelu(rstorch.arange(-2, 2), rstorch.tensor([1]))


needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")


@needs_gpu
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_wgpu_kernels_match_the_cpu(case):
    dt = getattr(rstorch, case["dtype"])
    if dt is rstorch.float64 and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 on this adapter")
    f, kwargs = getattr(F, case["fn"]), case["kwargs"]
    x = rstorch.tensor(case["x"], dtype=dt)
    got = f(x.to("wgpu"), **kwargs)
    assert got.device.type == "wgpu" and got.dtype is dt
    # The device's exp, log and tanh are not the CPU's: float32 within the wgpu tests' floor
    # (`_wgpu_helpers.close_in`; WGSL's log near 1 is accurate to 2^-21 absolute, which
    # expm1 and log1p inherit), float64 within a few ulp. Special values and signs exactly.
    rtol, atol = (1e-4, 1e-5) if dt is rstorch.float32 else (1e-14, 1e-300)
    same(got.cpu().tolist(), f(x, **kwargs).tolist(), rtol, case["sign"], atol)
    xd = x.to("wgpu").requires_grad_()
    f(xd, **kwargs).sum().backward()
    xc = x.clone().requires_grad_()
    f(xc, **kwargs).sum().backward()
    assert xd.grad.device.type == "wgpu"
    same(xd.grad.cpu().tolist(), xc.grad.tolist(), rtol * 10, atol=atol)
