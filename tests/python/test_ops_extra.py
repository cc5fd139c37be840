"""frac, lerp, addcmul, addcdiv, median, kthvalue, broadcast_to, tile, diag, diagonal, trace,
take and the stacking functions: values against NumPy (several shapes and dtypes, strided
inputs), gradients (gradcheck and gradgradcheck in float64 on contiguous, transposed, sliced and
broadcast inputs), PyTorch's errors, views and in-place forms."""
import numpy as np
import pytest

import rstorch as torch
from rstorch.autograd import gradcheck, gradgradcheck


def rnd(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def t64(*shape, seed=0):
    return torch.tensor(rnd(*shape, seed=seed), requires_grad=True)


def close(got, want, tol=1e-6):
    np.testing.assert_allclose(got.detach().numpy().astype(np.float64), np.asarray(want, dtype=np.float64),
                               rtol=tol, atol=tol, equal_nan=True)


def variants(*shape, seed=0):
    """The same float64 values as a contiguous tensor, a transposed view and a strided slice,
    each requiring grad (NumPy copies alongside)."""
    base = rnd(*shape, seed=seed)
    out = [(torch.tensor(base, requires_grad=True), base)]
    tr = torch.tensor(base.T.copy(), requires_grad=True)
    out.append((tr.t() if len(shape) == 2 else tr, base))
    wide = np.repeat(base, 2, axis=-1)
    sl = torch.tensor(wide, requires_grad=True)
    out.append((sl[..., ::2], base))
    return out


def check_grads(f, *inputs):
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


# ----- frac -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_frac_values(dtype):
    x = rnd(3, 5) * 4
    t = torch.tensor(x).to(dtype)
    xs = t.double().numpy()
    close(t.frac(), xs - np.trunc(xs), 1e-3)
    assert t.frac().dtype == dtype
    close(torch.frac(t.t()), (xs - np.trunc(xs)).T, 1e-3)
    assert torch.tensor([-1.5, 2.25, -0.0]).frac().tolist() == [-0.5, 0.25, 0.0]


def test_frac_rejects_integers_and_grads():
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        torch.tensor([1, 2]).frac()
    for x, _ in variants(3, 4):
        check_grads(lambda a: a.frac(), x)


def test_frac_in_place():
    x = torch.tensor([1.25, -2.5])
    v = x._version
    assert x.frac_() is x and x.tolist() == [0.25, -0.5] and x._version > v
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        torch.tensor([1.5], requires_grad=True).frac_()


# ----- lerp -------------------------------------------------------------------------------------

def np_lerp(a, b, w):
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


@pytest.mark.parametrize("weight", [0.3, 0.5, 0.9, -0.7, 1.0])
def test_lerp_scalar_weight(weight):
    a, b = rnd(3, 4), rnd(3, 4, seed=1)
    for dtype, tol in [(torch.float32, 1e-6), (torch.float64, 1e-12)]:
        got = torch.lerp(torch.tensor(a).to(dtype), torch.tensor(b).to(dtype), weight)
        assert got.dtype == dtype
        close(got, np_lerp(a, b, weight), tol)
    # weight 1 gives end exactly, weight 0 gives self exactly
    assert torch.tensor(a).lerp(torch.tensor(b), 1.0).tolist() == b.tolist()
    assert torch.tensor(a).lerp(torch.tensor(b), 0.0).tolist() == a.tolist()


def test_lerp_tensor_weight_broadcasts():
    a, b, w = rnd(2, 1), rnd(3, seed=1), rnd(1, 3, seed=2)
    got = torch.lerp(torch.tensor(a), torch.tensor(b), torch.tensor(w))
    assert got.shape == (2, 3)
    close(got, np_lerp(a, b, w), 1e-12)
    h = torch.tensor(a, dtype=torch.float16).lerp(torch.tensor(a * 0 + 1, dtype=torch.float16), 0.25)
    assert h.dtype == torch.float16
    close(h, a + 0.25 * (1 - a), 1e-2)


def test_lerp_errors():
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        torch.lerp(torch.rand(2), torch.rand(2, dtype=torch.float64), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype double"):
        torch.lerp(torch.rand(2), torch.rand(2), torch.rand(2, dtype=torch.float64))
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), 0.5)
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_tensor\" not implemented for 'Long'"):
        torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"):
        torch.lerp(torch.rand(2), torch.rand(3), 0.5)
    with pytest.raises(RuntimeError, match="output with shape \\[3\\] doesn't match the broadcast shape \\[2, 3\\]"):
        torch.rand(3).lerp_(torch.rand(2, 3), 0.5)


