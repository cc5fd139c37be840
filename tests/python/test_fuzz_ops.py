"""Property-based fuzzing of the tensor API: random shapes, strides (as_strided views, transposes,
slices with steps, expand, diagonals, windows), indices (basic, advanced, negative, out of range,
bool masks), dtypes and edge values (0, -0., nan, +-inf, huge ints, int64 min/max, bools) through a
broad set of ops. Every call either returns a result (checked against NumPy where that is cheap
and the semantics are the same) or raises an exception class PyTorch uses; never a panic, a
signal or another exception.

The default profile is bounded for CI (measured in BENCHMARKS.md); RSTORCH_FUZZ=thorough runs
many more examples for bug hunting (RSTORCH_FUZZ_EXAMPLES per test, 3000 by default).
"""
import math
import os
import warnings

import numpy as np
import pytest
import rstorch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

THOROUGH = os.environ.get("RSTORCH_FUZZ") == "thorough"
fuzz = settings(max_examples=int(os.environ.get("RSTORCH_FUZZ_EXAMPLES", "3000")) if THOROUGH else 60,
                deadline=None, derandomize=not THOROUGH,
                suppress_health_check=list(HealthCheck))

# What PyTorch raises for bad input (IndexOutOfRangeError and NotImplementedError are among them).
ALLOWED = (RuntimeError, IndexError, TypeError, ValueError)

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
NP_DTYPES = {d: d for d in DTYPES if d != "bfloat16"}
FLOAT_EDGES = (0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, math.nan, math.inf, -math.inf, 1e38, -1e-40, 65504.0, 1e300)
INT_EDGES = (0, 1, -1, 2, 3, -3, 7, 127, -128, 255, 256, 2**31 - 1, -2**31, 2**63 - 1, -2**63)
# Integers as arguments (dims, sizes, indices, counts), from ordinary to absurd.
ARG_INTS = st.one_of(st.integers(-4, 5), st.sampled_from((2**31, 2**62, 2**63 - 1, -2**63, 2**63, 2**64, -2**64)))
SCALARS = st.one_of(st.sampled_from(FLOAT_EDGES), st.sampled_from(INT_EDGES), st.booleans(),
                    st.sampled_from((2**63, -2**63 - 1, 2**64)))


class Draws:
    """Draws the arguments of one test's calls, remembering whether an int outside int64 was
    among them since the last call: PyO3 reads int64 parameters itself and raises OverflowError
    for those, where PyTorch raises ValueError or TypeError (rstorch's own int parsing does)."""

    def __init__(self, data):
        self.data, self.huge = data, False

    def _seen(self, v):
        if type(v) is int and not -2**63 <= v < 2**63:
            self.huge = True
        return v

    def int(self):
        return self._seen(self.data.draw(ARG_INTS))

    def scalar(self):
        return self._seen(self.data.draw(SCALARS))

    def draw(self, strategy):
        return self.data.draw(strategy)


def attempt(fn, *args, draws=None):
    """fn's result, or None where it raised one of PyTorch's exception classes. Anything else
    (a PanicException, SystemError, an OverflowError without an int outside int64 ...)
    propagates and fails the test."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    except ALLOWED:
        return None
    except OverflowError:
        if draws is None or not draws.huge:
            raise
        return None
    finally:
        if draws is not None:
            draws.huge = False


def small(t):
    """Whether t's nested-list form is small: tolist() of a (2**62, 0) tensor is 2**62 lists."""
    count = 1
    for n in t.shape:
        count *= n
        if count > 4096:
            return False
    return True


def to_numpy(t):
    t = t.detach()
    if t.dtype == rstorch.bfloat16:
        t = t.float()
    return t.numpy()


def same(t, expected, exact=True):
    """t holds `expected`'s values (NaNs equal; -0. == 0.) with its shape."""
    got = to_numpy(t)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if exact or got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, expected.astype(got.dtype) if got.dtype != expected.dtype else expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True)


# ----- tensors ----------------------------------------------------------------------------------------

