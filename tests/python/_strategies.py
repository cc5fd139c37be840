"""Hypothesis strategies shared by the property tests: rstorch tensors paired with the NumPy array
holding the same values, over random shapes, strides (permuted, sliced with steps, expanded) and
dtypes, plus PyTorch's type-promotion rules written out independently of rstorch."""
import numpy as np
from hypothesis import strategies as st

import rstorch

FLOATS = ("float32", "float64")
INTS = ("int64", "int32", "uint8")
ALL_DTYPES = FLOATS + INTS + ("bool",)
NUMERIC = FLOATS + INTS
LAYOUTS = ("contiguous", "permuted", "sliced", "expanded")

shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


def rs_dtype(name):
    return getattr(rstorch, name)


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def random_values(rng, shape, dtype):
    """Values that exercise each dtype: small ints, floats that are often exact quarters
    (so rounding ties occur), both signs."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == "uint8":
        return np.asarray(rng.integers(0, 13, shape), dtype=np.uint8)
    if dtype in INTS:
        return np.asarray(rng.integers(-6, 7, shape), dtype=dtype)
    vals = np.asarray(rng.uniform(-4, 4, shape))
    if rng.random() < 0.5:
        vals = np.round(vals * 4) / 4
    return np.asarray(vals, dtype=dtype)


def _permuted(arr, rng):
    """A tensor with arr's values whose memory is in another dim order."""
    if arr.ndim < 2:
        return rstorch.tensor(arr), arr
    if arr.ndim == 2 and rng.random() < 0.5:
        return rstorch.tensor(np.ascontiguousarray(arr.T)).t(), arr
    perm = rng.permutation(arr.ndim)
    stored = np.ascontiguousarray(arr.transpose(perm))
    inverse = np.argsort(perm)
    return rstorch.tensor(stored).permute(*[int(i) for i in inverse]), arr


def _sliced(arr, rng):
    """A view with steps and an offset into a bigger tensor."""
    steps = [int(rng.integers(1, 4)) for _ in arr.shape]
    starts = [int(rng.integers(0, 2)) for _ in arr.shape]
    big_shape = tuple(s + n * k + 1 for s, n, k in zip(starts, arr.shape, steps))
    big = random_values(rng, big_shape, arr.dtype.name)
    index = tuple(slice(s, s + n * k, k) for s, n, k in zip(starts, arr.shape, steps))
    big[index] = arr
    return rstorch.tensor(big)[index], arr


def _expanded(arr, rng):
    """A broadcast view (stride 0) along one dim, or a new leading dim."""
    if arr.ndim == 0:
        return rstorch.tensor(arr), arr
    d = int(rng.integers(0, arr.ndim))
    if arr.shape[d] == 0:
        return rstorch.tensor(arr), arr
    small = arr.take([0], axis=d)
    full = np.broadcast_to(small, arr.shape).copy()
    return rstorch.tensor(small).expand(*arr.shape), full


def make_tensor(arr, layout, rng):
    """(rstorch tensor, numpy array) with equal values; the tensor has the given layout."""
    if layout == "permuted":
        return _permuted(arr, rng)
    if layout == "sliced":
        return _sliced(arr, rng)
    if layout == "expanded":
        return _expanded(arr, rng)
    return rstorch.tensor(arr), arr


@st.composite
def tensors(draw, dtypes=ALL_DTYPES, shape=None, shape_st=shapes, layouts=LAYOUTS):
    """A (tensor, array) pair."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(shape_st)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    layout = draw(st.sampled_from(layouts))
    arr = random_values(rng, shape, dtype)
    t, a = make_tensor(arr, layout, rng)
    assert tuple(t.shape) == a.shape, (layout, t.shape, a.shape)
    return t, a


@st.composite
def broadcastable_shapes(draw):
    """Two shapes that broadcast together (dims set to 1 or dropped at random)."""
    base = draw(shapes)
    def variant():
        dims = [1 if draw(st.booleans()) else n for n in base]
        drop = draw(st.integers(0, len(dims)))
        return tuple(dims[drop:])
    return variant(), variant()


# ----- PyTorch's promotion rules, written independently of rstorch ----------------------------

def category(dtype):
    if dtype == "bool":
        return 0
    return 2 if dtype in FLOATS else 1


def promote(a, b):
    """`torch.promote_types` for the dtypes tested here."""
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    fa, fb = a in FLOATS, b in FLOATS
    if fa and fb:
        return "float64" if "float64" in (a, b) else "float32"
    if fa or fb:
        return a if fa else b
    return np.promote_types(a, b).name


def result_type(*operands):
    """PyTorch's result_type. Operands: ("tensor", dtype), ("zerodim", dtype) or a Python
    number. Lower priority operands count only when they bring a higher category."""
    groups = {"tensor": None, "zerodim": None, "scalar": None}
    for op in operands:
        if isinstance(op, tuple):
            kind, d = op
        else:
            kind = "scalar"
            d = "bool" if isinstance(op, bool) else "int64" if isinstance(op, int) else "float32"
        groups[kind] = d if groups[kind] is None else promote(groups[kind], d)

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None or higher in FLOATS:
            return higher
        if higher == "bool" or lower in FLOATS:
            return promote(higher, lower)
        return higher
    return combine(groups["tensor"], combine(groups["zerodim"], groups["scalar"])) or "float32"


def operand(t):
    return ("zerodim" if t.dim() == 0 else "tensor", dtype_name(t))


# ----- comparing with NumPy ---------------------------------------------------------------------

def check(got, expected, dtype=None, rtol=1e-5, atol=1e-6):
    """`got` (a tensor) has `expected`'s shape and values, and `dtype` when given."""
    assert isinstance(got, rstorch.Tensor), type(got)
    expected = np.asarray(expected)
    assert tuple(got.shape) == expected.shape, f"shape {tuple(got.shape)} != {expected.shape}"
    if dtype is not None:
        assert dtype_name(got) == dtype, f"dtype {dtype_name(got)} != {dtype}"
    g = got.numpy()
    if g.dtype.kind == "f" or expected.dtype.kind == "f":
        np.testing.assert_allclose(g.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, expected)