def test_lerp_grads():
    for (x, _), (e, _) in zip(variants(3, 4), variants(3, 4, seed=1)):
        for w in (0.3, 0.8):
            check_grads(lambda a, b: torch.lerp(a, b, w), x, e)
        # weights on both sides of 0.5, so both formulas are differentiated
        wt = torch.tensor(np.linspace(-0.2, 1.2, 12).reshape(3, 4), requires_grad=True)
        check_grads(lambda a, b, c: torch.lerp(a, b, c), x, e, wt)
    check_grads(lambda a, b, c: a.lerp(b, c), t64(3, 1), t64(4, seed=1), t64(1, 4, seed=2))


def test_lerp_in_place():
    x, e = torch.tensor([0.0, 2.0]), torch.tensor([4.0, 4.0])
    v = x._version
    assert x.lerp_(e, 0.25) is x and x.tolist() == [1.0, 2.5] and x._version > v
    x.lerp_(e, torch.tensor([1.0, 0.0]))
    assert x.tolist() == [4.0, 2.5]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.rand(2, requires_grad=True).lerp_(e, 0.5)
    y = t64(2) * 1
    y.lerp_(torch.ones(2, dtype=torch.float64), 0.25)
    assert type(y.grad_fn).__name__ == "LerpBackward0"


# ----- addcmul / addcdiv ------------------------------------------------------------------------

@pytest.mark.parametrize("value", [1, 2, -0.5])
def test_addcmul_addcdiv_values(value):
    a, b, c = rnd(3, 4), rnd(3, 4, seed=1), rnd(3, 4, seed=2) + 3
    for dtype, tol in [(torch.float32, 1e-5), (torch.float64, 1e-12)]:
        ta, tb, tc = (torch.tensor(v).to(dtype) for v in (a, b, c))
        close(torch.addcmul(ta, tb, tc, value=value), a + value * b * c, tol)
        close(torch.addcdiv(ta, tb, tc, value=value), a + value * b / c, tol)
        close(ta.t().addcmul(tb.t(), tc.t(), value=value), (a + value * b * c).T, tol)
    assert torch.addcmul(ta, tb, tc).dtype == torch.float64


def test_addcmul_dtypes_and_broadcast():
    i = torch.tensor([1, 2])
    # an integer result takes the value as an integer
    r = torch.addcmul(i, i, i, value=2.7)
    assert r.dtype == torch.int64 and r.tolist() == [3, 10]
    assert torch.addcmul(i, torch.tensor([0.5, 0.5]), i).dtype == torch.float32
    assert torch.addcmul(torch.rand(2), torch.rand(2, dtype=torch.float64), i).dtype == torch.float64
    assert torch.addcdiv(i, torch.tensor([1.0, 2.0]), i).tolist() == [2.0, 3.0]
    out = torch.addcmul(torch.ones(3), torch.ones(2, 1), torch.full((3,), 2.0))
    assert out.shape == (2, 3) and out.tolist() == [[3.0] * 3] * 2


def test_addcmul_addcdiv_errors():
    i = torch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        torch.addcdiv(i, i, i)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        torch.addcdiv(torch.rand(2), i, i)
    with pytest.raises(TypeError):
        torch.addcmul(torch.rand(2), torch.rand(2), torch.rand(2), 2)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(2\\)"):
        torch.addcmul(torch.rand(3), torch.rand(2), torch.rand(3))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.addcmul_(torch.rand(2), torch.rand(2))
    with pytest.raises(RuntimeError, match="output with shape \\[3\\] doesn't match the broadcast shape \\[2, 3\\]"):
        torch.rand(3).addcmul_(torch.rand(2, 1), torch.rand(3))