def storage_values(draw, dtype, n):
    if dtype == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        vals = draw(st.lists(st.sampled_from(FLOAT_EDGES) | st.floats(-8, 8, width=16), min_size=n, max_size=n))
        with np.errstate(all="ignore"):
            return np.array(vals, dtype=np.float64).astype(np.float32 if dtype == "bfloat16" else dtype)
    vals = draw(st.lists(st.sampled_from(INT_EDGES) | st.integers(-9, 9), min_size=n, max_size=n))
    return np.array(vals, dtype=np.int64).astype(dtype)  # wraps into the narrower types


@st.composite
def strided(draw, dtypes=DTYPES):
    """(tensor, array or None): a view with a random geometry over a random storage, then up to
    three more views; the array is NumPy's same view (None for bfloat16)."""
    dtype = draw(st.sampled_from(dtypes))
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    strides = tuple(draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim)))
    offset = draw(st.integers(0, 3))
    extent = 0 if 0 in shape else offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    storage = storage_values(draw, dtype, max(extent, offset) + draw(st.integers(0, 3)))
    base = rstorch.tensor(storage)
    if dtype == "bfloat16":
        base = base.to(rstorch.bfloat16)
    t = base.as_strided(shape, strides, offset)
    a = None if dtype == "bfloat16" else np.lib.stride_tricks.as_strided(
        storage[offset:] if extent else storage[:0], shape, tuple(s * storage.itemsize for s in strides))
    for _ in range(draw(st.integers(0, 3))):
        t, a = draw(st.sampled_from(VIEWS))(draw, t, a)
    return t, a


def _dim(draw, t):
    return draw(st.integers(0, t.dim() - 1)) if t.dim() else None


def v_transpose(draw, t, a):
    if t.dim() < 2:
        return t, a
    d0, d1 = _dim(draw, t), _dim(draw, t)
    return t.transpose(d0, d1), None if a is None else np.swapaxes(a, d0, d1)


def v_slice(draw, t, a):
    d = _dim(draw, t)
    if d is None:
        return t, a
    start, stop, step = draw(st.integers(-5, 5)), draw(st.integers(-5, 5)), draw(st.integers(1, 4))
    index = (slice(None),) * d + (slice(start, stop, step),)
    return t[index], None if a is None else a[index]


def v_select(draw, t, a):
    d = _dim(draw, t)
    if d is None or t.shape[d] == 0:
        return t, a
    i = draw(st.integers(-t.shape[d], t.shape[d] - 1))
    return t.select(d, i), None if a is None else np.take(a, i, axis=d)


def v_unsqueeze(draw, t, a):
    d = draw(st.integers(0, t.dim()))
    return t.unsqueeze(d), None if a is None else np.expand_dims(a, d)


def v_expand(draw, t, a):
    lead = draw(st.integers(0, 2))
    sizes = [draw(st.integers(0, 3)) for _ in range(lead)] + [
        draw(st.integers(0, 3)) if n == 1 else n for n in t.shape]
    return t.expand(*sizes), None if a is None else np.broadcast_to(a, sizes)


def v_diagonal(draw, t, a):
    if t.dim() < 2:
        return t, a
    d0 = _dim(draw, t)
    d1 = (d0 + 1) % t.dim()
    k = draw(st.integers(-3, 3))
    return t.diagonal(k, d0, d1), None if a is None else np.diagonal(a, k, d0, d1)


def v_unfold(draw, t, a):
    d = _dim(draw, t)
    if d is None:
        return t, a
    size, step = draw(st.integers(0, t.shape[d])), draw(st.integers(1, 3))
    if a is not None:
        windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=d)
        a = windows[(slice(None),) * d + (slice(None, None, step),)]
    return t.unfold(d, size, step), a


VIEWS = (v_transpose, v_slice, v_select, v_unsqueeze, v_expand, v_diagonal, v_unfold)


# ----- the views themselves ------------------------------------------------------------------------

@fuzz
@given(strided())
def test_random_views_read_what_numpy_reads(pair):
    t, a = pair
    if a is not None:
        same(t, a)
        same(t.contiguous(), a)
        same(t.clone(), a)
    assert t.numel() == math.prod(t.shape)
    attempt(lambda: t.view(-1))
    attempt(lambda: t.reshape(-1))
    attempt(lambda: t.flatten())
    attempt(lambda: t.numpy() if t.dtype != rstorch.bfloat16 else None)


