"""The fused CPU kernels of `src/cpu/fused_pointwise.rs` (mse, smooth_l1, huber and
binary_cross_entropy_with_logits losses and
their input gradients, lerp with a scalar weight, addcmul, addcdiv: one pass each) against the
same formulas written in separate tensor ops (`REFERENCE`): equal values (within a rounding where
a parameter is rounded differently) at special points in float32 and float64, on contiguous,
transposed, sliced and broadcast operands, for every reduction, forward and backward; and
gradcheck / gradgradcheck in float64 on those layouts (operands dense in one order take the
fused kernels, the others the composite forms)."""
import math

import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck

OPS = {
    "mse": lambda a, b: F.mse_loss(a, b, reduction="none"),
    "mse_mean": lambda a, b: F.mse_loss(a, b),
    "mse_sum": lambda a, b: F.mse_loss(a, b, reduction="sum"),
    "smooth_l1": lambda a, b: F.smooth_l1_loss(a, b, reduction="none"),
    "smooth_l1_beta": lambda a, b: F.smooth_l1_loss(a, b, beta=0.3, reduction="none"),
    "smooth_l1_mean": lambda a, b: F.smooth_l1_loss(a, b, beta=0.5),
    "huber": lambda a, b: F.huber_loss(a, b, reduction="none"),
    "huber_delta": lambda a, b: F.huber_loss(a, b, delta=0.7, reduction="sum"),
    "lerp": lambda a, b: rstorch.lerp(a, b, 0.3),
    "lerp_far": lambda a, b: a.lerp(b, 0.7),
    "lerp_one": lambda a, b: a.lerp(b, 1.0),
    "addcmul": lambda a, b: rstorch.addcmul(a, b, a, value=0.5),
    "addcmul_one": lambda a, b: a.addcmul(a, b),
    "addcdiv": lambda a, b: rstorch.addcdiv(b, a, b, value=-1.5),
}


def _reduced(loss, reduction):
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