def test_addcmul_addcdiv_grads():
    for (x, _), (y, _), (z, _) in zip(variants(3, 4), variants(3, 4, seed=1), variants(3, 4, seed=2)):
        check_grads(lambda a, b, c: torch.addcmul(a, b, c, value=0.5), x, y, z)
        check_grads(lambda a, b, c: torch.addcdiv(a, b, c * c + 1, value=-2), x, y, z)
    check_grads(lambda a, b, c: a.addcmul(b, c), t64(4), t64(3, 1, seed=1), t64(1, 4, seed=2))
    check_grads(lambda a, b, c: a.addcdiv(b, c.exp()), t64(4), t64(3, 1, seed=1), t64(1, 4, seed=2))


def test_addcmul_addcdiv_in_place():
    x = torch.ones(2)
    v = x._version
    assert x.addcmul_(torch.tensor([2.0, 3.0]), torch.tensor([4.0, 5.0]), value=0.5) is x
    assert x.tolist() == [5.0, 8.5] and x._version > v
    x.addcdiv_(torch.tensor([2.0, 3.0]), torch.tensor([4.0, 6.0]))
    assert x.tolist() == [5.5, 9.0]
    for name in ("addcmul_", "addcdiv_"):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            getattr(torch.ones(2, requires_grad=True), name)(torch.ones(2), torch.ones(2))


