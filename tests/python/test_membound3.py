"""Issue 23 item 3, third round. cumprod's gradient where the input holds zeros (it was NaN,
0/0 of the `reverse_cumsum(g * y) / x` formula), against its definition
`grad_k = sum over j >= k of g_j * prod(x_i for i <= j, i != k)` computed here in float64, with
gradcheck and gradgradcheck in float64 on contiguous, transposed and broadcast inputs; the clamp
and hardtanh semantics their one-pass kernels keep (ties, NaN, min > max), as PyTorch 2.15 gives
them; and masked_select / `x[mask]` / `where` with a number on the paths made faster."""
import math

import numpy as np
import pytest

import rstorch as torch
from rstorch.autograd import gradcheck, gradgradcheck


def definition(x, g, dim):
    """cumprod's input gradient by its definition, lane by lane (float64 numpy)."""
    x, g = np.moveaxis(np.asarray(x, np.float64), dim, -1), np.moveaxis(np.asarray(g, np.float64), dim, -1)
    out = np.zeros_like(x)
    for lane in np.ndindex(x.shape[:-1]):
        xs, gs = x[lane], g[lane]
        n = len(xs)
        for k in range(n):
            out[lane + (k,)] = sum(gs[j] * math.prod(xs[i] for i in range(j + 1) if i != k) for j in range(k, n))
    return np.moveaxis(out, -1, dim)


LANES = {
    "one zero": [2.0, 0.0, 3.0, 0.5, -1.5],
    "two zeros": [2.0, 0.0, 3.0, 0.0, 5.0],
    "zero first": [0.0, 2.0, -3.0, 0.5, 1.5],
    "zero last": [1.5, 2.0, -3.0, 0.5, 0.0],
    "all zeros": [0.0, 0.0, 0.0, 0.0, 0.0],
    "no zero": [1.5, -2.0, 0.75, 3.0, -0.5],
}


