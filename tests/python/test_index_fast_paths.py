"""Edge cases of the direct gather/scatter kernels (issue 23 item 3): whole-row copies for
index_select/embedding, indices read where they lie (strided, int32), out-of-range errors,
empty and one-row inputs, and results equal at one and two threads. Expected values come from
NumPy (no PyTorch in the suite)."""
import numpy as np
import pytest

import rstorch


@pytest.fixture(params=[1, 2])
def threads(request):
    before = rstorch.get_num_threads()
    rstorch.set_num_threads(request.param)
    yield request.param
    rstorch.set_num_threads(before)


def arr(t):
    return np.asarray(t.tolist()).reshape(tuple(t.shape))


@pytest.mark.parametrize("shape,dim", [((600, 300), 0), ((600, 300), 1), ((600, 300), -1), ((4, 5, 6), 1),
                                       ((1, 7), 0), ((7,), 0), ((0, 5), 1)])
def test_index_select_matches_numpy(threads, shape, dim):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    size = shape[dim]
    idx = rng.integers(0, size, 2 * size + 1) if size else np.zeros(0, dtype=np.int64)
    views = [rstorch.tensor(x)]
    if x.ndim == 2:
        views.append(rstorch.tensor(np.ascontiguousarray(x.T)).t())  # a transposed view
    for t in views:
        got = t.index_select(dim, rstorch.tensor(idx))
        assert got.shape == tuple(np.take(x, idx, axis=dim).shape)
        np.testing.assert_array_equal(arr(got), np.take(x, idx, axis=dim))


def test_index_select_strided_int32_index_and_errors():
    x = rstorch.arange(12.0).reshape(3, 4)
    idx = rstorch.tensor([2, 9, 0, 9, 1], dtype=rstorch.int32)[::2]  # [2, 0, 1], stride 2
    np.testing.assert_array_equal(arr(x.index_select(0, idx)), np.arange(12.0).reshape(3, 4)[[2, 0, 1]])
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, rstorch.tensor([0, 3]))
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(1, rstorch.tensor([-1]))


def test_embedding_rows_and_backward(threads):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((50, 8))
    ids = rng.integers(0, 50, (6, 9))
    wt = rstorch.tensor(w, requires_grad=True)
    out = rstorch.nn.functional.embedding(rstorch.tensor(ids), wt)
    np.testing.assert_array_equal(arr(out), w[ids])
    out.sum().backward()
    expected = np.zeros_like(w)
    np.add.at(expected, ids.reshape(-1), 1.0)
    np.testing.assert_array_equal(arr(wt.grad), expected)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_with_strided_index(threads, dim):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((400, 500))
    full = rng.integers(0, x.shape[dim], (500, 400))
    got = rstorch.tensor(x).gather(dim, rstorch.tensor(full).t())  # a transposed index
    np.testing.assert_array_equal(arr(got), np.take_along_axis(x, full.T, axis=dim))
    with pytest.raises(RuntimeError, match="out of bounds"):
        rstorch.tensor(x).gather(dim, rstorch.full((2, 2), x.shape[dim]))



@pytest.mark.parametrize("dim", [0, 1])
def test_gather_from_transposed_src(threads, dim):
    # A transposed src read about whole is copied dense first: same values, same errors, and
    # the gradient still reaches the transposed leaf.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 200))
    full = rng.integers(0, x.shape[dim], (300, 200))
    leaf = rstorch.tensor(np.ascontiguousarray(x.T), requires_grad=True)
    got = leaf.t().gather(dim, rstorch.tensor(full))
    np.testing.assert_array_equal(arr(got), np.take_along_axis(x, full, axis=dim))
    got.sum().backward()
    expected = np.zeros_like(x)
    np.add.at(expected, tuple(full if d == dim else np.indices(full.shape)[d] for d in range(2)), 1.0)
    np.testing.assert_array_equal(arr(leaf.grad), expected.T)
    for bad in (x.shape[dim], -1):
        index = rstorch.tensor(full)
        index[7, 3] = bad
        with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds"):
            leaf.detach().t().gather(dim, index)


