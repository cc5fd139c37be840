"""Session 8's reduction kernels against float64 references: the fused logsumexp (contiguous,
transposed, along dim 0, keepdim, infinite and NaN lanes; its one-node gradient through
gradcheck and gradgradcheck in float64 on contiguous, transposed and broadcast inputs), the
grouped cumsum/cumprod over contiguous rows (the same bits as a row at a time), the vectorised
folds (sum, amax, prod, norm of lengths around the fold width) and a broadcast gradient
written out (sum over the last dim)."""
import numpy as np
import pytest

import rstorch as torch
from rstorch.autograd import gradcheck, gradgradcheck


def lse64(a, dim, keepdim=False):
    b = a.astype(np.float64)
    m = np.max(b, axis=dim, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    with np.errstate(all="ignore"):
        out = np.log(np.sum(np.exp(b - m), axis=dim, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=dim)


@pytest.mark.parametrize("shape", [(5, 7), (3, 33, 4), (64, 130), (1, 1), (2, 1, 3)])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsumexp_matches_a_float64_reference(shape, transposed, keepdim, dtype):
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    a = (rng.standard_normal(shape) * 4).astype(dtype)
    x = torch.tensor(a)
    if transposed:
        x = torch.tensor(np.ascontiguousarray(np.swapaxes(a, 0, -1))).transpose(0, -1)
    for dim in range(-len(shape), len(shape)):
        got = x.logsumexp(dim, keepdim=keepdim)
        want = lse64(np.asarray(x.numpy()), dim, keepdim)
        assert got.shape == want.shape and got.dtype == x.dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == "float32" else 1e-13, atol=1e-6)


def test_logsumexp_infinite_and_nan_lanes():
    inf, nan = float("inf"), float("nan")
    a = np.array([[inf, 1.0, 2.0], [-inf, -inf, -inf], [nan, 1.0, 2.0], [-inf, 0.0, 1.0], [inf, -inf, 0.0]], dtype=np.float32)
    for x, dim in ((torch.tensor(a), 1), (torch.tensor(np.ascontiguousarray(a.T)).t(), 1), (torch.tensor(np.ascontiguousarray(a.T)), 0)):
        got = x.logsumexp(dim).numpy()
        np.testing.assert_allclose(got, lse64(a, 1), rtol=1e-6)
        assert np.isnan(got[2]) and got[0] == inf and got[1] == -inf


def test_logsumexp_node_and_its_saved_values():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    y = x.logsumexp(1)
    assert y.grad_fn.name().rsplit("::", 1)[-1] == "LogsumexpBackward0"
    y.sum().backward()
    want = np.exp(x.detach().numpy() - y.detach().numpy()[:, None])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("case", ["contig", "transposed", "broadcast", "dim0_keepdim", "3d_middle"])
def test_logsumexp_gradcheck_and_gradgradcheck(case):
    torch.manual_seed(0)
    a = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    b = torch.randn(1, 5, dtype=torch.float64, requires_grad=True)
    c = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    fn, inputs = {
        "contig": (lambda a: a.logsumexp(1), (a,)),
        "transposed": (lambda a: a.t().logsumexp(1) * 1.5, (a,)),
        "broadcast": (lambda b: b.expand(4, 5).logsumexp(0), (b,)),
        "dim0_keepdim": (lambda a: a.logsumexp(0, keepdim=True) ** 2, (a,)),
        "3d_middle": (lambda c: c.permute(2, 0, 1).logsumexp(2), (c,)),
    }[case]
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("cols", [1, 7, 64, 257, 512, 1024])  # 512, 1024: rows 4 KiB apart (one row at a time)
@pytest.mark.parametrize("rows", [1, 5, 8, 19])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_cumsum_cumprod_of_row_groups_match_a_row_at_a_time(rows, cols, dtype):
    rng = np.random.default_rng(rows * 1000 + cols)
    a = (rng.standard_normal((rows, cols)) * 3).astype(dtype) if dtype != "int64" else rng.integers(-3, 4, (rows, cols))
    x = torch.tensor(a)
    got = x.cumsum(1).numpy()
    # A row alone takes the per-lane path: the grouped rows must give the same bits.
    each = np.stack([x[r:r + 1].cumsum(1).numpy()[0] for r in range(rows)])
    np.testing.assert_array_equal(got, each)
    if dtype == "float32":
        np.testing.assert_allclose(got, np.cumsum(a.astype(np.float64), 1), rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_allclose(got, np.cumsum(a, 1), rtol=1e-12)
    small = (a / 4 + 1) if dtype != "int64" else a
    xs = torch.tensor(small)
    np.testing.assert_array_equal(xs.cumprod(1).numpy(), np.stack([xs[r:r + 1].cumprod(1).numpy()[0] for r in range(rows)]))


@pytest.mark.parametrize("n", [1, 31, 32, 33, 95, 1000, 40000])
def test_folds_of_lengths_around_the_fold_width(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((3, n)).astype(np.float32)
    x = torch.tensor(a)
    b = a.astype(np.float64)
    np.testing.assert_allclose(x.sum().item(), b.sum(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(x.sum(1).numpy(), b.sum(1), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(x.amax(1).numpy(), a.max(1))
    np.testing.assert_array_equal(x.t().amax(0).numpy(), a.max(1))
    np.testing.assert_allclose(x.norm().item(), np.sqrt((b * b).sum()), rtol=1e-5)
    c = (a / 50 + 1).astype(np.float32)
    np.testing.assert_allclose(torch.tensor(c).prod(1).numpy(), c.astype(np.float64).prod(1), rtol=1e-4)
    a[1, n // 2] = np.nan
    got = torch.tensor(a).amax(1).numpy()
    assert np.isnan(got[1]) and got[0] == a[0].max()


def test_sum_over_last_dim_gradient_is_the_broadcast_row():
    x = torch.randn(40, 70, requires_grad=True)
    g = torch.randn(40)
    x.sum(1).backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), np.repeat(g.numpy()[:, None], 70, 1))
    assert x.grad.is_contiguous()
    x.grad = None
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((40, 70), np.float32))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
def test_float32_sort_is_stable_with_signed_zeros_nans_and_infinities(descending, transposed):
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, size=(9, 300)).astype(np.float32)
    a[rng.random(a.shape) < 0.1] = np.nan
    a[rng.random(a.shape) < 0.1] = -0.0
    a[rng.random(a.shape) < 0.05] = np.inf
    a[rng.random(a.shape) < 0.05] = -np.inf
    x = torch.tensor(np.ascontiguousarray(a.T)).t() if transposed else torch.tensor(a)
    v, i = x.sort(dim=1, descending=descending)
    nan = np.isnan(a)
    val = np.where(nan, 0.0, a)
    want = np.lexsort((-val, ~nan), axis=-1) if descending else np.lexsort((val, nan), axis=-1)
    np.testing.assert_array_equal(i.numpy(), want)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, want, 1))
    np.testing.assert_array_equal(x.argsort(dim=1, descending=descending).numpy(), want)


@pytest.mark.parametrize("scale", [1.0, 4.0])
def test_float32_softmax_rows_within_pytorchs_ulp(scale):
    """softmax and log_softmax of float32 rows (the fused exp-and-sum pass, its float64 sum) against
    a float64 reference: PyTorch 2.15's own CPU results reach 5.35 ulp (scale 1) and 11.8 ulp
    (scale 4) on 1000x1000 rows of this kind; these must not do worse."""
    rng = np.random.default_rng(7)
    a = ((rng.random((300, 1000)) * 4 - 2) * scale).astype(np.float32)
    x = torch.tensor(a)
    a64 = a.astype(np.float64)
    shifted = a64 - a64.max(1, keepdims=True)
    log_ref = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    for got, ref, bound in [(x.softmax(1).numpy(), np.exp(log_ref), 5.35 if scale == 1 else 11.8), (x.log_softmax(1).numpy(), log_ref, 1.5)]:
        ulp = np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        assert ulp.max() <= bound, ulp.max()
