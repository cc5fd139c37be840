"""Property tests of indexing: rstorch's basic, advanced and mask indexing, assignment and the
gather/scatter family against NumPy over random shapes, strides and dtypes."""
import os

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import rstorch
from _strategies import NUMERIC, check, dtype_name, make_tensor, nonempty_shapes, random_values, tensors

# RSTORCH_HYPOTHESIS=thorough runs many more examples (for bug hunting, not CI).
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

settings.register_profile("ops", max_examples=30, deadline=None)
settings.register_profile("thorough", max_examples=600, deadline=None)
settings.load_profile(os.environ.get("RSTORCH_HYPOTHESIS", "ops"))

seeds = st.integers(0, 2**32 - 1)


# ----- indexing ---------------------------------------------------------------------------------

@st.composite
def basic_index(draw, shape):
    """A tuple of ints, slices (with steps, possibly negative bounds), None and one Ellipsis."""
    out = []
    dim = 0
    used_ellipsis = False
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis"]))
        if kind == "int" and shape[dim] > 0:
            out.append(draw(st.integers(-shape[dim], shape[dim] - 1)))
            dim += 1
        elif kind == "slice" or kind == "int":
            bound = st.one_of(st.none(), st.integers(-7, 7))
            out.append(slice(draw(bound), draw(bound), draw(st.one_of(st.none(), st.integers(1, 3)))))
            dim += 1
        elif kind == "none":
            out.append(None)
        elif not used_ellipsis:
            out.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape)
    return tuple(out)


@given(tensors(), st.data())
def test_getitem_basic(pair, data):
    x, a = pair
    idx = data.draw(basic_index(a.shape))
    got = x[idx]
    check(got, a[idx], dtype_name(x))
    if got.numel():
        assert got.data_ptr() != 0


@given(tensors(shape_st=nonempty_shapes), st.data())
def test_getitem_advanced(pair, data):
    x, a = pair
    n = a.shape[0]
    kind = data.draw(st.sampled_from(["list", "tensor", "mask", "mask_full", "two"]))
    if kind == "list":
        idx = data.draw(st.lists(st.integers(-n, n - 1), max_size=5))
        want = a[np.array(idx, dtype=np.int64)]
        check(x[idx] if idx else x[rstorch.tensor(idx, dtype=rstorch.int64)], want, dtype_name(x))
    elif kind == "tensor":
        idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=6)), dtype=np.int64)
        idx = idx.reshape(data.draw(st.sampled_from([(-1,), (1, -1)])))
        check(x[rstorch.tensor(idx)], a[idx], dtype_name(x))
        check(x[:, rstorch.tensor(idx % a.shape[1])] if a.ndim > 1 else x[rstorch.tensor(idx)],
              a[:, idx % a.shape[1]] if a.ndim > 1 else a[idx], dtype_name(x))
    elif kind == "mask":
        m = np.asarray(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        check(x[rstorch.tensor(m)], a[m], dtype_name(x))
    elif kind == "mask_full":
        m = random_values(np.random.default_rng(data.draw(seeds)), a.shape, "bool")
        check(x[rstorch.tensor(m)], a[m], dtype_name(x))
        check(x.masked_select(rstorch.tensor(m)), a[m], dtype_name(x))
    else:
        assume(a.ndim >= 2)
        i0 = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4)))
        i1 = np.array(data.draw(st.lists(st.integers(0, a.shape[1] - 1), min_size=len(i0), max_size=len(i0))))
        check(x[rstorch.tensor(i0), rstorch.tensor(i1)], a[i0, i1], dtype_name(x))
        if a.ndim >= 3:
            i2 = i0 % a.shape[2]
            check(x[rstorch.tensor(i0), :, rstorch.tensor(i2)], a[i0, :, i2], dtype_name(x))


@given(tensors(dtypes=NUMERIC, layouts=("contiguous", "permuted", "sliced")), st.data())
def test_setitem(pair, data):
    x, a = pair
    x, a = x.clone(), a.copy()
    idx = data.draw(basic_index(a.shape))
    value = data.draw(st.integers(0, 9))
    v0 = x._version
    x[idx] = value
    a[idx] = value
    check(x, a, dtype_name(x))
    assert x._version > v0
    if a.ndim:
        m = random_values(np.random.default_rng(data.draw(seeds)), a.shape, "bool")
        x[rstorch.tensor(m)] = 7
        a[m] = 7
        check(x, a, dtype_name(x))
        n = a.shape[0]
        if n:
            idx = data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4))
            x[rstorch.tensor(idx)] = 3
            a[np.array(idx)] = 3
            check(x, a, dtype_name(x))
            src, b = make_tensor(random_values(np.random.default_rng(data.draw(seeds)), a[1:].shape, dtype_name(x)), "contiguous", None)
            x[1:] = src
            a[1:] = b
            check(x, a, dtype_name(x))


def test_setitem_overlapping_self():
    x = rstorch.arange(6)
    x[1:] = x[:-1].clone()
    assert x.tolist() == [0, 0, 1, 2, 3, 4]
    y = rstorch.arange(6)
    y[1:] = y[:-1]
    assert y.tolist() == [0, 0, 1, 2, 3, 4]