def test_gather_gradcheck_transposed_src():
    rng = np.random.default_rng(6)
    x = rstorch.tensor(rng.standard_normal((40, 36)), dtype=rstorch.float64).t().requires_grad_()
    index = rstorch.tensor(rng.integers(0, 40, (36, 40)))
    assert rstorch.autograd.gradcheck(lambda t: t.gather(1, index), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert rstorch.autograd.gradgradcheck(lambda t: t.gather(1, index), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("op", ["masked_fill", "tril", "triu", "where_scalar", "clamp"])
def test_three_operand_ops_of_a_transposed_matrix(threads, op):
    # An operand transposed against the output is copied dense in blocks before the map:
    # square, ragged and batched shapes against NumPy.
    rng = np.random.default_rng(7)
    for shape in [(64, 64), (70, 45), (3, 40, 33)]:
        a = rng.standard_normal(shape)
        t = rstorch.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
        m = a > 0.3
        if op == "masked_fill":
            got, expected = t.masked_fill(rstorch.tensor(m), 0.0), np.where(m, 0.0, a)
        elif op == "tril":
            got, expected = t.tril(1), np.tril(a, 1)
        elif op == "triu":
            got, expected = t.triu(-2), np.triu(a, -2)
        elif op == "where_scalar":
            got, expected = rstorch.where(rstorch.tensor(m), 1.5, t), np.where(m, 1.5, a)
        else:
            lo, hi = rng.standard_normal(shape) - 1, rng.standard_normal(shape) + 1
            got, expected = t.clamp(rstorch.tensor(lo), rstorch.tensor(hi)), np.minimum(np.maximum(a, lo), hi)
        if op != "clamp":  # clamp's result follows its input's (transposed) order
            assert got.is_contiguous()
        np.testing.assert_array_equal(arr(got), expected)

def test_scatter_last_write_wins_and_adds_in_order(threads):
    x = np.zeros((3, 4))
    idx = np.array([[1, 1, 3], [0, 0, 0], [2, 3, 2]])
    src = np.arange(1.0, 10.0).reshape(3, 3)
    got = rstorch.tensor(x).scatter(1, rstorch.tensor(idx), rstorch.tensor(src))
    expected = x.copy()
    for i in range(3):
        for j in range(3):
            expected[i, idx[i, j]] = src[i, j]
    np.testing.assert_array_equal(arr(got), expected)
    added = rstorch.tensor(x).scatter_add(1, rstorch.tensor(idx), rstorch.tensor(src))
    expected = x.copy()
    for i in range(3):
        np.add.at(expected[i], idx[i], src[i])
    np.testing.assert_array_equal(arr(added), expected)
    # A number source, an index narrower than self, a strided (transposed) index.
    got = rstorch.zeros(4, 3).scatter(0, rstorch.tensor(idx).t()[:2], 5.0)
    expected = np.zeros((4, 3))
    for i in range(2):
        for j in range(3):
            expected[idx.T[i, j], j] = 5.0
    np.testing.assert_array_equal(arr(got), expected)
    with pytest.raises(RuntimeError, match="out of bounds"):
        rstorch.zeros(2, 2).scatter(1, rstorch.tensor([[2]]), 1.0)


def test_scatter_add_half_rounds_each_add_and_large_is_thread_independent():
    h = rstorch.zeros(1, dtype=rstorch.float16)
    out = h.scatter_add(0, rstorch.tensor([0, 0, 0]), rstorch.tensor([1.0, 2.0 ** -11, 2.0 ** -11], dtype=rstorch.float16))
    assert out.item() == 1.0
    rng = np.random.default_rng(3)
    src = rstorch.tensor(rng.standard_normal((300, 700)).astype(np.float32))
    idx = rstorch.tensor(rng.integers(0, 50, (300, 700)))
    results = []
    for n in (1, 2):
        before = rstorch.get_num_threads()
        rstorch.set_num_threads(n)
        try:
            results.append(arr(rstorch.zeros(300, 50).scatter_add(1, idx, src)))
        finally:
            rstorch.set_num_threads(before)
    np.testing.assert_array_equal(results[0], results[1])


def test_index_add_alpha_one_and_other():
    x = rstorch.zeros(3, 2, dtype=rstorch.float64)
    src = rstorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=rstorch.float64)
    idx = rstorch.tensor([2, 0, 2])
    np.testing.assert_array_equal(arr(x.index_add(0, idx, src)), [[3.0, 4.0], [0.0, 0.0], [6.0, 8.0]])
    np.testing.assert_array_equal(arr(x.index_add(0, idx, src, alpha=2)), [[6.0, 8.0], [0.0, 0.0], [12.0, 16.0]])
    # alpha 1 returns a new tensor, never the source itself.
    y = rstorch.zeros(3, 2, dtype=rstorch.float64).index_add(0, rstorch.tensor([0, 1, 2]), src)
    y.add_(1.0)
    np.testing.assert_array_equal(arr(src), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


@pytest.mark.parametrize("variant", ["contig", "strided", "broadcast_mask", "scalar_other"])
def test_where_fast_rows(threads, variant):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((300, 700)), rng.standard_normal((300, 700))
    m = a > 0
    ta, tb, tm = rstorch.tensor(a), rstorch.tensor(b), rstorch.tensor(m)
    if variant == "strided":
        ta = rstorch.tensor(np.ascontiguousarray(a.T)).t()
        got, expected = rstorch.where(tm, ta, tb), np.where(m, a, b)
    elif variant == "broadcast_mask":
        got, expected = rstorch.where(tm[0], ta, tb), np.where(m[0], a, b)
    elif variant == "scalar_other":
        got, expected = rstorch.where(tm, ta, 0.5), np.where(m, a, 0.5)
    else:
        got, expected = rstorch.where(tm, ta, tb), np.where(m, a, b)
    np.testing.assert_array_equal(arr(got), expected)
    one_long = rstorch.where(rstorch.tensor(m.reshape(-1)), rstorch.tensor(a.reshape(-1)), rstorch.tensor(b.reshape(-1)))
    np.testing.assert_array_equal(arr(one_long), np.where(m, a, b).reshape(-1))


def test_copies_keep_bits():
    # Same-dtype copies move bits: NaN payloads, -0.0 and subnormals unchanged.
    v = np.array([np.nan, -0.0, 1e-45, -np.inf, 3.5], dtype=np.float32)
    t = rstorch.tensor(v)
    c = t.clone()
    assert np.array_equal(np.asarray(c.tolist(), dtype=np.float32).view(np.int32), v.view(np.int32))
    s = rstorch.tensor(np.stack([v, v])).t().contiguous()
    assert s.is_contiguous() and arr(s).shape == (5, 2)
