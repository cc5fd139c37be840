"""Gradients at the edges (NaN inputs, zeros, bounds) as PyTorch computes them, and in-place
activations that back-propagate.

Expected values were printed by the reference PyTorch (/work/torchref, torch 2.15) for the
same calls in float64, e.g. `x = torch.tensor(vals, dtype=torch.float64, requires_grad=True);
f(x).sum().backward(); x.grad.tolist()`."""
import math

import pytest
import rstorch as torch
import rstorch.nn.functional as F
from rstorch import nn
from rstorch.autograd import gradcheck

nan = float("nan")


def grad_of(f, vals):
    x = torch.tensor(vals, dtype=torch.float64, requires_grad=True)
    y = f(x)
    if isinstance(y, tuple):
        y = y[0]
    y.sum().backward()
    return y.tolist(), x.grad.tolist()


def same(a, b):
    """Lists equal elementwise, NaN equal to NaN."""
    if isinstance(a, list):
        return len(a) == len(b) and all(same(p, q) for p, q in zip(a, b))
    return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-12


def close(a, b, tol=1e-6):
    """Nested lists equal up to rounding (an in-place form may compute its gradient from the
    result rather than the input, as PyTorch's does)."""
    if isinstance(a, list):
        return len(a) == len(b) and all(close(p, q, tol) for p, q in zip(a, b))
    return abs(a - b) <= tol * (1 + abs(b))