@given(tensors(dtypes=NUMERIC, shape_st=nonempty_shapes), st.data())
def test_index_select_gather(pair, data):
    x, a = pair
    d = data.draw(st.integers(-x.dim(), x.dim() - 1))
    n = a.shape[d]
    idx = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=6)), dtype=np.int64)
    check(x.index_select(d, rstorch.tensor(idx, dtype=rstorch.int64)), np.take(a, idx, axis=d), dtype_name(x))
    gshape = list(a.shape)
    gshape[d] = data.draw(st.integers(0, 4))
    gidx = np.random.default_rng(data.draw(seeds)).integers(0, n, gshape)
    check(x.gather(d, rstorch.tensor(gidx)), np.take_along_axis(a, gidx, axis=d), dtype_name(x))


@given(tensors(dtypes=NUMERIC, shape_st=nonempty_shapes, layouts=("contiguous", "permuted", "sliced")), st.data())
def test_scatter_scatter_add_index_add(pair, data):
    x, a = pair
    d = data.draw(st.integers(0, x.dim() - 1))
    n = a.shape[d]
    rng = np.random.default_rng(data.draw(seeds))
    # scatter_add: duplicates accumulate.
    ishape = list(a.shape)
    ishape[d] = data.draw(st.integers(0, 4))
    idx = rng.integers(0, n, ishape)
    src = random_values(rng, ishape, dtype_name(x))
    want = a.copy().astype(a.dtype)
    for pos in np.ndindex(*ishape):
        tgt = list(pos)
        tgt[d] = idx[pos]
        want[tuple(tgt)] += src[pos]
    check(x.scatter_add(d, rstorch.tensor(idx), rstorch.tensor(src)), want, dtype_name(x), rtol=1e-5)
    # scatter with a permutation (no duplicates, so the result is defined)
    perm = np.argsort(rng.random(a.shape), axis=d)
    vals = random_values(rng, a.shape, dtype_name(x))
    want = a.copy()
    np.put_along_axis(want, perm, vals, axis=d)
    check(x.scatter(d, rstorch.tensor(perm), rstorch.tensor(vals)), want, dtype_name(x))
    want = a.copy()
    np.put_along_axis(want, perm[tuple(slice(0, 1) if k == d else slice(None) for k in range(a.ndim))], 5, axis=d)
    check(x.scatter(d, rstorch.tensor(perm).narrow(d, 0, 1), 5), want, dtype_name(x))
    # index_add
    k = data.draw(st.integers(0, 4))
    iidx = rng.integers(0, n, k)
    sshape = list(a.shape)
    sshape[d] = k
    source = random_values(rng, sshape, dtype_name(x))
    want = a.copy()
    np.add.at(want, tuple(slice(None) if j != d else iidx for j in range(a.ndim)), source)
    check(x.index_add(d, rstorch.tensor(iidx, dtype=rstorch.int64), rstorch.tensor(source)), want, dtype_name(x), rtol=1e-5)


@given(tensors(), st.data())
def test_masked_fill(pair, data):
    x, a = pair
    m = random_values(np.random.default_rng(data.draw(seeds)), a.shape[data.draw(st.integers(0, a.ndim)):], "bool")
    value = data.draw(st.sampled_from([0, 1, True]))
    want = np.where(m, np.asarray(value).astype(a.dtype), a)
    check(x.masked_fill(rstorch.tensor(m), value), want, dtype_name(x))


@given(tensors())
def test_nonzero(pair):
    x, a = pair
    check(x.nonzero(), np.argwhere(a), "int64")
    if a.ndim:
        for got, w in zip(x.nonzero(as_tuple=True), np.nonzero(a)):
            check(got, w, "int64")


@given(tensors(dtypes=NUMERIC), st.data())
def test_sort_argsort_topk(pair, data):
    x, a = pair
    ndim = max(x.dim(), 1)
    d = data.draw(st.integers(-ndim, ndim - 1))
    descending = data.draw(st.booleans())
    b = a.reshape(a.shape or (1,))
    order = np.argsort(-b if descending and b.dtype.kind != "u" else b, axis=d, kind="stable")
    if descending and b.dtype.kind == "u":
        order = np.argsort(-b.astype(np.int64), axis=d, kind="stable")
    values, indices = x.sort(d, descending=descending)
    check(values, np.take_along_axis(b, order, axis=d).reshape(a.shape), dtype_name(x))
    check(indices, order.reshape(a.shape), "int64")
    check(x.argsort(d, descending=descending), order.reshape(a.shape), "int64")
    n = b.shape[d]
    k = data.draw(st.integers(0 if x.dim() else 1, n))
    largest = data.draw(st.booleans())
    v, _ = x.topk(k, d, largest=largest)
    full = np.sort(b, axis=d)
    if largest:
        full = np.flip(full, axis=d)
    want = np.take(full, range(k), axis=d)
    if x.dim() == 0:
        want = want.reshape(())
    check(v, want, dtype_name(x))
