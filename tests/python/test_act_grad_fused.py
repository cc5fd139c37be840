"""The activations' fused CPU gradients (`src/cpu/act_grad.rs`: one pass over the incoming
gradient and the saved input or result) against the tensor-op formulas they replace, which still
serve create_graph: equal values at special points (NaN, infinities, signed zeros, the kinks and
bounds) in float32 and float64, on contiguous, transposed, sliced and broadcast inputs and with
gradients laid out unlike the input; and gradcheck / gradgradcheck in float64 on those layouts
for the ops the activation tests do not cover (silu, gelu, clamp)."""
import math

import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck

OPS = {
    "hardtanh": lambda t: F.hardtanh(t, -0.8, 0.9),
    "relu6": F.relu6,
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "silu": F.silu,
    "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "softplus": lambda t: F.softplus(t, beta=2.0, threshold=1.0),
    "leaky_relu": lambda t: F.leaky_relu(t, 0.2),
    "elu": lambda t: F.elu(t, 1.3),
    "celu": lambda t: F.celu(t, 0.7),
    "selu": F.selu,
    "logsigmoid": F.logsigmoid,
    "sigmoid": rstorch.sigmoid,
    "clamp": lambda t: t.clamp(-0.5, 0.5),
    "clamp_min": lambda t: t.clamp(min=0.0),
    "clamp_nan_bound": lambda t: t.clamp(max=float("nan")),
}
# elu family and leaky_relu in place: the node keeps the result.
IN_PLACE = {
    "leaky_relu_": lambda t: F.leaky_relu(t, 0.2, inplace=True),
    "elu_": lambda t: F.elu(t, 1.3, inplace=True),
    "celu_": lambda t: F.celu(t, 0.7, inplace=True),
    "selu_": lambda t: F.selu(t, inplace=True),
    "hardtanh_": lambda t: F.hardtanh(t, -0.8, 0.9, inplace=True),
}
SPECIAL = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -3.0, 3.0, -0.8, 0.9, -0.5, 0.5, 6.0, 1.0,
           -1.0, 0.25, -2.5, 2.5, 10.0, -10.0, 30.0, -30.0, 1e-30, -1e-30]


def close(a, b, rel, atol):
    """Equal NaN and infinite entries; the others within rel (plus atol, for the float32
    formulas' rounding where a slope crosses zero)."""
    assert len(a) == len(b)
    for i, (p, q) in enumerate(zip(a, b)):
        if math.isnan(q):
            assert math.isnan(p), (i, a, b)
        elif math.isinf(q):
            assert p == q, (i, p, q)
        else:
            assert abs(p - q) <= rel * abs(q) + atol, (i, p, q)


def layouts(values, dtype):
    """The values (a multiple of 4 long) as (4, n/4) views of a leaf: (base, view) with the
    view contiguous, transposed, a column slice of a wider base, or a broadcast row."""
    n = len(values)
    base = rstorch.tensor(values, dtype=dtype).reshape(4, n // 4)
    wide = rstorch.zeros(4, n // 2, dtype=dtype)
    wide[:, ::2] = base
    return {
        "contig": (base, lambda t: t),
        "transposed": (base.t().contiguous(), lambda t: t.t()),
        "sliced": (wide, lambda t: t[:, ::2]),
        "broadcast": (base[:1].contiguous(), lambda t: t.expand(4, n // 4)),
    }


def fused_and_formula(f, base, view, g, in_place):
    """The base's gradient through the fused pass (plain backward) and through the formula
    (create_graph builds its ops), f applied to the view (in place: to a copy of the base)."""
    got = []
    for create_graph in (False, True):
        leaf = base.detach().requires_grad_()
        out = f(leaf * 1) if in_place else f(view(leaf))
        (grad,) = rstorch.autograd.grad(out, leaf, g, create_graph=create_graph)
        got.append(grad)
    return got


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS) + list(IN_PLACE))
def test_fused_gradient_is_the_formulas(name, dtype):
    in_place = name in IN_PLACE
    f = IN_PLACE[name] if in_place else OPS[name]
    dt = getattr(rstorch, dtype)
    rstorch.manual_seed(5)
    values = SPECIAL + (rstorch.randn(25, dtype=rstorch.float64) * 4).tolist()
    rel, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-13, 1e-14)
    for layout, (base, view) in layouts(values, dt).items():
        if in_place and layout != "contig":
            continue
        shape = (4, len(values) // 4)
        grads = {
            "ones": rstorch.ones(shape, dtype=dt),
            "random": rstorch.randn(shape, dtype=dt),
            "transposed": rstorch.randn(shape[::-1], dtype=dt).t(),
        }
        for gname, g in grads.items():
            fused, formula = fused_and_formula(f, base, view, g, in_place)
            assert fused.shape == formula.shape and fused.dtype == formula.dtype
            try:
                close(fused.reshape(-1).tolist(), formula.reshape(-1).tolist(), rel, atol)
            except AssertionError as e:
                raise AssertionError(f"{name} {dtype} {layout} grad {gname}") from e


def test_transposed_input_gradient_reaches_the_base_in_its_layout():
    # y = f(x.t()): the fused pass walks the transposed input in storage order and returns the
    # gradient in its layout, so the base's gradient comes out contiguous.
    x = (rstorch.randn(64, 48) * 2).requires_grad_()
    y = F.hardswish(x.t())
    g = rstorch.randn(48, 64)
    y.backward(g)
    assert x.grad.is_contiguous()
    ref = x.detach().requires_grad_()
    (want,) = rstorch.autograd.grad(F.hardswish(ref.t()), ref, g, create_graph=True)
    assert rstorch.equal(x.grad, want.detach())


def test_clamp_forward_keeps_ties_and_nan():
    x = rstorch.tensor([-0.0, float("nan"), -1.0, 2.0, 0.5])
    y = x.clamp(min=0.0, max=1.0)
    assert math.copysign(1.0, y[0].item()) == -1.0
    assert math.isnan(y[1].item()) and y[2:].tolist() == [0.0, 1.0, 0.5]
    assert x.clamp(min=2.0, max=1.0)[2:].tolist() == [1.0, 1.0, 1.0]


def inputs(*shape):
    """Float64 values in [-2, 2] kept 1e-3 away from the kinks of the ops below."""
    t = rstorch.rand(*shape, dtype=rstorch.float64) * 4 - 2
    for k in (-0.5, 0.0, 0.5):
        t = rstorch.where((t - k).abs() < 1e-3, t + 0.01, t)
    return t


@pytest.mark.parametrize("name", ["silu", "gelu", "gelu_tanh", "clamp", "clamp_min", "hardtanh", "hardswish", "sigmoid",
                                  "logsigmoid", "softplus"])
def test_gradcheck_on_layouts(name):
    rstorch.manual_seed(7)
    f = OPS[name]
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
    xs = [
        inputs(5).requires_grad_(),
        inputs(4, 3).t().detach().requires_grad_(),
        inputs(3, 8)[:, ::2].detach().requires_grad_(),
        inputs(1, 4).detach().requires_grad_(),
    ]
    for i, x in enumerate(xs):
        # the last one broadcast to (3, 4) inside the function
        fn = (lambda t: f(t.expand(3, 4))) if i == 3 else f
        assert gradcheck(fn, (x,), **kw)
        assert gradgradcheck(fn, (x,), **kw)
