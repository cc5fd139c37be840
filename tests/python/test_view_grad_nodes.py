"""Session 9's one-node gradients of views and shape ops: narrow, slices and select write their
gradient through the view's window into zeros (no list of positions), roll's gradient is the
gradient rolled back, var and std use PyTorch's formula on one node; and the 16x16 blocked
transposed copy (power-of-two sides, ragged edges, leading dims). Gradients are checked in
float64 (gradcheck, eps 1e-6, atol 1e-5, rtol 1e-3, and gradgradcheck) on contiguous,
transposed and broadcast inputs; values against numpy."""
import numpy as np
import pytest

import rstorch as torch
from rstorch.autograd import gradcheck, gradgradcheck


def leaf(shape, seed, transposed=False, broadcast=False):
    rng = np.random.default_rng(seed)
    if broadcast:
        # A row expanded to the shape: every input element feeds several outputs.
        row = torch.tensor(rng.standard_normal((1, shape[-1])), dtype=torch.float64, requires_grad=True)
        return row, lambda t: t.expand(*shape)
    if transposed:
        base = torch.tensor(rng.standard_normal(shape[::-1]), dtype=torch.float64, requires_grad=True)
        return base, lambda t: t.t()
    base = torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=True)
    return base, lambda t: t


LAYOUTS = ["contig", "transposed", "broadcast"]


def check(fn, shape, layout, seed=0, second=True):
    x, view = leaf(shape, seed, transposed=layout == "transposed", broadcast=layout == "broadcast")
    f = lambda t: fn(view(t))  # noqa: E731
    assert gradcheck(f, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    if second:
        assert gradgradcheck(f, (x,))


VIEWS = [
    ("narrow", lambda t: t.narrow(1, 1, 3)),
    ("narrow_neg_start", lambda t: t.narrow(0, -2, 2)),
    ("narrow_empty", lambda t: t.narrow(1, 2, 0)),
    ("slice_step", lambda t: t[1:, ::2]),
    ("slice_then_clone", lambda t: t[:, 1:-1].clone() * 3),
    ("select", lambda t: t.select(1, 2)),
    ("select_neg", lambda t: t[-1]),
    ("chained", lambda t: t.narrow(1, 1, 4)[1:3].select(0, 1)),
    ("twice", lambda t: t.narrow(1, 0, 3) + t.narrow(1, 2, 3)),
]


@pytest.mark.parametrize("name,fn", VIEWS, ids=[v[0] for v in VIEWS])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_window_views_gradcheck(name, fn, layout):
    check(fn, (4, 6), layout)


def test_window_gradient_values_and_node():
    x = torch.arange(12.0).reshape(3, 4).requires_grad_(True)
    y = x.t().narrow(0, 1, 2)
    assert type(y.grad_fn).__name__ == "SliceBackward0"
    y.backward(torch.arange(6.0).reshape(2, 3) + 1)
    want = np.zeros((3, 4))
    want[:, 1:3] = (np.arange(6.0).reshape(2, 3) + 1).T
    np.testing.assert_array_equal(x.grad.numpy(), want)
    z = torch.ones(5, requires_grad=True, dtype=torch.float64)
    z.select(0, 3).backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0, 0, 0, 1, 0])


def test_window_gradient_of_half_and_int_shaped_views():
    x = torch.ones(4, 5, dtype=torch.float16, requires_grad=True)
    x[1:3, ::2].sum().backward()
    want = np.zeros((4, 5))
    want[1:3, ::2] = 1
    np.testing.assert_array_equal(x.grad.float().numpy(), want)


ROLLS = [
    ("one_dim", lambda t: t.roll(2, 1)),
    ("negative", lambda t: t.roll(-3, 0)),
    ("huge", lambda t: t.roll(2**62 + 1, 1)),
    ("min_shift", lambda t: t.roll(-(2**63), 1)),
    ("flattened", lambda t: t.roll(5)),
    ("two_dims", lambda t: t.roll((1, -2), (0, 1))),
    ("same_dim_twice", lambda t: t.roll((1, 2), (1, 1))),
    ("zero_shift", lambda t: t.roll(0, 1)),
    ("whole_turn", lambda t: t.roll(6, 1)),
]


@pytest.mark.parametrize("name,fn", ROLLS, ids=[r[0] for r in ROLLS])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll_gradcheck(name, fn, layout):
    check(fn, (4, 6), layout)


