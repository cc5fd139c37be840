"""addmm as one op (its own kernel and backward), and linear and inner built on the products:
values against NumPy, gradients in float64, PyTorch's errors."""
import numpy as np
import pytest

import rstorch as torch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck


def f64(*shape, grad=True):
    return (torch.rand(*shape, dtype=torch.float64) * 0.8 + 0.1).requires_grad_(grad)


@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (3, 1), (3, 5), ()])
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1), (2, 0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_addmm_values(bias_shape, beta, alpha, dtype):
    torch.manual_seed(0)
    bias, m1, m2 = torch.rand(*bias_shape, dtype=dtype), torch.rand(3, 4, dtype=dtype), torch.rand(4, 5, dtype=dtype)
    got = torch.addmm(bias, m1, m2, beta=beta, alpha=alpha)
    want = beta * bias.numpy() + alpha * (m1.numpy().astype(np.float64) @ m2.numpy())
    assert got.shape == (3, 5) and got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    # Strided operands (transposed, sliced) read in place.
    a, b = torch.rand(4, 3, dtype=dtype).t(), torch.rand(5, 8, dtype=dtype)[:, ::2].t()
    got = torch.addmm(bias, a, b, beta=beta, alpha=alpha)
    np.testing.assert_allclose(got.numpy(), beta * bias.numpy() + alpha * (a.numpy() @ b.numpy()), rtol=1e-5, atol=1e-6)


def test_addmm_beta_zero_ignores_the_input():
    out = torch.addmm(torch.full((5,), float("nan")), torch.ones(3, 4), torch.ones(4, 5), beta=0)
    assert out.tolist() == [[4.0] * 5] * 3


def test_addmm_other_dtypes_and_empty():
    i = torch.addmm(torch.ones(5, dtype=torch.int64), torch.ones(3, 4, dtype=torch.int64),
                    torch.ones(4, 5, dtype=torch.int64), beta=2, alpha=3)
    assert i.dtype == torch.int64 and i.tolist() == [[14] * 5] * 3
    h = torch.addmm(torch.ones(5, dtype=torch.float16), torch.ones(3, 4, dtype=torch.float16),
                    torch.ones(4, 5, dtype=torch.float16))
    assert h.dtype == torch.float16 and h.tolist() == [[5.0] * 5] * 3
    assert torch.addmm(torch.ones(5), torch.ones(3, 0), torch.ones(0, 5), beta=2).tolist() == [[2.0] * 5] * 3
    assert torch.addmm(torch.ones(5), torch.ones(0, 4), torch.ones(4, 5)).shape == (0, 5)


def test_addmm_errors():
    with pytest.raises(RuntimeError, match=r"^addmm: mat1 and mat2 shapes cannot be multiplied \(3x4 and 3x5\)$"):
        torch.addmm(torch.ones(5), torch.ones(3, 4), torch.ones(3, 5))
    with pytest.raises(RuntimeError, match=r"^addmm: self must be a matrix, got 3-D tensor$"):
        torch.addmm(torch.ones(5), torch.ones(3, 4, 1), torch.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"^addmm: mat2 must be a matrix, got 1-D tensor$"):
        torch.addmm(torch.ones(5), torch.ones(3, 4), torch.ones(4))
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(5\) must match the existing size \(4\)"):
        torch.addmm(torch.ones(4), torch.ones(3, 4), torch.ones(4, 5))
    with pytest.raises(RuntimeError, match="^self and mat2 must have the same dtype, but got Float and Double$"):
        torch.addmm(torch.ones(5), torch.ones(3, 4), torch.ones(4, 5, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="^self and mat2 must have the same dtype, but got Double and Float$"):
        torch.addmm(torch.ones(5, dtype=torch.float64), torch.ones(3, 4), torch.ones(4, 5))


@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (3, 1), (3, 5), ()])
def test_addmm_gradients(bias_shape):
    torch.manual_seed(1)
    f = lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=-2.0)
    # contiguous; transposed (non-contiguous) matrices; the bias broadcast
    for c, a, b in [(f64(*bias_shape), f64(3, 4), f64(4, 5)),
                    (f64(*bias_shape), f64(4, 3), f64(5, 4))]:
        g = (lambda c, a, b: f(c, a.t(), b.t())) if a.shape == (4, 3) else f
        assert gradcheck(g, (c, a, b))
        assert gradgradcheck(g, (c, a, b))
    # Only some inputs need a gradient.
    c, b = f64(*bias_shape, grad=False), f64(4, 5, grad=False)
    assert gradcheck(lambda a: f(c, a, b), (f64(3, 4),))
    out = torch.addmm(f64(*bias_shape), f64(3, 4), f64(4, 5))
    assert type(out.grad_fn).__name__ == "AddmmBackward0" and len(out.grad_fn.next_functions) == 3