@fuzz
@given(strided(), st.data())
def test_views_with_any_arguments(pair, data):
    """View ops with arguments from ordinary to absurd: a view or a clean error, and a view's
    elements are always readable."""
    t, _ = pair
    d = Draws(data)
    i = d.int
    ops = [
        lambda: t.view(i(), i()), lambda: t.reshape(i()), lambda: t.narrow(i(), i(), i()),
        lambda: t.select(i(), i()), lambda: t.unsqueeze(i()), lambda: t.squeeze(i()),
        lambda: t.transpose(i(), i()), lambda: t.permute(*[i() for _ in range(t.dim())]),
        lambda: t.expand(*[i() for _ in range(t.dim() + 1)]), lambda: t.unfold(i(), i(), i()),
        lambda: t.diagonal(i(), i(), i()), lambda: t.movedim(i(), i()), lambda: t.flatten(i(), i()),
        # chunk's count stays small: `zeros(0).chunk(2**62)` asking for 2**62 pieces is the
        # huge-shapes work's (it panics with "capacity overflow" today).
        lambda: t.unflatten(i(), (i(), i())), lambda: t.split(i(), i()),
        lambda: t.chunk(data.draw(st.integers(-2, 9)), i()),
        lambda: t.as_strided((i(), i()), (i(), i()), i()),
        lambda: t.as_strided([data.draw(st.integers(0, 5))], [data.draw(st.integers(0, 2**63 - 1))]),
        lambda: t[i():i():data.draw(st.integers(1, 2**63 - 1))],
        lambda: t.unbind(i()), lambda: t.t(), lambda: t.mT if t.dim() >= 2 else t,
    ]
    for _ in range(4):
        out = attempt(data.draw(st.sampled_from(ops)), draws=d)
        for v in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(v, rstorch.Tensor) and small(v):
                attempt(v.tolist)
                attempt(v.clone)


# ----- indexing ---------------------------------------------------------------------------------------

@st.composite
def index_expr(draw, shape):
    """An index for a tensor of `shape`: ints (in range, negative, out of range, huge), slices
    (steps, out of range bounds, a zero or negative step), None, Ellipsis, bools, int lists and
    tensors, bool masks (right and wrong shapes)."""
    parts = []
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        n = shape[len(parts)] if len(parts) < len(shape) else 3
        parts.append(draw(st.one_of(
            st.integers(-n - 1, n),
            ARG_INTS,
            st.builds(slice, st.none() | st.integers(-6, 6), st.none() | st.integers(-6, 6),
                      st.none() | st.integers(-2, 3)),
            st.just(None), st.just(Ellipsis), st.booleans(),
            st.lists(st.integers(-n - 1, n), max_size=4),
            st.lists(st.integers(-n, max(n - 1, 0)), min_size=1, max_size=4).map(lambda v: rstorch.tensor(v)),
            st.lists(st.booleans(), min_size=n, max_size=n).map(lambda v: rstorch.tensor(v, dtype=rstorch.bool)),
            st.lists(st.booleans(), min_size=0, max_size=5).map(lambda v: rstorch.tensor(v, dtype=rstorch.bool)),
        )))
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]
    return tuple(parts)


def numpy_index(index):
    if isinstance(index, tuple):
        return tuple(numpy_index(p) for p in index)
    if isinstance(index, rstorch.Tensor):
        return index.numpy()
    return index


def simple_index(index):
    """Indices whose meaning NumPy and PyTorch share: ints, slices with positive steps, None,
    Ellipsis, and at most one int list or mask (no bools, whose meaning differs)."""
    parts = index if isinstance(index, tuple) else (index,)
    advanced = [p for p in parts if isinstance(p, (list, rstorch.Tensor))]
    ok = all(not isinstance(p, bool) and (not isinstance(p, slice) or (p.step or 1) > 0)
             and not (isinstance(p, list) and not p) for p in parts)
    return ok and len(advanced) <= 1 and isinstance(index, tuple)