# (name, function, input, PyTorch's output, PyTorch's gradient)
CASES = [
    ("max", lambda x: x.max(), [1., nan, 3., nan], nan, [0.0, 0.5, 0.0, 0.5]),
    ("min", lambda x: x.min(), [1., nan, 3., nan], nan, [0.0, 0.5, 0.0, 0.5]),
    ("median", lambda x: x.median(), [1., nan, 3., nan], nan, [0.0, 0.5, 0.0, 0.5]),
    ("amax", lambda x: x.amax(), [1., nan, 3., nan], nan, [nan, nan, nan, nan]),
    ("max ties", lambda x: x.max(), [3., 1., 3.], 3.0, [0.5, 0.0, 0.5]),
    ("median ties", lambda x: x.median(), [3., 1., 3., 1.], 1.0, [0.0, 0.5, 0.0, 0.5]),
    ("max dim", lambda x: x.max(1), [[1., nan, 3.], [4., 5., 6.], [nan, 2., nan]],
     [nan, 6.0, nan], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    ("min dim", lambda x: x.min(1), [[1., nan, 3.], [4., 5., 6.], [nan, 2., nan]],
     [nan, 4.0, nan], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
    ("median dim", lambda x: x.median(1), [[1., nan, 3.], [4., 5., 6.], [nan, 2., nan]],
     [nan, 5.0, nan], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    ("max dim0", lambda x: x.max(0), [[1., nan, 3.], [4., 5., 6.], [nan, 2., nan]],
     [nan, nan, nan], [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]),
    ("amax dim", lambda x: x.amax(1), [[1., nan, 3.], [4., 5., 6.], [nan, 2., nan]],
     [nan, 6.0, nan], [[nan, nan, nan], [0.0, 0.0, 1.0], [nan, nan, nan]]),
    ("maximum nan", lambda x: torch.maximum(x, torch.tensor([nan, 1., 2.], dtype=torch.float64)),
     [1., nan, 2.], [nan, nan, 2.0], [1.0, 1.0, 0.5]),
    ("norm at zero", lambda x: x.norm(), [0., 0., 0.], 0.0, [0.0, 0.0, 0.0]),
    ("norm p2 dim", lambda x: x.norm(p=2, dim=1), [[0., 0.], [3., 4.]], [0.0, 5.0], [[0.0, 0.0], [0.6, 0.8]]),
    ("norm dim", lambda x: x.norm(dim=1), [[0., 0.], [3., 4.]], [0.0, 5.0], [[0.0, 0.0], [0.6, 0.8]]),
    ("norm p3 zero", lambda x: x.norm(p=3), [0., 0.], 0.0, [0.0, 0.0]),
    ("norm p1", lambda x: x.norm(p=1), [0., 0., 1.], 1.0, [0.0, 0.0, 1.0]),
    ("norm inf", lambda x: x.norm(p=float("inf")), [1., -3., 3.], 3.0, [0.0, -0.5, 0.5]),
    ("clamp", lambda x: x.clamp(-1, 1), [-2., -1., 0., 0.5, 1., 2., nan],
     [-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, nan], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
    ("clamp min", lambda x: x.clamp(min=0.5), [-2., -1., 0., 0.5, 1., 2., nan],
     [0.5, 0.5, 0.5, 0.5, 1.0, 2.0, nan], [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]),
    ("clip max", lambda x: x.clip(max=0.5), [-2., -1., 0., 0.5, 1., 2., nan],
     [-2.0, -1.0, 0.0, 0.5, 0.5, 0.5, nan], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
    ("clamp_min", lambda x: x.clamp_min(0.5), [-2., 0.5, 2., nan], [0.5, 0.5, 2.0, nan], [0.0, 0.0, 1.0, 0.0]),
    ("clamp_max", lambda x: x.clamp_max(0.5), [-2., 0.5, 2., nan], [-2.0, 0.5, 0.5, nan], [1.0, 0.0, 0.0, 0.0]),
    ("clamp crossed", lambda x: x.clamp(1., 0.), [-1., 0., 1., 2.], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]),
    ("hardtanh", lambda x: F.hardtanh(x), [-2., -1., 0., 0.5, 1., 2., nan],
     [-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, nan], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]),
    ("hardtanh inplace", lambda x: F.hardtanh(x * 1, inplace=True), [-2., -1., 0., 0.5, 1., 2., nan],
     [-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, nan], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]),
    ("relu6", lambda x: F.relu6(x), [-1., 0., 3., 6., 7., nan], [0.0, 0.0, 3.0, 6.0, 6.0, nan],
     [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
    ("relu", lambda x: F.relu(x), [-1., 0., 3., nan], [0.0, 0.0, 3.0, nan], [0.0, 0.0, 1.0, 1.0]),
    ("threshold", lambda x: F.threshold(x, 0.5, 0.), [nan, 1., 0.2, 0.5], [nan, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]),
    ("threshold value", lambda x: F.threshold(x, 0.5, -2.), [nan, 1., 0.2, 0.5], [nan, 1.0, -2.0, -2.0],
     [1.0, 1.0, 0.0, 0.0]),
    ("threshold inplace", lambda x: F.threshold(x * 1, 0.5, 9., inplace=True), [-1., 0.5, 0.6, 3., nan],
     [9.0, 9.0, 0.6, 3.0, nan], [0.0, 0.0, 1.0, 1.0, 1.0]),
    ("prod one zero", lambda x: x.prod(), [0., 2., 3.], 0.0, [6.0, 0.0, 0.0]),
    ("prod two zeros", lambda x: x.prod(), [0., 0., 3.], 0.0, [0.0, 0.0, 0.0]),
    ("prod no zero", lambda x: x.prod(), [1., 2., 3.], 6.0, [6.0, 3.0, 2.0]),
    ("prod 2d full", lambda x: x.prod(), [[0., 2.], [3., 4.]], 0.0, [[24.0, 0.0], [0.0, 0.0]]),
    ("prod dim", lambda x: x.prod(1), [[0., 2., 3.], [0., 0., 3.], [1., 2., 3.], [4., 0., 5.]],
     [0.0, 0.0, 6.0, 0.0], [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0], [0.0, 20.0, 0.0]]),
    ("prod dim keepdim", lambda x: x.prod(0, keepdim=True), [[0., 2.], [0., 0.], [1., 2.]],
     [[0.0, 0.0]], [[0.0, 0.0], [0.0, 4.0], [0.0, 0.0]]),
    ("prod nan and zero", lambda x: x.prod(), [0., nan, 3.], nan, [nan, 0.0, nan]),
    ("prod inf and zero", lambda x: x.prod(), [0., float("inf"), 3.], nan, [float("inf"), 0.0, nan]),
]


@pytest.mark.parametrize("name,f,vals,out,grad", CASES, ids=[c[0] for c in CASES])
def test_edge_values_and_gradients(name, f, vals, out, grad):
    y, g = grad_of(f, vals)
    assert same(y, out), (y, out)
    assert same(g, grad), (g, grad)


def test_clamp_tensor_bounds():
    # PyTorch: ties with a bound split the gradient; a NaN passes it to both sides.
    x = torch.tensor([-1., 0., 1., 2.], dtype=torch.float64, requires_grad=True)
    lo = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    hi = torch.ones(4, dtype=torch.float64, requires_grad=True)
    x.clamp(lo, hi).sum().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
    assert lo.grad.tolist() == [1.0, 0.5, 0.0, 0.0]
    assert hi.grad.tolist() == [0.0, 0.0, 0.5, 1.0]
    x.grad = lo.grad = None
    x.clamp(min=lo).sum().backward()
    assert x.grad.tolist() == [0.0, 0.5, 1.0, 1.0] and lo.grad.tolist() == [1.0, 0.5, 0.0, 0.0]
    xn = torch.tensor([nan, 0.5], dtype=torch.float64, requires_grad=True)
    lon = torch.tensor([0., nan], dtype=torch.float64, requires_grad=True)
    y = xn.clamp(min=lon)
    y.sum().backward()
    assert all(math.isnan(v) for v in y.tolist())
    assert xn.grad.tolist() == [1.0, 1.0] and lon.grad.tolist() == [1.0, 1.0]
    assert type(x.clamp(0, 1).grad_fn).__name__ == "ClampBackward1"
    assert type(x.clamp(lo, hi).grad_fn).__name__ == "ClampBackward0"


def test_one_sided_and_in_place_clamps_with_tensor_bounds():
    # Printed by torch 2.15: clamp_min/clamp_max of a tensor are ClampMin/MaxBackward1 over
    # (self, bound), the bound getting its gradient; the in-place forms back-propagate the same.
    def grads(f):
        x = torch.tensor([-2., 0.5, 2., nan], dtype=torch.float64, requires_grad=True)
        b = torch.full((4,), 0.5, dtype=torch.float64, requires_grad=True)
        y = f(x, b)
        names = [type(n[0]).__name__ if n[0] is not None else None for n in y.grad_fn.next_functions]
        y.sum().backward()
        return type(y.grad_fn).__name__, names, x.grad.tolist(), b.grad.tolist()

    ties = [0.0, 0.5, 1.0, 1.0], [1.0, 0.5, 0.0, 1.0]
    assert grads(lambda x, b: x.clamp_min(b)) == ("ClampMinBackward1", ["AccumulateGrad", "AccumulateGrad"], *ties)
    assert grads(lambda x, b: torch.clamp_max(x, b)) == ("ClampMaxBackward1", ["AccumulateGrad", "AccumulateGrad"],
                                                        [1.0, 0.5, 0.0, 1.0], [0.0, 0.5, 1.0, 1.0])
    assert grads(lambda x, b: (x * 1).clamp_(b)) == ("ClampBackward0", ["MulBackward0", "AccumulateGrad", None], *ties)
    assert grads(lambda x, b: (x * 1).clamp_min_(b)) == ("ClampMinBackward1", ["MulBackward0", "AccumulateGrad"], *ties)
    y = torch.tensor([-2., 0.5, 2.]).clamp_max_(torch.tensor([0., 0., 0.]))
    assert y.tolist() == [-2.0, 0.0, 0.0]


def test_clamp_refuses_a_number_with_a_tensor_bound():
    x = torch.tensor([-2., 0.5, 2.])
    with pytest.raises(TypeError, match=r"^clamp\(\) received an invalid combination of arguments"):
        x.clamp(min=0.5, max=torch.ones(3))
    with pytest.raises(TypeError, match=r"^clamp\(\) received an invalid combination of arguments"):
        torch.clamp(x, torch.zeros(3), 1.0)
    # A zero-dim tensor passes for a number.
    assert x.clamp(0.5, torch.tensor(1.)).tolist() == [0.5, 0.5, 1.0]


def noncontig(rows, cols, lo=-1.0, hi=1.0, seed=0):
    torch.manual_seed(seed)
    t = torch.rand(cols, rows, dtype=torch.float64) * (hi - lo) + lo
    return t.t().requires_grad_()


GRADCHECKS = [
    ("clamp", lambda x: x.clamp(-0.5, 0.5)),
    ("clamp_min", lambda x: x.clamp(min=0.1)),
    ("clip_max", lambda x: x.clip(max=-0.1)),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.5)),
    ("threshold", lambda x: F.threshold(x, 0.1, 2.0)),
    ("max", lambda x: x.max()),
    ("min_dim", lambda x: x.min(1)[0]),
    ("median", lambda x: x.median()),
    ("median_dim", lambda x: x.median(0)[0]),
    ("norm", lambda x: x.norm()),
    ("norm_p2_dim", lambda x: x.norm(p=2, dim=1)),
    ("norm_p3", lambda x: x.norm(p=3)),
    ("prod", lambda x: x.prod()),
    ("prod_dim", lambda x: x.prod(1)),
]


@pytest.mark.parametrize("name,f", GRADCHECKS, ids=[c[0] for c in GRADCHECKS])
def test_gradcheck_noncontiguous(name, f):
    x = noncontig(3, 4)
    assert not x.is_contiguous()
    assert gradcheck(f, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_gradcheck_prod_with_zeros():
    # The product is a polynomial: differentiable at zeros too (one zero and two zeros).
    for vals in ([[0.0, 0.7, -1.3], [0.4, 0.9, 1.1]], [[0.0, 0.0, -1.3], [0.0, 0.9, 1.1]]):
        x = torch.tensor(vals, dtype=torch.float64).t().contiguous().t().requires_grad_()
        assert gradcheck(lambda t: t.prod(), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradcheck(lambda t: t.prod(0), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradcheck(lambda t: t.prod(1), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


# ----- in-place activations --------------------------------------------------------------------

def test_inplace_relu_after_a_computed_tensor():
    x0 = torch.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
    x = x0 * 1
    x.relu_()
    x.sum().backward()
    assert x0.grad.tolist() == [0.0, 1.0, 0.0, 1.0]


INPLACE_OPS = ["relu_", "sigmoid_", "tanh_", "exp_", "sin_", "abs_", "neg_", "reciprocal_", "square_",
               "erf_", "expm1_", "silu_"]


@pytest.mark.parametrize("op", INPLACE_OPS)
def test_inplace_op_matches_out_of_place(op):
    torch.manual_seed(1)
    base = torch.randn(5, dtype=torch.float64)
    a = base.clone().requires_grad_()
    getattr(a * 1, op)().sum().backward()
    b = base.clone().requires_grad_()
    getattr(b * 1, op[:-1])().sum().backward()
    assert close(a.grad.tolist(), b.grad.tolist())


@pytest.mark.parametrize("fn", [
    lambda t, inplace: F.leaky_relu(t, 0.2, inplace=inplace),
    lambda t, inplace: F.elu(t, inplace=inplace),
    lambda t, inplace: F.selu(t, inplace=inplace),
    lambda t, inplace: F.celu(t, inplace=inplace),
    lambda t, inplace: F.mish(t, inplace=inplace),
    lambda t, inplace: F.hardswish(t, inplace=inplace),
    lambda t, inplace: F.hardsigmoid(t, inplace=inplace),
    lambda t, inplace: F.relu6(t, inplace=inplace),
    lambda t, inplace: F.silu(t, inplace=inplace),
], ids=["leaky_relu", "elu", "selu", "celu", "mish", "hardswish", "hardsigmoid", "relu6", "silu"])
def test_functional_inplace_matches_out_of_place(fn):
    torch.manual_seed(2)
    base = torch.randn(6, dtype=torch.float64) * 3
    grads = []
    for inplace in (False, True):
        x = base.clone().requires_grad_()
        fn(x * 1, inplace).sum().backward()
        grads.append(x.grad.tolist())
    assert close(grads[0], grads[1])


def test_inplace_negative_slopes_refused_in_backward():
    # PyTorch refuses the result-based backward of leaky_relu_/elu_ with a negative slope.
    for call, word in ((lambda t: F.leaky_relu(t, -0.2, inplace=True), "leakyReLu"),
                       (lambda t: F.elu(t, alpha=-1.0, inplace=True), "elu")):
        x = torch.randn(4, requires_grad=True)
        y = call(x * 1)
        with pytest.raises(RuntimeError, match=f"In-place {word} backward calculation is triggered with a negative slope"):
            y.sum().backward()


def test_later_inplace_write_of_a_saved_result_still_raises():
    # relu_ keeps its result; changing it afterwards is PyTorch's error, naming the versions.
    for first in ("relu_", "sigmoid_", "exp_"):
        x = torch.randn(4, requires_grad=True)
        y = x * 1
        getattr(y, first)()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation.*is at version 2; expected version 1"):
            y.sum().backward()
    x = torch.randn(4, requires_grad=True)
    y = x * 1
    y.mul_(y)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


def _modules(act):
    return [
        nn.Sequential(nn.Linear(3, 4), act()),
        nn.Sequential(nn.Conv2d(1, 2, 3), act()),
        nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), act()),
        nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), act(), nn.Linear(4, 2)),
    ]


@pytest.mark.parametrize("make", [
    lambda inplace: nn.ReLU(inplace=inplace),
    lambda inplace: nn.LeakyReLU(0.1, inplace=inplace),
    lambda inplace: nn.ELU(inplace=inplace),
], ids=["ReLU", "LeakyReLU", "ELU"])
def test_inplace_activation_modules_backpropagate(make):
    for index in range(4):
        grads = []
        for inplace in (False, True):
            torch.manual_seed(3)
            model = _modules(lambda inplace=inplace: make(inplace))[index]
            x = torch.randn(2, 3) if index in (0, 3) else torch.randn(2, 1, 5, 5)
            x.requires_grad_()
            (model(x) ** 2).sum().backward()
            grads.append([x.grad.tolist()] + [p.grad.tolist() for p in model.parameters()])
        assert close(grads[0], grads[1], 1e-5)


def test_inplace_relu_values_as_pytorch():
    # PyTorch: Linear(2, 2) with these weights, ReLU(inplace=True), sum, backward.
    lin = nn.Linear(2, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -2.0], [0.5, 0.25]]))
        lin.bias.copy_(torch.tensor([0.1, -0.1]))
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True)
    nn.ReLU(inplace=True)(lin(x)).sum().backward()
    assert x.grad.tolist() == [[0.5, 0.25], [0.0, 0.0]]
    assert lin.weight.grad.tolist() == [[0.0, 0.0], [1.0, 2.0]]
    assert lin.bias.grad.tolist() == [0.0, 1.0]