def _matrix():
    # 12 lanes of 5: more than the kernel scans side by side (8), so both of its loops run.
    lanes = np.array(list(LANES.values()))
    return np.concatenate([lanes, -0.5 * lanes[::-1]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
def test_gradient_matches_the_definition(dtype, dim, transposed, create_graph):
    m = _matrix()
    dt = getattr(torch, dtype)
    # Transposed: m's values in a non-contiguous view.
    x = (torch.tensor(m.T.copy(), dtype=dt).t() if transposed else torch.tensor(m, dtype=dt)).requires_grad_()
    assert x.is_contiguous() != transposed
    g = np.random.default_rng(0).uniform(-2.0, 2.0, m.shape)
    y = x.cumprod(dim)
    (got,) = torch.autograd.grad([y], [x], [torch.tensor(g, dtype=x.dtype)], create_graph=create_graph)
    want = definition(m, g, dim)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(got.detach().numpy().astype(np.float64), want, rtol=tol, atol=tol)


def test_pytorchs_numbers():
    # PyTorch 2.15: x = [2, 0, 3, 0, 5], grad of cumprod against 1..5 is [1, 22, 0, 0, 0].
    x = torch.tensor([2.0, 0.0, 3.0, 0.0, 5.0], dtype=torch.float64, requires_grad=True)
    x.cumprod(0).backward(torch.arange(1.0, 6.0, dtype=torch.float64))
    assert x.grad.tolist() == [1.0, 22.0, 0.0, 0.0, 0.0]


def test_float16_takes_the_tensor_formula():
    m = _matrix()
    x = torch.tensor(m, dtype=torch.float16, requires_grad=True)
    x.cumprod(1).backward(torch.ones(m.shape, dtype=torch.float16))
    want = definition(m, np.ones(m.shape), 1)
    np.testing.assert_allclose(x.grad.to(torch.float64).numpy(), want, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dim", [0, 1])
def test_gradcheck_and_gradgradcheck_with_zeros(dim):
    m = torch.tensor(_matrix(), dtype=torch.float64)
    contiguous = m.clone().requires_grad_()
    transposed = m.t().contiguous().t().requires_grad_()  # non-contiguous
    assert not transposed.is_contiguous()
    row = torch.tensor([[2.0, 0.0, 3.0, 0.0, 5.0]], dtype=torch.float64, requires_grad=True)
    for x, f in [
        (contiguous, lambda v: v.cumprod(dim)),
        (transposed, lambda v: v.cumprod(dim)),
        (row, lambda v: v.expand(4, 5).cumprod(dim)),  # broadcast input
    ]:
        assert gradcheck(f, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(f, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_clamp_semantics_of_the_one_pass_kernel():
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([-0.0, 0.0, float("nan"), 1.0, -3.0] * 7, dtype=dtype)  # past one vector
        # A tie keeps the value: clamp(-0.0, min=0.0) is -0.0, clamp(0.0, max=-0.0) is 0.0.
        lo = x.clamp(min=0.0)
        assert [math.copysign(1.0, v) for v in lo[:2].tolist()] == [-1.0, 1.0]
        hi = x.clamp(max=-0.0)
        assert [math.copysign(1.0, v) for v in hi[:2].tolist()] == [-1.0, 1.0]
        assert math.isnan(lo[2].item()) and math.isnan(x.clamp(-1.0, 1.0)[2].item())
        # min > max: max everywhere but NaN.
        assert x.clamp(2.0, 1.0).tolist()[:2] == [1.0, 1.0]
        # A NaN bound: NaN everywhere.
        assert all(math.isnan(v) for v in x.clamp(min=float("nan")).tolist())
        t = x.reshape(5, 7).t()  # a transposed view: the same values in its order
        assert t.clamp(-1.0, 0.5).t().reshape(-1).tolist()[3:5] == [0.5, -1.0]
        assert x.clamp_min(0.5).tolist()[3:5] == [1.0, 0.5]
        assert x.clamp_max(0.5).tolist()[3:5] == [0.5, -3.0]


def test_hardtanh_gradient_passes_nan_but_not_bounds():
    # PyTorch 2.15: hardtanh's gradient at [-2, -1, 0, 0.5, 1, 3, nan] is [0, 0, 1, 1, 0, 0, 1];
    # clamp's stops at NaN too: [0, 0, 1, 1, 0, 0, 0].
    values = [-2.0, -1.0, 0.0, 0.5, 1.0, 3.0, float("nan")]
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor(values * 5, dtype=dtype, requires_grad=True)
        torch.nn.functional.hardtanh(x).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0] * 5
        x.grad = None
        x.clamp(-1.0, 1.0).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0] * 5
        x.grad = None
        torch.nn.functional.relu6(x * 3).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0, 3.0, 3.0, 0.0, 3.0] * 5


def test_hardtanh_gradcheck_strided():
    x = (torch.rand(6, 5, dtype=torch.float64) * 4 - 2).t().requires_grad_()
    assert gradcheck(lambda v: torch.nn.functional.hardtanh(v, -0.5, 0.7), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(lambda v: torch.nn.functional.hardtanh(v, -0.5, 0.7), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_masked_select_and_mask_index_gradients_on_strided_inputs():
    base = torch.arange(20.0, dtype=torch.float64).reshape(4, 5)
    mask = torch.tensor([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 0, 0], [0, 1, 0, 1], [1, 0, 0, 1]], dtype=torch.bool)
    want_values = [v for v, m in zip(base.t().reshape(-1).tolist(), mask.reshape(-1).tolist()) if m]
    for f, node in [(lambda v: v.masked_select(mask), "MaskedSelectBackward0"), (lambda v: v[mask], "IndexBackward0")]:
        x = base.clone().requires_grad_()
        y = f(x.t())
        assert y.tolist() == want_values
        assert y.grad_fn.name() == node
        y.backward(torch.arange(1.0, y.numel() + 1, dtype=torch.float64))
        # Each selected element of x.t() gets its rank among the selected, 1-based.
        want = np.zeros((5, 4))
        want[mask.numpy()] = np.arange(1, y.numel() + 1)
        np.testing.assert_array_equal(x.grad.numpy(), want.T)
        assert gradcheck(f, (base.t().clone().requires_grad_(),), eps=1e-6, atol=1e-5, rtol=1e-3)
    # A mask broadcast over self: positions repeat.
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    m2 = torch.tensor([[True, False, True], [True, True, False]])
    y = x.masked_select(m2)
    assert y.tolist() == [1.0, 3.0, 1.0, 2.0]
    y.backward(torch.tensor([1.0, 10.0, 100.0, 1000.0], dtype=torch.float64))
    assert x.grad.tolist() == [101.0, 1000.0, 10.0]


def test_where_and_masked_fill_with_numbers():
    x = torch.tensor(np.linspace(-2, 2, 37), dtype=torch.float32)
    m = x > 0.3
    xs = x.tolist()
    assert x.masked_fill(m, 0.0).tolist() == [0.0 if v > 0.3 else v for v in xs]
    assert torch.where(m, x, -1.0).tolist() == [v if v > 0.3 else -1.0 for v in xs]
    assert torch.where(m, 5.0, x).tolist() == [5.0 if v > 0.3 else v for v in xs]
    assert torch.where(m, 5.0, -1.0).tolist() == [5.0 if v > 0.3 else -1.0 for v in xs]
    xt = x[:36].reshape(6, 6).t()
    assert xt.masked_fill(xt > 0.3, 0.0).tolist() == [[0.0 if v > 0.3 else v for v in row] for row in xt.tolist()]