# ----- median / kthvalue ------------------------------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((7,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 5, 3), -2), ((4, 6), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_median_and_kthvalue_values(shape, dim, dtype):
    # distinct values, so the indices are defined
    n = int(np.prod(shape))
    x = np.random.default_rng(1).permutation(n).reshape(shape).astype(dtype) - n // 2
    t = torch.tensor(x)
    srt, order = np.sort(x, axis=dim, kind="stable"), np.argsort(x, axis=dim, kind="stable")
    size = x.shape[dim]
    mid = (size - 1) // 2
    m = t.median(dim)
    assert type(m).__name__ == "median" and m.values.dtype == t.dtype and m.indices.dtype == torch.int64
    np.testing.assert_array_equal(m.values.numpy(), np.take(srt, mid, axis=dim))
    np.testing.assert_array_equal(m.indices.numpy(), np.take(order, mid, axis=dim))
    mk = torch.median(t, dim, keepdim=True)
    assert mk.values.shape == np.take(srt, [mid], axis=dim).shape
    for k in (1, size, (size + 1) // 2):
        kv = t.kthvalue(k, dim)
        assert type(kv).__name__ == "kthvalue"
        np.testing.assert_array_equal(kv.values.numpy(), np.take(srt, k - 1, axis=dim))
        np.testing.assert_array_equal(kv[1].numpy(), np.take(order, k - 1, axis=dim))
    # median over all elements: the lower middle value
    assert t.median().item() == np.sort(x, axis=None)[(n - 1) // 2]


def test_median_kthvalue_strided_ties_nan_half():
    x = rnd(4, 6)
    t = torch.tensor(x).t()
    np.testing.assert_array_equal(t.median(1).values.numpy(), np.sort(x.T, axis=1)[:, 1])
    np.testing.assert_array_equal(t[:, ::2].kthvalue(2, 0).values.numpy(), np.sort(x.T[:, ::2], axis=0)[1])
    assert torch.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    # a lane holding NaN has median NaN, at its first NaN; kthvalue sorts NaN last
    r = torch.tensor([[1.0, float("nan"), 2.0, float("nan")], [3.0, 1.0, 2.0, 0.0]]).median(1)
    assert np.isnan(r.values[0].item()) and r.indices.tolist() == [1, 1]
    assert np.isnan(torch.tensor([1.0, float("nan"), 2.0]).median().item())
    k = torch.tensor([1.0, float("nan"), 2.0, float("nan")]).kthvalue(3)
    assert np.isnan(k.values.item()) and k.indices.item() == 1
    assert torch.tensor([5.0, 2.0, 2.0, 7.0]).kthvalue(2).values.item() == 2.0
    h = torch.tensor([3.0, 1.0, 2.0], dtype=torch.float16)
    assert h.median().dtype == torch.float16 and h.median().item() == 2.0
    z = torch.tensor(3.0)
    assert z.median(0).values.shape == () and z.kthvalue(1).indices.item() == 0
    assert np.isnan(torch.tensor([]).median().item())
    assert torch.zeros(0, 3).median(1).values.shape == (0,)


def test_median_kthvalue_errors():
    x = torch.rand(3, 4)
    for k in (0, 5, -1):
        with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range for dimension 1"):
            x.kthvalue(k, 1)
    with pytest.raises(RuntimeError, match="selected number k out of range for dimension 0"):
        torch.tensor(3.0).kthvalue(2)
    with pytest.raises(IndexError, match="Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 2\\)"):
        x.median(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.kthvalue(1, 3)
    with pytest.raises(IndexError, match="median\\(\\): Expected reduction dim 0 to have non-zero size."):
        torch.zeros(0, 3).median(0)
    with pytest.raises(NotImplementedError, match="\"median_cpu\" not implemented for 'Bool'"):
        torch.tensor([True, False]).median()
    with pytest.raises(NotImplementedError, match="\"kthvalue_cpu\" not implemented for 'Bool'"):
        torch.tensor([True, False]).kthvalue(1)


def test_median_kthvalue_grads():
    # distinct values: the selected element gets the whole gradient
    for x, _ in variants(3, 4):
        check_grads(lambda a: a.median(), x)
        check_grads(lambda a: a.median(1).values, x)
        check_grads(lambda a: a.median(0, keepdim=True)[0], x)
        check_grads(lambda a: a.kthvalue(2, 1)[0], x)
        check_grads(lambda a: a.kthvalue(3, 0, True).values, x)
    check_grads(lambda a: a.expand(3, 4).kthvalue(2, 1).values, t64(1, 4))
    # median() shares the gradient evenly among tied elements, as max() does
    t = torch.tensor([1.0, 2.0, 2.0, 5.0], requires_grad=True)
    t.median().backward()
    assert t.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
    # median(dim) gives it to the selected index
    t = torch.tensor([[1.0, 3.0, 2.0]], requires_grad=True)
    t.median(1).values.sum().backward()
    assert t.grad.tolist() == [[0.0, 0.0, 1.0]]


# ----- broadcast_to / tile ----------------------------------------------------------------------

def test_broadcast_to():
    x = rnd(3)
    t = torch.tensor(x)
    b = t.broadcast_to((2, 3))
    np.testing.assert_array_equal(b.numpy(), np.broadcast_to(x, (2, 3)))
    assert b.data_ptr() == t.data_ptr() and b.stride() == (0, 1)
    assert torch.broadcast_to(t, [4, 2, 3]).shape == (4, 2, 3)
    assert t.broadcast_to((-1,)).shape == (3,)
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(4\\) must match the existing size \\(3\\) at non-singleton dimension 1.  Target sizes: \\[2, 4\\].  Tensor sizes: \\[3\\]"):
        t.broadcast_to((2, 4))
    check_grads(lambda a: a.broadcast_to((2, 3, 4)), t64(3, 1))
    check_grads(lambda a: a.broadcast_to((2, 4, 3)), t64(3, 4).t())


@pytest.mark.parametrize("shape, reps", [((3, 4), (2,)), ((3, 4), (2, 1, 3)), ((3,), (2, 2)), ((2, 3), ()),
                                         ((2, 1, 3), (1, 2)), ((), (3,))])
def test_tile_matches_numpy(shape, reps):
    x = rnd(*shape)
    views = [torch.tensor(x)]
    if len(shape) > 1:
        views.append(torch.tensor(np.ascontiguousarray(x.T)).permute(*reversed(range(len(shape)))))
    for t in views:
        np.testing.assert_array_equal(t.tile(reps).numpy(), np.tile(x, reps))
        np.testing.assert_array_equal(torch.tile(t, reps).numpy(), np.tile(x, reps))
    np.testing.assert_array_equal(torch.tensor(x.astype(np.int32)).tile(reps).numpy(), np.tile(x.astype(np.int32), reps))


def test_tile_errors_and_grads():
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -4: \\[3, -4\\]"):
        torch.rand(3, 4).tile((-1,))
    assert torch.rand(3, 4).tile(2, 1).shape == (6, 4)
    for x, _ in variants(3, 4):
        check_grads(lambda a: a.tile((2,)), x)
        check_grads(lambda a: a.tile((2, 1, 3)), x)


# ----- diag / diagonal / trace ------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, -2, 5])
def test_diag(k):
    v, m = rnd(4), rnd(3, 5)
    np.testing.assert_array_equal(torch.tensor(v).diag(k).numpy(), np.diag(v, k))
    np.testing.assert_array_equal(torch.diag(torch.tensor(m), k).numpy(), np.diag(m, k))
    np.testing.assert_array_equal(torch.tensor(m.T.copy()).t().diag(k).numpy(), np.diag(m, k))
    vi = np.arange(3, dtype=np.int64)
    np.testing.assert_array_equal(torch.tensor(vi).diag(k).numpy(), np.diag(vi, k))
    d = torch.tensor(m).diag(k)
    # 2-D -> 1-D is a copy
    assert not d.numel() or d.data_ptr() != torch.tensor(m).data_ptr()


def test_diag_errors_and_grads():
    for bad, n in [(torch.rand(2, 2, 2), 3), (torch.tensor(1.0), 0)]:
        with pytest.raises(RuntimeError, match=f"diag\\(\\): Supports 1D or 2D tensors. Got {n}D"):
            bad.diag()
    for k in (0, 1, -1):
        check_grads(lambda a: a.diag(k), t64(4))
        check_grads(lambda a: a.diag(k), t64(4, 6)[:, ::2])
        check_grads(lambda a: a.diag(k), t64(3, 4).t())
        check_grads(lambda a: a.expand(3).diag(k), t64(1))


@pytest.mark.parametrize("shape, offset, d1, d2", [((3, 3), 0, 0, 1), ((3, 5), 2, 0, 1), ((4, 3), -1, 0, 1),
                                                   ((2, 3, 4), 0, 1, 2), ((2, 3, 4), -1, -1, 0),
                                                   ((2, 3, 4), 1, 2, 0), ((3, 4), 9, 0, 1), ((3, 4), 0, 1, 0)])
def test_diagonal_is_a_view_matching_numpy(shape, offset, d1, d2):
    x = rnd(*shape)
    t = torch.tensor(x)
    d = t.diagonal(offset, d1, d2)
    np.testing.assert_array_equal(d.numpy(), np.diagonal(x, offset, d1, d2))
    np.testing.assert_array_equal(torch.diagonal(t, offset=offset, dim1=d1, dim2=d2).numpy(),
                                  np.diagonal(x, offset, d1, d2))
    if d.numel():
        # shares storage: a write through the view reaches the base
        d.fill_(7.0)
        assert (t.numpy() == 7.0).sum() == d.numel()
    p = torch.tensor(np.ascontiguousarray(x.transpose(*reversed(range(len(shape)))))).permute(*reversed(range(len(shape))))
    np.testing.assert_array_equal(p.diagonal(offset, d1, d2).numpy(), np.diagonal(x, offset, d1, d2))


def test_diagonal_errors_and_grads():
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, 1"):
        torch.rand(2, 3, 4).diagonal(0, 1, 1)
    with pytest.raises(IndexError, match="Dimension out of range \\(expected to be in range of \\[-1, 0\\], but got 1\\)"):
        torch.rand(3).diagonal()
    with pytest.raises(IndexError, match="Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 2\\)"):
        torch.rand(3, 3).diagonal(0, 0, 2)
    for x, _ in variants(3, 4):
        check_grads(lambda a: a.diagonal(), x)
        check_grads(lambda a: a.diagonal(1), x)
        check_grads(lambda a: a.diagonal(-1, 1, 0), x)
    check_grads(lambda a: a.diagonal(0, 0, 2), t64(3, 2, 4))
    check_grads(lambda a: a.expand(3, 4).diagonal(), t64(1, 4))
    # the view's base gets the gradient through a later in-place write, as for other views
    b = t64(3, 3) * 1
    b.diagonal().mul_(2)
    assert b.grad_fn is not None


def test_trace():
    for shape in [(3, 3), (3, 5), (5, 2)]:
        x = rnd(*shape)
        assert abs(torch.tensor(x).trace().item() - np.trace(x)) < 1e-12
        assert abs(torch.trace(torch.tensor(x.T.copy()).t()).item() - np.trace(x)) < 1e-12
    for dt in (torch.int64, torch.int32, torch.uint8):
        r = torch.tensor([[1, 2], [3, 4]], dtype=dt).trace()
        assert r.dtype == torch.int64 and r.item() == 5
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        torch.rand(3).trace()
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 3"):
        torch.rand(2, 2, 2).trace()
    with pytest.raises(NotImplementedError, match="\"trace\" not implemented for 'Bool'"):
        torch.tensor([[True]]).trace()
    for x, _ in variants(3, 4):
        check_grads(lambda a: a.trace(), x)
    check_grads(lambda a: a.expand(3, 4).trace(), t64(1, 4))


# ----- take -------------------------------------------------------------------------------------

def test_take():
    x = rnd(3, 4)
    idx = np.array([[0, 5], [-1, 11]])
    for t in (torch.tensor(x), torch.tensor(x.T.copy()).t()):
        got = t.take(torch.tensor(idx))
        assert got.shape == (2, 2)
        np.testing.assert_array_equal(got.numpy(), np.take(x.ravel(), idx))
    xi = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(torch.take(torch.tensor(xi)[:, 1::2], torch.tensor([0, 3, 5])).numpy(),
                                  np.take(xi[:, 1::2].ravel(), [0, 3, 5]))
    assert torch.tensor(2.5).take(torch.tensor([0, 0])).tolist() == [2.5, 2.5]
    assert torch.rand(3).take(torch.tensor([], dtype=torch.int64)).shape == (0,)


def test_take_errors_and_grads():
    x = torch.rand(3, 4)
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements."):
        x.take(torch.tensor([12]))
    with pytest.raises(IndexError, match="out of range: tried to access index -13 on a tensor of 12 elements."):
        x.take(torch.tensor([0, -13]))
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor for index, but got Float"):
        x.take(torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor for index, but got Int"):
        x.take(torch.tensor([1], dtype=torch.int32))
    with pytest.raises(IndexError, match="take\\(\\): tried to take from an empty tensor"):
        torch.zeros(0).take(torch.tensor([0]))
    idx = torch.tensor([[0, 5, 5], [-1, 2, 0]])
    for t, _ in variants(3, 4):
        check_grads(lambda a: a.take(idx), t)
    check_grads(lambda a: a.expand(3, 4).take(idx), t64(1, 4))
    # repeated positions add up
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a.take(torch.tensor([2, 2, 0])).sum().backward()
    assert a.grad.tolist() == [1.0, 0.0, 2.0]


# ----- hstack / vstack / dstack / column_stack / row_stack ---------------------------------------

@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(2, 3), (2, 1)], [(), ()], [(2, 1, 3), (2, 2, 3)]])
def test_hstack(shapes):
    xs = [rnd(*s, seed=i) for i, s in enumerate(shapes)]
    np.testing.assert_array_equal(torch.hstack([torch.tensor(x) for x in xs]).numpy(), np.hstack(xs))


@pytest.mark.parametrize("fn", ["vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (1, 3)], [(), ()]])
def test_other_stacks(fn, shapes):
    if fn == "column_stack" and shapes[0] == (2, 3):
        shapes = [(2, 3), (2,)]
    if fn == "dstack" and shapes[0] == (2, 3):
        shapes = [(2, 3), (2, 3)]
    xs = [rnd(*s, seed=i) for i, s in enumerate(shapes)]
    np_fn = np.vstack if fn == "row_stack" else getattr(np, fn)
    got = getattr(torch, fn)(tuple(torch.tensor(x) for x in xs))
    np.testing.assert_array_equal(got.numpy(), np_fn(xs))


def test_stacks_errors_and_grads():
    for fn in ("hstack", "vstack", "dstack", "column_stack"):
        with pytest.raises(RuntimeError, match=f"{fn} expects a non-empty TensorList"):
            getattr(torch, fn)([])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 1"):
        torch.column_stack([torch.rand(3), torch.rand(4, 3)])
    a, b = t64(3, 4), t64(4, 3, seed=1).t()
    for fn in (torch.hstack, torch.vstack, torch.dstack, torch.column_stack):
        check_grads(lambda x, y: fn([x, y]), a, b)
        assert type(fn([a, b]).grad_fn).__name__ == "CatBackward0"
    check_grads(lambda x, y: torch.hstack([x, y.expand(2)]), t64(3), t64(1))


# ----- on the wgpu backend (compositions of ops with GPU kernels) --------------------------------

@pytest.mark.skipif(not torch.wgpu.is_available(), reason="no wgpu adapter")
def test_new_ops_on_wgpu_match_the_cpu():
    x = torch.tensor(rnd(3, 4, dtype=np.float32))
    x[0, 3] = float("nan")
    h = torch.tensor(rnd(3, 4, seed=1, dtype=np.float32))
    idx = torch.tensor([0, 5, -1])
    cases = [
        lambda a, b: a.frac(), lambda a, b: a.lerp(b, 0.3), lambda a, b: a.lerp(b, b.sigmoid()),
        lambda a, b: a.addcmul(b, b, value=2), lambda a, b: a.addcdiv(b, b.exp()), lambda a, b: a.median(),
        lambda a, b: b.median(), lambda a, b: a.median(1).values, lambda a, b: a.median(1).indices,
        lambda a, b: a.kthvalue(2, 1).values, lambda a, b: b.kthvalue(3, 0).indices,
        lambda a, b: b[0].broadcast_to((2, 4)), lambda a, b: b.tile((2,)), lambda a, b: b[0].diag(1),
        lambda a, b: b.diag(), lambda a, b: b.t().diagonal(1), lambda a, b: b.trace(), lambda a, b: b.take(idx),
        lambda a, b: torch.hstack([a, b]), lambda a, b: torch.vstack([a, b]),
    ]
    for f in cases:
        want = f(x, h)
        got = f(x.to("wgpu"), h.to("wgpu"))
        assert got.device.type == "wgpu"
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-5, equal_nan=True)
    # gradients flow back to the GPU input
    g = h.to("wgpu").requires_grad_()
    (g.median() + g.kthvalue(2, 1)[0].sum() + g.trace() + g.take(idx).sum() + g.diag().sum()).backward()
    hc = h.clone().requires_grad_()
    (hc.median() + hc.kthvalue(2, 1)[0].sum() + hc.trace() + hc.take(idx).sum() + hc.diag().sum()).backward()
    assert g.grad.device.type == "wgpu"
    np.testing.assert_allclose(g.grad.cpu().numpy(), hc.grad.numpy(), rtol=1e-6)


def test_alpha_is_a_number_or_a_zero_dim_tensor():
    a, b = torch.ones(2), torch.ones(2)
    assert torch.add(a, b, alpha=torch.tensor(2.0)).tolist() == [3.0, 3.0]
    assert a.sub(b, alpha=torch.tensor(3)).tolist() == [-2.0, -2.0]
    x = a.clone()
    x.add_(b, alpha=torch.tensor(0.5))
    assert x.tolist() == [1.5, 1.5]
    with pytest.raises(TypeError, match=r"add_\(\): argument 'alpha' must be Number, not Tensor"):
        a.clone().add_(b, alpha=torch.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"sub\(\): argument 'alpha' must be Number, not str"):
        a.sub(b, alpha="x")