def test_linear_gradients_and_values():
    torch.manual_seed(2)
    for shape in [(3, 4), (2, 3, 4), (4,)]:
        x, w, b = f64(*shape), f64(5, 4), f64(5)
        want = x.detach().numpy() @ w.detach().numpy().T + b.detach().numpy()
        np.testing.assert_allclose(F.linear(x, w, b).detach().numpy(), want, rtol=1e-12)
        assert gradcheck(F.linear, (x, w, b))
        assert gradgradcheck(F.linear, (x, w, b))
        assert gradcheck(F.linear, (x, w))
    # A transposed input and weight, and a broadcast input.
    assert gradcheck(lambda x, w, b: F.linear(x.t(), w.t(), b), (f64(4, 3), f64(4, 5), f64(5)))
    assert gradcheck(lambda x, w, b: F.linear(x.expand(2, 3, 4), w, b), (f64(3, 1), f64(5, 4), f64(5)))


def test_inner():
    torch.manual_seed(3)
    a, b = torch.rand(2, 3, 4), torch.rand(5, 4)
    np.testing.assert_allclose(a.inner(b).numpy(), np.inner(a.numpy(), b.numpy()), rtol=1e-5)
    assert torch.inner(torch.tensor(2.0), torch.ones(3)).tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match=r"inner\(\) the last dimension must match on both input tensors but got "
                                           r"shapes \[2, 3\] and \[2, 4\]"):
        torch.ones(2, 3).inner(torch.ones(2, 4))
    assert gradcheck(torch.inner, (f64(4), f64(4)))
    assert gradcheck(lambda x, y: x.t().inner(y), (f64(3, 4), f64(2, 3)))
    assert gradgradcheck(torch.inner, (f64(2, 3), f64(3)))


def test_number_first_operators():
    for f in [lambda t: 2 ** t, lambda t: 1 - t, lambda t: 3 / t, lambda t: t.remainder(0.3)]:
        assert gradcheck(f, (f64(3, 4),))
        assert gradgradcheck(f, (f64(4, 3).t(),))
    # 1 / t on integers is a float, as in PyTorch.
    r = 1 / torch.arange(1, 4)
    assert r.dtype == torch.float32 and np.allclose(r.numpy(), [1, 0.5, 1 / 3])


def test_matrix_gradients_take_the_layout_of_transposed_operands():
    # As in PyTorch: the gradient of a product operand stored transposed (a weight used as w.t())
    # is transposed too, so the tensor behind it gets a contiguous gradient without a copy.
    torch.manual_seed(4)
    w, x, b = torch.randn(3, 4, requires_grad=True), torch.randn(5, 4), torch.randn(3, requires_grad=True)
    for product in [lambda wt: x @ wt, lambda wt: torch.addmm(b, x, wt), lambda wt: torch.mm(x, wt)]:
        w.grad = None
        wt, seen = w.t(), []
        wt.register_hook(lambda g: seen.append(g.stride()))
        product(wt).sum().backward()
        assert seen == [(1, 4)]
        assert w.grad.stride() == (4, 1)
        np.testing.assert_allclose(w.grad.numpy(), np.tile(x.numpy().sum(0), (3, 1)), rtol=1e-5)
    xt = torch.randn(4, 5, requires_grad=True)
    v, seen = xt.t(), []
    v.register_hook(lambda g: seen.append(g.stride()))
    (v @ w.t()).sum().backward()
    assert seen == [(1, 5)]
    np.testing.assert_allclose(xt.grad.numpy(), np.tile(w.detach().numpy().sum(0)[:, None], (1, 5)), rtol=1e-5)
    # A plain (contiguous) operand keeps the plain layout.
    w2 = torch.randn(4, 3, requires_grad=True)
    seen.clear()
    w2.register_hook(lambda g: seen.append(g.stride()))
    (x @ w2).sum().backward()
    assert seen == [(3, 1)]
    assert gradcheck(lambda a, m: a @ m.t(), (f64(5, 4), f64(3, 4)))
    bias = f64(3, grad=False)
    assert gradgradcheck(lambda a, m: torch.addmm(bias, a.t(), m.t()), (f64(4, 5), f64(3, 4)))