def test_roll_values_node_and_gradient():
    a = np.arange(24.0).reshape(4, 6)
    for shifts, dims in [(2, 1), (-3, 0), ((1, -2), (0, 1)), (7, None), (-(2**63), 1)]:
        x = torch.tensor(a, requires_grad=True)
        y = x.roll(shifts, dims) if dims is not None else x.roll(shifts)
        # numpy's shifts are int64: each reduced mod its size first.
        sizes = [24] if dims is None else [a.shape[d] for d in np.atleast_1d(dims)]
        ahead = [s % n for s, n in zip(np.atleast_1d(np.array(shifts, dtype=object)), sizes)]
        np.testing.assert_array_equal(y.detach().numpy(), np.roll(a, tuple(ahead) if dims is not None else ahead[0], dims))
        assert type(y.grad_fn).__name__ == "RollBackward0"
        g = np.random.default_rng(1).standard_normal((4, 6))
        y.backward(torch.tensor(g))
        undo = tuple(-s for s in ahead)
        back = np.roll(g, undo if dims is not None else undo[0], dims)
        np.testing.assert_array_equal(x.grad.numpy(), back)
    e = torch.zeros(0, 3, requires_grad=True)
    e.roll(1, 0).sum().backward()
    assert e.grad.shape == (0, 3)
    s = torch.tensor(2.0, requires_grad=True)
    s.roll(3).backward()
    assert s.grad.item() == 1.0


def test_roll_errors():
    x = torch.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        x.roll((1, 2))
    with pytest.raises(IndexError):
        x.roll(1, 2)


REDUCTIONS = [
    ("std", lambda t: t.std()),
    ("var", lambda t: t.var()),
    ("std_dim1", lambda t: t.std(1)),
    ("var_dim0_keep", lambda t: t.var(0, keepdim=True)),
    ("std_corr0", lambda t: t.std(dim=(0, 1), correction=0)),
    ("var_corr2", lambda t: t.var(dim=1, correction=2, keepdim=True)),
    ("std_neg_dim", lambda t: t.std(-1, keepdim=True)),
]


@pytest.mark.parametrize("name,fn", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("layout", ["contig", "transposed"])
def test_var_std_gradcheck(name, fn, layout):
    check(fn, (4, 5), layout)


@pytest.mark.parametrize("name,fn", REDUCTIONS[:4], ids=[r[0] for r in REDUCTIONS[:4]])
def test_var_std_gradcheck_broadcast(name, fn):
    # A broadcast input's dim-0 lanes are constant: their var's gradient is all zeros, its std's
    # is undefined, so only the reductions over the row's values are checked there.
    if name in ("std", "std_dim1", "var", "var_dim0_keep"):
        x, view = leaf((4, 5), 3, broadcast=True)
        f = lambda t: fn(view(t) * torch.arange(1.0, 5.0, dtype=torch.float64).reshape(4, 1))  # noqa: E731
        assert gradcheck(f, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(f, (x,))


def test_var_std_values_nodes_and_zero_std():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 7))
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor(a, dtype=dtype, requires_grad=True)
        s = x.std(1)
        assert type(s.grad_fn).__name__ == "StdBackward0"
        assert type(x.var(0).grad_fn).__name__ == "VarBackward0"
        np.testing.assert_allclose(s.detach().numpy(), a.std(1, ddof=1), rtol=1e-6)
        s.sum().backward()
        want = (a - a.mean(1, keepdims=True)) / (a.std(1, ddof=1, keepdims=True) * 6)
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)
    c = torch.ones(3, 4, dtype=torch.float64, requires_grad=True)
    c.std().backward()
    np.testing.assert_array_equal(c.grad.numpy(), np.zeros((3, 4)))
    h = torch.ones(3, 4, dtype=torch.float16, requires_grad=True)
    (h * torch.arange(4.0).to(torch.float16)).var(1).sum().backward()
    assert h.grad.dtype == torch.float16
    with pytest.raises(NotImplementedError):
        torch.ones(3, dtype=torch.int64).std()


@pytest.mark.parametrize("shape", [(512, 512), (1024, 256), (3, 64, 128), (100, 130), (17, 33), (2, 48, 80)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_transposed_copy_matches_numpy(shape, dtype):
    a = (np.arange(np.prod(shape)) % 1000).astype(dtype).reshape(shape)
    t = torch.tensor(a).transpose(-1, -2)
    np.testing.assert_array_equal(t.contiguous().numpy(), np.ascontiguousarray(np.swapaxes(a, -1, -2)))
    np.testing.assert_array_equal((t * 2).numpy(), np.swapaxes(a, -1, -2) * 2)
    if len(shape) == 2:
        s = torch.tensor(a)[3:, 5:].t()
        np.testing.assert_array_equal(s.contiguous().numpy(), np.ascontiguousarray(a[3:, 5:].T))