@fuzz
@given(strided(), st.data())
def test_getitem(pair, data):
    t, a = pair
    index = data.draw(index_expr(t.shape))
    out = attempt(lambda: t[index])
    if a is None or not simple_index(index):
        return
    try:
        want = a[numpy_index(index)]
    except (IndexError, ValueError, TypeError, OverflowError):
        return  # PyTorch may accept what NumPy does not (and the reverse is a clean error above)
    if out is not None:
        same(out, want)


@fuzz
@given(strided(), st.data())
def test_setitem(pair, data):
    t, _ = pair
    t = t.clone() if data.draw(st.booleans()) else t  # a view, possibly overlapping or expanded
    index = data.draw(index_expr(t.shape))
    value = data.draw(st.one_of(SCALARS, st.builds(lambda v: rstorch.tensor(v), st.sampled_from(FLOAT_EDGES))))
    d = Draws(data)
    d._seen(value)
    attempt(t.__setitem__, index, value, draws=d)
    if small(t):
        attempt(t.tolist)


# ----- elementwise, reductions and the rest ------------------------------------------------------

UNARY = ("neg", "abs", "exp", "log", "sqrt", "sin", "tanh", "sigmoid", "relu", "floor", "ceil", "round",
         "trunc", "sign", "reciprocal", "square", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite",
         "nan_to_num", "clone", "contiguous", "float", "double", "half", "long", "int", "bool", "byte")
