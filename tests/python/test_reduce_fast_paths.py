"""The fast paths of issue 23's reductions, selections and shape ops against the results their
slow forms give: topk by partial selection (sorted, ties by index, NaN largest, as a stable
sort's first k), full reductions of transposed inputs read in memory order, flip of a permuted
input, tril/triu masks, a view's gradient kept without a copy; with gradcheck and gradgradcheck
in float64 on contiguous, transposed and broadcast inputs."""
import numpy as np
import pytest

import rstorch as torch
from rstorch.autograd import gradcheck, gradgradcheck


def stable_topk(a, k, dim, largest):
    """The first k of a stable sort along dim, NaN above every number: values and indices."""
    b = np.moveaxis(a, dim, -1).astype(np.float64)
    nan = np.isnan(b)
    val = np.where(nan, 0.0, b)
    # lexsort is stable and sorts by its last key first.
    order = np.lexsort((-val, ~nan), axis=-1) if largest else np.lexsort((val, nan), axis=-1)
    order = order[..., :k]
    values = np.take_along_axis(np.moveaxis(a, dim, -1), order, -1)
    return np.moveaxis(values, -1, dim), np.moveaxis(order, -1, dim)


@pytest.mark.parametrize("k", [1, 3, 8, 32, 33, 70, 100])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("transposed", [False, True])
def test_topk_is_a_stable_sorts_first_k_with_ties_and_nans(k, largest, transposed):
    rng = np.random.default_rng(k)
    a = rng.integers(-4, 5, size=(6, 100)).astype(np.float32)
    a[rng.random(a.shape) < 0.05] = np.nan
    a[0, :50] = 0.0
    a[0, 50:] = -0.0
    x = torch.tensor(a)
    if transposed:
        x = torch.tensor(np.ascontiguousarray(a.T)).t()
    for dim in (1, -1):
        v, i = x.topk(k, dim=dim, largest=largest)
        wv, wi = stable_topk(a, k, 1, largest)
        np.testing.assert_array_equal(i.numpy(), wi)
        np.testing.assert_array_equal(v.numpy(), wv)
    # Along dim 0 of the transpose: lanes strided in memory.
    v, i = x.t().topk(min(k, 6), dim=0, largest=largest)
    wv, wi = stable_topk(a.T, min(k, 6), 0, largest)
    np.testing.assert_array_equal(i.numpy(), wi)
    np.testing.assert_array_equal(v.numpy(), wv)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64", "float16"])
def test_topk_dtypes(dtype):
    a = np.array([[3, 1, 3, 2, 5, 5, 0], [1, 1, 1, 1, 1, 1, 1]], dtype=dtype)
    x = torch.tensor(a)
    for largest in (True, False):
        v, i = x.topk(4, largest=largest)
        wv, wi = stable_topk(a, 4, 1, largest)
        assert str(v.dtype) == f"torch.{dtype}" or str(v.dtype).endswith(dtype)
        np.testing.assert_array_equal(i.numpy(), wi)
        np.testing.assert_array_equal(v.numpy(), wv)


def test_topk_edges():
    x = torch.tensor([[2.0, 1.0]])
    assert x.topk(0).values.shape == (1, 0)
    assert x.topk(2).indices.tolist() == [[0, 1]]
    assert torch.tensor(5.0).topk(1).values.item() == 5.0
    with pytest.raises(RuntimeError):
        x.topk(3)


def test_topk_gradients():
    base = torch.randn(5, 9, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.topk(3, dim=1).values, (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradcheck(lambda t: t.t().topk(2, dim=1).values, (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(lambda t: t.t().topk(2, dim=0, largest=False).values, (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
    row = torch.randn(1, 9, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.expand(4, 9).topk(4, dim=1).values, (row,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("shape,perm", [((64, 48), (1, 0)), ((5, 6, 7), (2, 0, 1)), ((3, 1, 4), (1, 2, 0))])
def test_full_reductions_of_permuted_inputs(shape, perm):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(np.float32)
    a.flat[3] = np.nan if len(shape) == 3 else a.flat[3]
    x = torch.tensor(a).permute(*perm)
    p = np.transpose(a, perm)
    assert x.amax().tolist() == pytest.approx(float(np.max(p)), nan_ok=True)
    assert x.amin().tolist() == pytest.approx(float(np.min(p)), nan_ok=True)
    np.testing.assert_allclose(x.sum().item(), np.sum(p.astype(np.float64)), rtol=1e-5)
    finite = torch.tensor(np.nan_to_num(a)).permute(*perm)
    assert (finite > -10).all().item() is True
    assert (finite > 10).all().item() is False
    assert (finite > 0).any().item() is True
    np.testing.assert_allclose(finite.norm().item(), np.linalg.norm(np.nan_to_num(a).astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(finite.std().item(), np.std(np.nan_to_num(a).astype(np.float64), ddof=1), rtol=1e-4)
    # A narrowed (not dense) transpose still reduces right, through a copy.
    np.testing.assert_allclose(x[..., 1:].sum().item(), np.sum(p[..., 1:].astype(np.float64)), rtol=1e-5)


def test_full_reductions_gradients_on_transposed_and_broadcast():
    base = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    row = torch.randn(1, 5, dtype=torch.float64, requires_grad=True)
    for f in (lambda t: t.sum(), lambda t: t.norm(), lambda t: t.std(), lambda t: t.amax(), lambda t: t.prod()):
        assert gradcheck(lambda t: f(t.t()), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(lambda t: f(t.t()), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradcheck(lambda t: f(t.expand(3, 5)), (row,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), (-1,)])
def test_flip_of_transposed_and_permuted(dims):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = torch.tensor(np.ascontiguousarray(a.T)).t()
    np.testing.assert_array_equal(x.flip(dims).numpy(), np.flip(a, dims))
    b = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    y = torch.tensor(b).permute(2, 0, 1)
    np.testing.assert_array_equal(y.flip(dims).numpy(), np.flip(np.transpose(b, (2, 0, 1)), dims))
    # PyTorch keeps a transposed input's memory order.
    assert x.flip(dims).stride() == (1, 4)
    base = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.t().flip(dims), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(lambda t: t.t().flip(dims), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("diagonal", [-(2**62), -7, -6, -2, 0, 1, 4, 5, 9, 2**62])
def test_tril_triu_masks(diagonal):
    a = np.arange(1, 31, dtype=np.float64).reshape(6, 5)
    x = torch.tensor(a)
    np.testing.assert_array_equal(x.tril(diagonal).numpy(), np.tril(a, diagonal))
    np.testing.assert_array_equal(x.triu(diagonal).numpy(), np.triu(a, diagonal))
    np.testing.assert_array_equal(x.t().tril(diagonal).numpy(), np.tril(a.T, diagonal))
    if abs(diagonal) < 10:
        base = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
        assert gradcheck(lambda t: t.t().tril(diagonal), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(lambda t: t.triu(diagonal), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)
        row = torch.randn(1, 5, dtype=torch.float64, requires_grad=True)
        assert gradcheck(lambda t: t.expand(6, 5).tril(diagonal), (row,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_a_views_gradient_is_kept_without_a_copy_as_in_pytorch():
    """PyTorch's AccumulateGrad keeps a gradient no other handle holds, even when it views the
    caller's tensor: x.reshape(-1).backward(g) leaves x.grad on g's memory."""
    x = torch.randn(4, 3, requires_grad=True)
    g = torch.ones(12)
    x.reshape(-1).backward(g)
    assert x.grad.data_ptr() == g.data_ptr()
    assert x.grad.shape == (4, 3)