def _smooth_l1(a, b, beta=1.0, reduction="mean"):
    z = (a - b).abs()
    return _reduced(rstorch.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def _huber(a, b, delta=1.0, reduction="mean"):
    z = (a - b).abs()
    return _reduced(rstorch.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def _lerp(a, b, w):
    return a + w * (b - a) if abs(w) < 0.5 else b - (b - a) * (1 - w)


# The same formulas in separate tensor ops (no fused kernel runs inside them).
REFERENCE = {
    "mse": lambda a, b: (a - b) * (a - b),
    "mse_mean": lambda a, b: ((a - b) * (a - b)).mean(),
    "mse_sum": lambda a, b: ((a - b) * (a - b)).sum(),
    "smooth_l1": lambda a, b: _smooth_l1(a, b, reduction="none"),
    "smooth_l1_beta": lambda a, b: _smooth_l1(a, b, beta=0.3, reduction="none"),
    "smooth_l1_mean": lambda a, b: _smooth_l1(a, b, beta=0.5),
    "huber": lambda a, b: _huber(a, b, reduction="none"),
    "huber_delta": lambda a, b: _huber(a, b, delta=0.7, reduction="sum"),
    "lerp": lambda a, b: _lerp(a, b, 0.3),
    "lerp_far": lambda a, b: _lerp(a, b, 0.7),
    "lerp_one": lambda a, b: _lerp(a, b, 1.0),
    "addcmul": lambda a, b: a + (0.5 * b) * a,
    "addcmul_one": lambda a, b: a + a * b,
    "addcdiv": lambda a, b: b + (-1.5 * a) / b,
}
SPECIAL = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.0, -1.0, 0.3, -0.3, 0.7, 0.5, 1e-30,
           -1e-30, 3.0, 1e30]


def close(a, b, rel):
    assert len(a) == len(b)
    for i, (p, q) in enumerate(zip(a, b)):
        if math.isnan(q):
            assert math.isnan(p), (i, p, q)
        elif math.isinf(q):
            assert p == q, (i, p, q)
        else:
            assert abs(p - q) <= rel * abs(q), (i, p, q)


def layouts(values, dtype):
    """(4, n/4) views: contiguous, transposed, a column slice of a wider base, a broadcast row."""
    n = len(values)
    base = rstorch.tensor(values, dtype=dtype).reshape(4, n // 4)
    wide = rstorch.zeros(4, n // 2, dtype=dtype)
    wide[:, ::2] = base
    return {
        "contig": base,
        "transposed": base.t().contiguous().t(),
        "sliced": wide[:, ::2],
        "broadcast": base[:1].expand(4, n // 4),
    }


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_fused_forward_is_the_composite(name, dtype):
    f, dt = OPS[name], getattr(rstorch, dtype)
    rstorch.manual_seed(3)
    n = 4 * 16
    xs = SPECIAL + (rstorch.randn(n - len(SPECIAL), dtype=rstorch.float64) * 2).tolist()
    ys = (rstorch.randn(n, dtype=rstorch.float64) * 2).tolist()
    ys[:len(SPECIAL)] = SPECIAL[::-1]
    # Parameters rounded to float32 once (fused, as PyTorch) or after a float64 step (composite)
    # differ by a rounding; float64 keeps a few ulp for the same reason.
    rel = 4e-7 if dtype == "float32" else 1e-15
    for xl, x in layouts(xs, dt).items():
        for yl, y in layouts(ys, dt).items():
            fused = f(x, y)
            composite = REFERENCE[name](x, y)
            recorded = f(x.detach().requires_grad_(), y)
            assert recorded.grad_fn is not None and fused.grad_fn is None
            assert rstorch.equal(recorded.detach(), fused) or fused.isnan().any()
            assert fused.shape == composite.shape and fused.dtype == composite.dtype
            try:
                close(fused.reshape(-1).tolist(), composite.detach().reshape(-1).tolist(), rel)
            except AssertionError as e:
                raise AssertionError(f"{name} {dtype} x {xl} y {yl}") from e


def test_no_grad_takes_the_fused_forward_for_tensors_needing_grad():
    a, b = rstorch.randn(8, 5, requires_grad=True), rstorch.randn(8, 5)
    with rstorch.no_grad():
        out = F.smooth_l1_loss(a, b)
    assert out.grad_fn is None and not out.requires_grad
    assert rstorch.equal(out, F.smooth_l1_loss(a.detach(), b))


def test_fused_forward_falls_back_for_other_dtypes_and_shapes():
    a = rstorch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=rstorch.float16)
    assert F.mse_loss(a, a * 0, reduction="sum").item() == 30.0
    assert F.mse_loss(rstorch.ones(2, 3), rstorch.zeros(3), reduction="sum").item() == 6.0
    assert rstorch.ones(2, 3).lerp(rstorch.zeros(3), 0.25).tolist() == [[0.75] * 3] * 2
    assert rstorch.ones(2, 3).addcmul(rstorch.ones(3), rstorch.full((2, 1), 2.0)).tolist() == [[3.0] * 3] * 2
    with pytest.raises(RuntimeError):
        rstorch.lerp(rstorch.rand(2), rstorch.rand(2, dtype=rstorch.float64), 0.5)


@pytest.mark.parametrize("name", ["mse", "mse_mean", "smooth_l1", "smooth_l1_beta", "smooth_l1_mean", "huber",
                                  "huber_delta", "lerp", "lerp_far", "addcmul", "addcdiv"])
def test_gradcheck_on_layouts(name):
    f = OPS[name]
    rstorch.manual_seed(4)
    base = rstorch.rand(3, 4, dtype=rstorch.float64) * 2 + 0.5
    other = rstorch.rand(4, 3, dtype=rstorch.float64) * 2 + 0.5
    row = rstorch.rand(1, 4, dtype=rstorch.float64) * 2 + 0.5
    # The broadcast operand is expanded inside the function: gradcheck cannot perturb one
    # element of an expanded input alone.
    dense = rstorch.rand(3, 4, dtype=rstorch.float64) * 2 + 0.5
    # The first two pairs are dense in one order (the fused kernels), the rest are not.
    cases = [(f, base, dense), (f, other.t(), dense.t().contiguous().t()), (f, base, other.t()),
             (lambda a, r: f(a, r.expand(3, 4)), other.t(), row), (f, base[:, ::2], other[:3, :2])]
    for g, a, b in cases:
        a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
        assert gradcheck(g, (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(g, (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["mse", "mse_mean", "mse_sum", "smooth_l1", "smooth_l1_beta", "smooth_l1_mean",
                                  "huber", "huber_delta", "lerp", "lerp_far"])
def test_fused_backward_is_the_composite(name, dtype):
    f, dt = OPS[name], getattr(rstorch, dtype)
    rstorch.manual_seed(5)
    n = 4 * 16
    # Away from the kinks (|x - y| = beta or delta), where one rounding may pick another side.
    xs = (rstorch.randn(n, dtype=rstorch.float64) * 2).tolist()
    ys = (rstorch.randn(n, dtype=rstorch.float64) * 2).tolist()
    ys = [y if min(abs(abs(x - y) - k) for k in (0.3, 0.5, 0.7, 1.0)) > 1e-3 else y + 0.01 for x, y in zip(xs, ys)]
    rel = 1e-5 if dtype == "float32" else 1e-12
    for xl, x in layouts(xs, dt).items():
        for yl, y in layouts(ys, dt).items():
            grads = []
            for g in (f, REFERENCE[name]):
                a, b = x.detach().requires_grad_(), y.detach().requires_grad_()
                out = g(a, b)
                seed = rstorch.linspace(-2, 3, out.numel(), dtype=dt).reshape(out.shape)
                out.backward(seed)
                grads.append((a.grad, b.grad))
            for got, want in zip(grads[0], grads[1]):
                assert got.shape == want.shape and got.dtype == want.dtype
                try:
                    for p, q in zip(got.reshape(-1).tolist(), want.reshape(-1).tolist()):
                        assert abs(p - q) <= rel * max(abs(q), 1.0), (p, q)
                except AssertionError as e:
                    raise AssertionError(f"{name} {dtype} x {xl} y {yl}") from e


def test_recorded_nodes_keep_pytorchs_names():
    a, b = rstorch.randn(3, 4, requires_grad=True), rstorch.randn(3, 4)
    assert F.mse_loss(a, b).grad_fn.name() == "MseLossBackward0"
    assert F.smooth_l1_loss(a, b, reduction="none").grad_fn.name() == "SmoothL1LossBackward0"
    assert F.huber_loss(a.t(), b.t()).grad_fn.name() == "HuberLossBackward0"
    assert rstorch.lerp(a, b, 0.25).grad_fn.name() == "LerpBackward0"
    assert rstorch.lerp(b, a, 0.75).grad_fn.name() == "LerpBackward0"


def test_fused_result_keeps_the_operands_layout():
    a, b = rstorch.randn(5, 3).t(), rstorch.randn(5, 3).t()
    for out in (rstorch.lerp(a, b, 0.3), F.mse_loss(a, b, reduction="none"), rstorch.addcmul(a, a, b)):
        assert out.shape == (3, 5) and out.stride() == (1, 3)


def _softplus(v):
    """log(1 + e^v) in float64, without overflow."""
    return max(v, 0.0) + math.log1p(math.exp(-abs(v)))


def _bce_reference(x, y):
    """(1 - y) x + log(1 + e^-x) and its size (the sum of the terms' magnitudes, against which
    the rounding of either term counts), in float64."""
    if math.isnan(x) or math.isnan(y):
        return math.nan, 0.0
    if math.isinf(x):
        a = (1 - y) * x
        return a + _softplus(-x), 0.0
    a, b = (1 - y) * x, _softplus(-x)
    return a + b, abs(a) + abs(b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bce_with_logits_fused_forward(dtype):
    """The unweighted loss in one pass: the float64 formula's value within a few roundings of
    its terms at special points and on every layout; the recorded node computes the same."""
    dt = getattr(rstorch, dtype)
    rstorch.manual_seed(6)
    n = 4 * 16
    xs = SPECIAL + (rstorch.randn(n - len(SPECIAL), dtype=rstorch.float64) * 8).tolist()
    ys = rstorch.rand(n, dtype=rstorch.float64).tolist()
    ys[:4] = [0.0, 1.0, 0.25, 1.0]
    tol = 5e-7 if dtype == "float32" else 1e-15
    for xl, x in layouts(xs, dt).items():
        for yl, y in layouts(ys, dt).items():
            fused = F.binary_cross_entropy_with_logits(x, y, reduction="none")
            recorded = F.binary_cross_entropy_with_logits(x.detach().requires_grad_(), y, reduction="none")
            assert recorded.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0" and fused.grad_fn is None
            assert rstorch.equal(recorded.detach(), fused) or fused.isnan().any()
            assert fused.dtype == dt and fused.shape == x.shape
            for p, a, b in zip(fused.reshape(-1).tolist(), x.reshape(-1).tolist(), y.reshape(-1).tolist()):
                want, size = _bce_reference(a, b)
                if math.isnan(want):
                    assert math.isnan(p), (xl, yl, a, b, p)
                elif math.isinf(want):
                    assert p == want, (xl, yl, a, b, p)
                else:
                    assert abs(p - want) <= tol * size + 1e-300, (xl, yl, a, b, p, want)
            for red in ("mean", "sum"):
                got = F.binary_cross_entropy_with_logits(x, y, reduction=red)
                assert rstorch.equal(got, getattr(fused, red)()) or got.isnan().item()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bce_with_logits_fused_backward(dtype):
    """The input gradient (sigmoid(x) - y) g in one pass and the target's -x g, against the
    formulas in float64 and against create_graph's composite."""
    dt = getattr(rstorch, dtype)
    rstorch.manual_seed(7)
    n = 4 * 16
    xs = (rstorch.randn(n, dtype=rstorch.float64) * 6).tolist()
    ys = rstorch.rand(n, dtype=rstorch.float64).tolist()
    rel = 2e-6 if dtype == "float32" else 1e-14
    for xl, x in layouts(xs, dt).items():
        for yl, y in layouts(ys, dt).items():
            got = []
            for create_graph in (False, True):
                a, b = x.detach().requires_grad_(), y.detach().requires_grad_()
                out = F.binary_cross_entropy_with_logits(a, b, reduction="none")
                seed = rstorch.linspace(-2, 3, out.numel(), dtype=dt).reshape(out.shape)
                got.append(rstorch.autograd.grad(out, (a, b), seed, create_graph=create_graph))
            seed = rstorch.linspace(-2, 3, n, dtype=rstorch.float64).tolist()
            xv, yv = x.reshape(-1).tolist(), y.reshape(-1).tolist()
            want_x = [(1 / (1 + math.exp(-a)) - b) * g for a, b, g in zip(xv, yv, seed)]
            want_y = [-a * g for a, g in zip(xv, seed)]
            for gx, gy in got:
                assert gx.dtype == dt and gy.dtype == dt
                for p, q in zip(gx.reshape(-1).tolist(), want_x):
                    assert abs(p - q) <= rel * max(abs(q), 1.0), (xl, yl, p, q)
                for p, q in zip(gy.reshape(-1).tolist(), want_y):
                    assert abs(p - q) <= rel * max(abs(q), 1.0), (xl, yl, p, q)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_with_logits_gradcheck_on_layouts(reduction):
    rstorch.manual_seed(8)
    f = lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction)  # noqa: E731
    base = rstorch.randn(3, 4, dtype=rstorch.float64) * 3
    other = rstorch.randn(4, 3, dtype=rstorch.float64) * 3
    dense = rstorch.rand(3, 4, dtype=rstorch.float64)
    # The first two pairs are dense in one order (the fused kernels), the others are not.
    cases = [(base, dense), (other.t(), dense.t().contiguous().t()), (base, dense.t().contiguous().t()),
             (rstorch.randn(3, 8, dtype=rstorch.float64)[:, ::2], dense)]
    for a, b in cases:
        a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
        assert gradcheck(f, (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(f, (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)