EXACT_UNARY = {"neg": np.negative, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
               "clone": lambda a: a, "contiguous": lambda a: a, "logical_not": np.logical_not,
               "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


@fuzz
@given(strided(), st.data())
def test_unary(pair, data):
    t, a = pair
    for _ in range(3):
        name = data.draw(st.sampled_from(UNARY))
        method = getattr(t, name, None)
        if method is None:
            continue  # not every dtype method exists everywhere yet
        out = attempt(method)
        if out is not None and a is not None and name in EXACT_UNARY and a.dtype.kind == "f":
            same(out, EXACT_UNARY[name](a))


BINARY = ("add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum", "atan2",
          "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor")
EXACT_BINARY = {"maximum": np.maximum, "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal,
                "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


@fuzz
@given(strided(), strided(), st.data())
def test_binary(x, y, data):
    (t, a), (u, b) = x, y
    d = Draws(data)
    for _ in range(3):
        name = data.draw(st.sampled_from(BINARY))
        other = data.draw(st.sampled_from(("tensor", "scalar")))
        rhs = u if other == "tensor" else d.scalar()
        out = attempt(getattr(t, name), rhs, draws=d)
        if out is None or a is None or name not in EXACT_BINARY:
            continue
        if other == "tensor" and b is not None and a.dtype == b.dtype and a.dtype.kind == "f":
            with np.errstate(all="ignore"):
                same(out, EXACT_BINARY[name](a, b))
    for op in (lambda: t + u if data.draw(st.booleans()) else t.add_(u),
               lambda: t.mul_(d.scalar()),
               lambda: rstorch.where(t > 0, t, u),
               lambda: t.masked_fill(u.bool() if u.shape == t.shape else t > 0, d.scalar()),
               lambda: t.clamp(d.scalar(), d.scalar()),
               lambda: t.copy_(u),
               lambda: t @ u,
               lambda: rstorch.cat([t, u], d.int()),
               lambda: rstorch.stack([t, u], d.int())):
        attempt(op, draws=d)


REDUCTIONS = ("sum", "prod", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any", "var", "std",
              "norm", "logsumexp", "cumsum", "cumprod", "softmax", "log_softmax", "sort", "argsort", "median")


@fuzz
@given(strided(), st.data())
def test_reductions_and_rearrangements(pair, data):
    t, a = pair
    if t.numel() > 4096:
        return
    d = Draws(data)
    no_keepdim = ("cumsum", "cumprod", "softmax", "log_softmax", "sort", "argsort")
    for _ in range(4):
        name = data.draw(st.sampled_from(REDUCTIONS))
        how = data.draw(st.sampled_from(("all", "dim", "dim_keepdim")))
        fn = getattr(t, name)
        if how == "all" and name not in ("cumsum", "cumprod", "softmax", "log_softmax"):
            out = attempt(fn)
        elif how == "dim_keepdim" and name not in no_keepdim:
            out = attempt(lambda fn=fn: fn(d.int(), keepdim=True), draws=d)
        else:
            out = attempt(lambda fn=fn: fn(d.int()), draws=d)
        if name == "sum" and how == "all" and out is not None and a is not None and a.dtype.kind == "f" \
                and a.dtype != np.float16 and np.isfinite(a).all() and (np.abs(a) < 1e30).all():
            same(out, np.sum(a, dtype=np.float64), exact=False)
    i = d.int
    for op in (lambda: t.topk(i()), lambda: t.kthvalue(i()), lambda: t.flip(i()), lambda: t.roll(i(), i()),
               lambda: t.tril(i()), lambda: t.triu(i()), lambda: t.repeat(*[i() % 3 for _ in range(t.dim())]),
               lambda: t.index_select(i(), rstorch.tensor([i() % 7 - 3])),
               lambda: t.gather(i(), rstorch.zeros(t.shape, dtype=rstorch.int64) + i() % 5),
               lambda: t.clone().scatter_(i(), rstorch.zeros(t.shape, dtype=rstorch.int64) + i() % 5, 1.0),
               lambda: t.nonzero(), lambda: t.unique() if hasattr(t, "unique") else None,
               lambda: t.to(getattr(rstorch, data.draw(st.sampled_from(DTYPES)))),
               lambda: t.item(), lambda: float(t), lambda: int(t), lambda: bool(t),
               lambda: t.fill_(d.scalar()), lambda: t.zero_(), lambda: repr(t)):
        attempt(op, draws=d)


@fuzz
@given(st.data())
def test_creation_with_any_sizes_and_values(data):
    """Factories and conversions with sizes and values from ordinary to absurd."""
    # No size that is valid and huge: allocation failure is another test's business.
    d = Draws(data)
    i = lambda: d._seen(data.draw(st.one_of(st.integers(-3, 6), st.sampled_from((2**63 - 1, -2**63, 2**64)))))
    bounds = st.sampled_from((0, 1, -1, 2.5, -0.0, 0.25, 7, math.nan, math.inf, -math.inf, True))
    dtype = getattr(rstorch, data.draw(st.sampled_from(DTYPES)))
    for op in (lambda: rstorch.tensor([d.scalar() for _ in range(3)], dtype=dtype),
               lambda: rstorch.tensor(d.scalar()),
               lambda: rstorch.full((i() % 5,), d.scalar(), dtype=dtype),
               lambda: rstorch.arange(data.draw(bounds), data.draw(bounds), data.draw(bounds)),
               lambda: rstorch.empty(i(), i() % 3),
               lambda: rstorch.zeros(0, i(), i()),
               lambda: rstorch.ones(i()) if abs(i()) < 2**20 else None,
               lambda: rstorch.linspace(d.scalar(), d.scalar(), i() % 50),
               lambda: rstorch.zeros(i() % 4, 2).view(i(), i()),
               lambda: rstorch.eye(i() % 8, i() % 8),
               lambda: rstorch.tensor([1.0, 2.0]).new_zeros(i() % 4, i() % 4)):
        out = attempt(op, draws=d)
        if isinstance(out, rstorch.Tensor) and small(out):
            attempt(out.tolist)


# ----- what the fuzz found ------------------------------------------------------------------------

def test_ints_outside_int64_raise_pytorchs_errors():
    x = rstorch.arange(6.).view(2, 3)
    for index in (2**63, (0, 2**63), -2**63 - 1, (slice(None), 2**64)):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            x[index]
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        x[2**63] = 1.0
    for make in (lambda: x.view(2**63), lambda: x.reshape(2**63, -1), lambda: x.expand(2**63, 2, 3),
                 lambda: rstorch.zeros(2**64), lambda: x.permute(2**63, 0)):
        with pytest.raises(TypeError, match="failed to unpack the object at pos 1 with error"):
            make()
    # Slice bounds are clamped to the size, as Python's and PyTorch's are.
    assert x[2**63:].shape == (0, 3) and x[-2**64:].shape == (2, 3) and x[::2**63].shape == (1, 3)
