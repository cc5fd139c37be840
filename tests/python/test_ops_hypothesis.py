"""Property tests: rstorch ops against NumPy over random shapes (0-4 dims), strides (permuted,
sliced with steps, expanded) and dtypes, with PyTorch's type-promotion rules."""
import math
import operator
import os

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import rstorch
from _strategies import (
    ALL_DTYPES, FLOATS, INTS, NUMERIC, broadcastable_shapes, check, dtype_name, nonempty_shapes, operand, result_type, rs_dtype, tensors,
)

# RSTORCH_HYPOTHESIS=thorough runs many more examples (for bug hunting, not CI).
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

settings.register_profile("ops", max_examples=30, deadline=None)
settings.register_profile("thorough", max_examples=600, deadline=None)
settings.load_profile(os.environ.get("RSTORCH_HYPOTHESIS", "ops"))

seeds = st.integers(0, 2**32 - 1)
layouts = st.sampled_from(("contiguous", "permuted", "sliced", "expanded"))


@st.composite
def tensor_pair(draw, dtypes=ALL_DTYPES):
    """Two (tensor, array) pairs with broadcastable shapes and independent dtypes and layouts."""
    sa, sb = draw(broadcastable_shapes())
    a = draw(tensors(dtypes=dtypes, shape=sa))
    b = draw(tensors(dtypes=dtypes, shape=sb))
    return a, b


def np_binary(op, a, b, dtype):
    """NumPy's result of `op` computed in `dtype` (integers with Python's floor semantics)."""
    with np.errstate(all="ignore"):
        return np.asarray(op(np.asarray(a).astype(dtype), np.asarray(b).astype(dtype))).astype(dtype)


# ----- binary arithmetic -------------------------------------------------------------------------

ARITH = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
}


@given(tensor_pair(), st.sampled_from(sorted(ARITH)))
def test_arith_tensor_tensor(pair, name):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    if name == "sub" and dtype == "bool":
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
            x - y
        return
    op = ARITH[name]
    want = np_binary(op, a, b, dtype) if dtype != "bool" else op(a, b) if name != "add" else a | b
    check(op(x, y), want, dtype)
    check(getattr(x, name)(y), want, dtype)


@given(tensor_pair(dtypes=NUMERIC))
def test_true_division_promotes_to_float(pair):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    dtype = dtype if dtype in FLOATS else "float32"
    check(x / y, np_binary(operator.truediv, a, b, dtype), dtype)
    check(rstorch.div(x, y), np_binary(operator.truediv, a, b, dtype), dtype)


@given(tensor_pair(dtypes=NUMERIC), st.sampled_from(["floordiv", "mod"]))
def test_floor_division_and_remainder(pair, name):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    if dtype not in FLOATS:
        assume((b != 0).all())
    op = getattr(operator, name)
    check(op(x, y), np_binary(op, a, b, dtype), dtype, rtol=1e-4, atol=1e-4)


@given(tensor_pair(dtypes=NUMERIC))
def test_pow_tensor_tensor(pair):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    if dtype not in FLOATS:
        y = y.abs() % 4
        b = np.abs(b) % 4
    check(x ** y, np_binary(operator.pow, a, b, dtype), dtype, rtol=1e-4, atol=1e-5)


SCALARS = st.one_of(st.integers(-5, 5), st.sampled_from([-2.5, -0.5, 0.25, 1.0, 3.0]), st.booleans())


@given(tensors(dtypes=NUMERIC + ("bool",)), SCALARS, st.sampled_from(["add", "sub", "mul", "truediv"]), st.booleans())
def test_arith_with_python_scalar(pair, s, name, reflected):
    x, a = pair
    dtype = result_type(operand(x), s)
    if name == "truediv" and dtype not in FLOATS:
        dtype = "float32"
    if name == "sub" and dtype == "bool":
        with pytest.raises(RuntimeError):
            (s - x) if reflected else (x - s)
        return
    op = getattr(operator, name)
    got = op(s, x) if reflected else op(x, s)
    if dtype == "bool":
        want = (a | s) if name == "add" else (a & s)
    else:
        sa = np.asarray(s).astype(dtype)
        want = np_binary(op, sa, a, dtype) if reflected else np_binary(op, a, sa, dtype)
    check(got, want, dtype)


def test_scalar_promotion_examples():
    """The cases where PyTorch differs from NumPy."""
    i32 = rstorch.tensor([1, 2], dtype=rstorch.int32)
    u8 = rstorch.tensor([1, 2], dtype=rstorch.uint8)
    assert (i32 + 1.5).dtype == rstorch.float32
    assert (i32 + 1).dtype == rstorch.int32
    assert (u8 + rstorch.tensor(300)).dtype == rstorch.uint8
    assert (u8 + rstorch.tensor(300)).tolist() == [45, 46]
    assert (i32 * rstorch.tensor(2.5, dtype=rstorch.float64)).dtype == rstorch.float64
    assert (rstorch.tensor([True]) + 1).dtype == rstorch.int64
    assert (rstorch.tensor([True]) + 1.5).dtype == rstorch.float32
    assert (rstorch.tensor(3) + rstorch.tensor(2.5, dtype=rstorch.float64)).dtype == rstorch.float64
    assert (u8 - 5).tolist() == [252, 253]
    assert (rstorch.tensor([1, 2], dtype=rstorch.int64) + rstorch.tensor([1.0], dtype=rstorch.float32)).dtype == rstorch.float32


@given(tensors(dtypes=NUMERIC), st.sampled_from([0, 1, 2, 3, 0.5, 2.0, -1.0]))
def test_pow_scalar_exponent(pair, e):
    x, a = pair
    dtype = result_type(operand(x), e)
    if isinstance(e, float) and e < 0 and dtype not in FLOATS:
        dtype = "float32"
    with np.errstate(all="ignore"):
        want = np.power(a.astype(dtype), np.asarray(e).astype(dtype))
    check(x ** e, want, dtype, rtol=1e-4, atol=1e-5)
    check(x.pow(e), want, dtype, rtol=1e-4, atol=1e-5)


@given(tensors(dtypes=FLOATS + ("int64",)), st.sampled_from([2, 0.5, 3]))
def test_reflected_pow(pair, base):
    x, a = pair
    dtype = result_type(operand(x), base)
    if dtype not in FLOATS:
        x, a = x.abs(), np.abs(a)
    with np.errstate(all="ignore"):
        want = np.power(np.asarray(base).astype(dtype), a.astype(dtype))
    check(base ** x, want, dtype, rtol=1e-4)


def test_integer_division_by_zero_raises():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        rstorch.tensor([1, 2]) // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        rstorch.tensor([1, 2]) % rstorch.tensor([1, 0])
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        rstorch.tensor([2]) ** -1
    # A tensor of negative exponents is computed (truncated toward zero), as PyTorch does.
    assert (rstorch.tensor([2, 1, -1]) ** rstorch.tensor([-1, -1, -1])).tolist() == [0, 1, -1]


def test_bool_kernels_not_implemented():
    b = rstorch.tensor([True, False])
    for f in (lambda: b // b, lambda: b % b, lambda: b ** b):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            f()
    assert (b ** 2).dtype == rstorch.int64
    assert (b / b).dtype == rstorch.float32


# ----- comparisons and logical ops --------------------------------------------------------------

COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]


@given(tensor_pair(), st.sampled_from(COMPARE))
def test_comparisons(pair, name):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    op = getattr(operator, name)
    want = op(a.astype(dtype), b.astype(dtype))
    check(op(x, y), want, "bool")
    check(getattr(x, name)(y), want, "bool")


@given(tensors(), SCALARS, st.sampled_from(COMPARE))
def test_comparisons_with_scalars(pair, s, name):
    x, a = pair
    dtype = result_type(operand(x), s)
    op = getattr(operator, name)
    check(op(x, s), op(a.astype(dtype), np.asarray(s).astype(dtype)), "bool")


@given(tensor_pair(), st.sampled_from(["logical_and", "logical_or", "logical_xor"]))
def test_logical_ops(pair, name):
    (x, a), (y, b) = pair
    check(getattr(x, name)(y), getattr(np, name)(a, b), "bool")
    check(getattr(rstorch, name)(x, y), getattr(np, name)(a, b), "bool")


@given(tensors())
def test_logical_not(pair):
    x, a = pair
    check(x.logical_not(), np.logical_not(a), "bool")


@given(tensor_pair(dtypes=INTS + ("bool",)), st.sampled_from(["and_", "or_", "xor"]))
def test_bitwise_ops(pair, name):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    op = getattr(operator, name)
    check(op(x, y), op(a.astype(dtype), b.astype(dtype)), dtype)


@given(tensors(dtypes=INTS + ("bool",)))
def test_bitwise_not(pair):
    x, a = pair
    check(~x, ~a, dtype_name(x))


# ----- unary math -------------------------------------------------------------------------------

FLOAT_UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "exp2": np.exp2, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1, "rsqrt": lambda v: 1 / np.sqrt(v),
    "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh,
    "reciprocal": lambda v: 1 / v, "erf": np.vectorize(math.erf, otypes=[np.float64]),
}
KEEPS_DTYPE = {
    "neg": np.negative, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "trunc": np.trunc, "sign": np.sign, "relu": lambda v: np.maximum(v, 0), "square": np.square,
}


@given(tensors(dtypes=NUMERIC + ("bool",)), st.sampled_from(sorted(FLOAT_UNARY)))
def test_float_unary(pair, name):
    x, a = pair
    dtype = dtype_name(x) if dtype_name(x) in FLOATS else "float32"
    with np.errstate(all="ignore"):
        want = FLOAT_UNARY[name](a.astype(np.float64)).astype(dtype)
    check(getattr(x, name)(), want, dtype, rtol=2e-5, atol=1e-5)
    check(getattr(rstorch, name)(x), want, dtype, rtol=2e-5, atol=1e-5)


@given(tensors(dtypes=NUMERIC), st.sampled_from(sorted(KEEPS_DTYPE)))
def test_unary_keeping_dtype(pair, name):
    x, a = pair
    if name == "square" and dtype_name(x) not in FLOATS:
        dtype = dtype_name(x)
    else:
        dtype = dtype_name(x)
    with np.errstate(all="ignore"):
        want = KEEPS_DTYPE[name](a).astype(dtype)
    check(getattr(x, name)(), want, dtype)


def test_round_half_to_even():
    x = rstorch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 3.5, 2.4999])
    assert x.round().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 4.0, 2.0]
    assert rstorch.tensor([1.2345]).round(decimals=2).tolist() == [pytest.approx(1.23)]


@given(tensors(dtypes=NUMERIC))
def test_unary_in_place_forms(pair):
    x, a = pair
    x = x.clone()
    v = x._version
    x.neg_()
    check(x, (-a).astype(a.dtype), dtype_name(x))
    assert x._version > v


# ----- where, clamp, maximum/minimum ------------------------------------------------------------

@given(st.data())
def test_where(data):
    sc, sa, sb = data.draw(broadcastable_shapes()) + (data.draw(broadcastable_shapes())[0],)
    shape = np.broadcast_shapes(sc, sa)
    sb = tuple(1 for _ in sb)[: len(shape)]
    c, cn = data.draw(tensors(dtypes=("bool",), shape=sc))
    x, a = data.draw(tensors(dtypes=NUMERIC, shape=sa))
    y, b = data.draw(tensors(dtypes=NUMERIC, shape=sb))
    dtype = result_type(operand(x), operand(y))
    check(rstorch.where(c, x, y), np.where(cn, a.astype(dtype), b.astype(dtype)), dtype)
    s = data.draw(SCALARS)
    dtype = result_type(operand(x), s)
    check(rstorch.where(c, x, s), np.where(cn, a.astype(dtype), np.asarray(s).astype(dtype)), dtype)


@given(tensors(dtypes=NUMERIC), st.one_of(st.none(), st.integers(-3, 2)), st.one_of(st.none(), st.integers(0, 4), st.just(1.5)))
def test_clamp_scalars(pair, lo, hi):
    x, a = pair
    if lo is None and hi is None:
        with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
            x.clamp()
        return
    dtype = result_type(operand(x), *[v for v in (lo, hi) if v is not None])
    want = a.astype(dtype)

    def bound(v):
        # PyTorch saturates an integer bound beyond the dtype (uint8 clamp(min=-1) is a no-op)
        # rather than wrapping it as NumPy's astype does.
        if np.issubdtype(np.dtype(dtype), np.integer):
            info = np.iinfo(dtype)
            v = min(max(v, info.min), info.max)
        return np.asarray(v).astype(dtype)
    if lo is not None:
        want = np.maximum(want, bound(lo))
    if hi is not None:
        want = np.minimum(want, bound(hi))
    check(x.clamp(lo, hi), want, dtype)
    check(rstorch.clamp(x, min=lo, max=hi), want, dtype)


@given(tensor_pair(dtypes=NUMERIC), st.sampled_from(["maximum", "minimum"]))
def test_maximum_minimum(pair, name):
    (x, a), (y, b) = pair
    dtype = result_type(operand(x), operand(y))
    want = getattr(np, name)(a.astype(dtype), b.astype(dtype))
    check(getattr(rstorch, name)(x, y), want, dtype)


def test_maximum_propagates_nan():
    x = rstorch.tensor([float("nan"), 1.0, 2.0])
    y = rstorch.tensor([0.0, float("nan"), 1.0])
    r = rstorch.maximum(x, y).tolist()
    assert math.isnan(r[0]) and math.isnan(r[1]) and r[2] == 2.0


# ----- reductions -------------------------------------------------------------------------------

@st.composite
def reduce_dims(draw, ndim):
    """None, one dim, or a list of distinct dims (possibly negative)."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1]))
    kind = draw(st.sampled_from(["none", "one", "several"]))
    if kind == "none":
        return None
    if kind == "one":
        return draw(st.integers(-ndim, ndim - 1))
    dims = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return [d - ndim if draw(st.booleans()) else d for d in dims]


def np_axis(dim):
    if dim is None:
        return None
    return tuple(dim) if isinstance(dim, list) else dim


def call_reduce(x, name, dim, keepdim, **kw):
    if dim is None:
        return getattr(x, name)(**kw) if not keepdim else getattr(x, name)(dim=None, keepdim=False, **kw)
    return getattr(x, name)(dim, keepdim=keepdim, **kw)


def np_reduce(f, a, dim, keepdim, **kw):
    """NumPy's reduction with PyTorch's handling of 0-dim inputs (dim 0 or -1 is the element)."""
    if a.ndim == 0 and dim is not None:
        return np.asarray(f(a.reshape(1), axis=0, **kw))
    return np.asarray(f(a, axis=np_axis(dim), keepdims=keepdim, **kw))


@given(st.data(), st.sampled_from(["sum", "prod"]))
def test_sum_prod(data, name):
    x, a = data.draw(tensors())
    dim = data.draw(reduce_dims(x.dim()))
    keepdim = data.draw(st.booleans()) and dim is not None
    dtype = dtype_name(x) if dtype_name(x) in FLOATS else "int64"
    want = np_reduce(getattr(np, name), a.astype(dtype), dim, keepdim)
    check(call_reduce(x, name, dim, keepdim), want, dtype, rtol=1e-4, atol=1e-4)


@given(st.data())
def test_mean(data):
    x, a = data.draw(tensors(dtypes=FLOATS))
    dim = data.draw(reduce_dims(x.dim()))
    keepdim = data.draw(st.booleans()) and dim is not None
    with np.errstate(all="ignore"):
        want = np_reduce(np.mean, a.astype(np.float64), dim, keepdim)
    check(call_reduce(x, "mean", dim, keepdim), want, dtype_name(x), rtol=1e-5)


def test_mean_of_integers_is_an_error():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        rstorch.tensor([1, 2]).mean()
    assert rstorch.tensor([1, 2]).mean(dtype=rstorch.float64).item() == 1.5


@given(st.data(), st.sampled_from(["amax", "amin"]))
def test_amax_amin(data, name):
    x, a = data.draw(tensors(dtypes=NUMERIC + ("bool",)))
    dim = data.draw(reduce_dims(x.dim()))
    keepdim = data.draw(st.booleans()) and dim is not None
    axis = np_axis(dim)
    axes = range(a.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    empty = a.size == 0 and (axis is None or any(a.shape[d] == 0 for d in axes))
    if empty:
        with pytest.raises((RuntimeError, IndexError)):
            call_reduce(x, name, dim, keepdim)
        return
    want = np_reduce(getattr(np, name), a, dim, keepdim)
    check(call_reduce(x, name, dim, keepdim), want, dtype_name(x))


@given(st.data(), st.sampled_from(["max", "min"]))
def test_max_min_with_dim(data, name):
    x, a = data.draw(tensors(dtypes=NUMERIC, shape_st=nonempty_shapes))
    dim = data.draw(st.integers(-x.dim(), x.dim() - 1))
    keepdim = data.draw(st.booleans())
    values, indices = getattr(x, name)(dim, keepdim)
    check(values, getattr(np, "a" + name)(a, axis=dim, keepdims=keepdim), dtype_name(x))
    check(indices, getattr(np, "arg" + name)(a, axis=dim, keepdims=keepdim), "int64")
    full = getattr(x, name)()
    check(full, getattr(np, "a" + name)(a), dtype_name(x))


@given(st.data(), st.sampled_from(["argmax", "argmin"]))
def test_argmax_argmin(data, name):
    x, a = data.draw(tensors(dtypes=NUMERIC, shape_st=nonempty_shapes))
    check(getattr(x, name)(), getattr(np, name)(a), "int64")
    dim = data.draw(st.integers(-x.dim(), x.dim() - 1))
    keepdim = data.draw(st.booleans())
    check(getattr(x, name)(dim, keepdim), getattr(np, name)(a, axis=dim, keepdims=keepdim), "int64")


@given(st.data(), st.sampled_from(["var", "std"]), st.sampled_from([0, 1]))
def test_var_std(data, name, correction):
    x, a = data.draw(tensors(dtypes=FLOATS))
    dim = data.draw(reduce_dims(x.dim()))
    keepdim = data.draw(st.booleans()) and dim is not None
    with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        want = np_reduce(getattr(np, name), a.astype(np.float64), dim, keepdim, ddof=correction)
    got = getattr(x, name)(dim, correction=correction, keepdim=keepdim)
    n = a.size if dim is None else int(np.prod([a.shape[d] for d in np.atleast_1d(dim)])) if a.ndim else 1
    if n - correction <= 0:
        assert np.isnan(got.numpy()).all() or np.isinf(got.numpy()).all() or got.numel() == 0
        return
    check(got, want, dtype_name(x), rtol=1e-4, atol=1e-5)


@given(st.data(), st.sampled_from([1, 2, float("inf"), 3]))
def test_norm(data, p):
    x, a = data.draw(tensors(dtypes=FLOATS))
    dim = data.draw(reduce_dims(x.dim()))
    keepdim = data.draw(st.booleans()) and dim is not None
    assume(not (p == float("inf") and a.size == 0))
    b = np.abs(a.astype(np.float64))
    if p == float("inf"):
        want = np_reduce(np.max, b, dim, keepdim) if b.ndim or dim is not None else b
    else:
        want = np_reduce(np.sum, b ** p, dim, keepdim) ** (1 / p)
    check(x.norm(p, dim, keepdim), want, dtype_name(x), rtol=1e-4, atol=1e-5)


@given(st.data())
def test_logsumexp(data):
    x, a = data.draw(tensors(dtypes=FLOATS))
    ndim = max(x.dim(), 1)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    keepdim = data.draw(st.booleans())
    b = a.astype(np.float64).reshape(a.shape or (1,))
    with np.errstate(all="ignore"):
        want = np.log(np.sum(np.exp(b), axis=dim, keepdims=keepdim))
    if x.dim() == 0:
        want = want.reshape(())
    check(x.logsumexp(dim, keepdim), want, dtype_name(x), rtol=1e-5)


@given(st.data(), st.sampled_from(["softmax", "log_softmax"]))
def test_softmax(data, name):
    x, a = data.draw(tensors(dtypes=FLOATS))
    ndim = max(x.dim(), 1)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    b = a.astype(np.float64).reshape(a.shape or (1,))
    e = np.exp(b - (b.max(axis=dim, keepdims=True) if b.size else 0))
    want = e / e.sum(axis=dim, keepdims=True)
    if name == "log_softmax":
        with np.errstate(all="ignore"):
            want = np.log(want)
    check(getattr(x, name)(dim), want.reshape(a.shape), dtype_name(x), rtol=1e-4, atol=1e-6)


@given(st.data(), st.sampled_from(["cumsum", "cumprod"]))
def test_cumulative(data, name):
    x, a = data.draw(tensors())
    ndim = max(x.dim(), 1)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    dtype = dtype_name(x) if dtype_name(x) in FLOATS else "int64"
    want = getattr(np, name)(a.astype(dtype).reshape(a.shape or (1,)), axis=dim).reshape(a.shape)
    check(getattr(x, name)(dim), want, dtype, rtol=1e-4, atol=1e-4)


@given(st.data(), st.sampled_from(["all", "any"]))
def test_all_any(data, name):
    x, a = data.draw(tensors())
    dim = data.draw(reduce_dims(x.dim()))
    if isinstance(dim, list):
        dim = dim[0]
    keepdim = data.draw(st.booleans()) and dim is not None
    want = np_reduce(getattr(np, name), a, dim, keepdim)
    check(call_reduce(x, name, dim, keepdim), want, "bool")


# ----- views and shape ops ----------------------------------------------------------------------

@given(tensors(), st.data())
def test_reshape_view_flatten(pair, data):
    x, a = pair
    n = a.size
    target = data.draw(st.sampled_from([(n,), (-1,), (1, n), (n, 1, -1) if n else (0, 1)]))
    check(x.reshape(*target), a.reshape(target), dtype_name(x))
    check(x.reshape(target), a.reshape(target), dtype_name(x))
    check(x.flatten(), a.reshape(-1), dtype_name(x))
    if x.is_contiguous():
        v = x.view(*target)
        check(v, a.reshape(target), dtype_name(x))
        assert v.data_ptr() == x.data_ptr() or n == 0
    if x.dim() >= 2:
        check(x.flatten(1), a.reshape(a.shape[0], -1) if a.shape[0] else a.reshape(a.shape[0], int(np.prod(a.shape[1:]))), dtype_name(x))


def test_view_of_non_contiguous_raises():
    x = rstorch.zeros(2, 3).t()
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        x.view(6)
    assert x.reshape(6).shape == (6,)


@given(tensors(), st.data())
def test_squeeze_unsqueeze(pair, data):
    x, a = pair
    d = data.draw(st.integers(-x.dim() - 1, x.dim()))
    check(x.unsqueeze(d), np.expand_dims(a, d), dtype_name(x))
    check(x.squeeze(), np.squeeze(a), dtype_name(x))
    if x.dim():
        d = data.draw(st.integers(-x.dim(), x.dim() - 1))
        want = np.squeeze(a, d) if a.shape[d] == 1 else a
        check(x.squeeze(d), want, dtype_name(x))


@given(tensors(shape_st=st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple)), st.data())
def test_transpose_permute(pair, data):
    x, a = pair
    d0 = data.draw(st.integers(-x.dim(), x.dim() - 1))
    d1 = data.draw(st.integers(-x.dim(), x.dim() - 1))
    check(x.transpose(d0, d1), np.swapaxes(a, d0, d1), dtype_name(x))
    perm = data.draw(st.permutations(range(x.dim())))
    check(x.permute(*perm), a.transpose(perm), dtype_name(x))
    check(x.permute(perm), a.transpose(perm), dtype_name(x))
    if x.dim() <= 2:
        check(x.t(), a.T, dtype_name(x))


@given(tensors(), st.data())
def test_expand(pair, data):
    x, a = pair
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = list(lead) + [data.draw(st.integers(1, 3)) if s == 1 else s for s in a.shape]
    sizes = list(lead) + [-1 if s == t and data.draw(st.booleans()) else t for s, t in zip(a.shape, target[len(lead):])]
    check(x.expand(*sizes), np.broadcast_to(a, target), dtype_name(x))


@given(tensors(shape_st=nonempty_shapes), st.data())
def test_narrow_chunk_split(pair, data):
    x, a = pair
    d = data.draw(st.integers(0, x.dim() - 1))
    n = a.shape[d]
    start = data.draw(st.integers(0, n))
    length = data.draw(st.integers(0, n - start))
    check(x.narrow(d, start, length), np.take(a, range(start, start + length), axis=d), dtype_name(x))
    chunks = data.draw(st.integers(1, 6))
    size = -(-n // chunks)
    parts = x.chunk(chunks, d)
    want = [np.take(a, range(i, min(i + size, n)), axis=d) for i in range(0, n, size)]
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        check(p, w, dtype_name(x))
    split = data.draw(st.integers(1, 6))
    parts = x.split(split, d)
    want = [np.take(a, range(i, min(i + split, n)), axis=d) for i in range(0, n, split)]
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        check(p, w, dtype_name(x))
    cut = data.draw(st.integers(0, n))
    p0, p1 = x.split([cut, n - cut], d)
    check(p0, np.take(a, range(cut), axis=d), dtype_name(x))
    check(p1, np.take(a, range(cut, n), axis=d), dtype_name(x))


@given(tensors(), st.data())
def test_flip_roll(pair, data):
    x, a = pair
    if x.dim():
        dims = data.draw(st.lists(st.integers(0, x.dim() - 1), unique=True, max_size=x.dim()))
        check(x.flip(*dims), np.flip(a, dims) if dims else a, dtype_name(x))
        d = data.draw(st.integers(-x.dim(), x.dim() - 1))
        s = data.draw(st.integers(-7, 7))
        check(x.roll(s, d), np.roll(a, s, axis=d), dtype_name(x))
    s = data.draw(st.integers(-7, 7))
    check(x.roll(s), np.roll(a, s), dtype_name(x))


@given(tensors(shape_st=st.lists(st.integers(0, 3), max_size=3).map(tuple)), st.data())
def test_repeat(pair, data):
    x, a = pair
    reps = data.draw(st.lists(st.integers(0, 3), min_size=x.dim(), max_size=x.dim() + 2))
    check(x.repeat(*reps), np.tile(a, reps) if reps else a, dtype_name(x))


@given(tensors(shape_st=st.lists(st.integers(0, 5), min_size=2, max_size=4).map(tuple)), st.integers(-6, 6))
def test_tril_triu(pair, k):
    x, a = pair
    check(x.tril(k), np.tril(a, k), dtype_name(x))
    check(x.triu(k), np.triu(a, k), dtype_name(x))


@given(st.data())
def test_cat_stack(data):
    shape = data.draw(nonempty_shapes)
    d = data.draw(st.integers(-len(shape), len(shape) - 1))
    pieces = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[d] = data.draw(st.integers(0, 3))
        pieces.append(data.draw(tensors(dtypes=NUMERIC, shape=tuple(s))))
    dtype = result_type(*[operand(t) for t, _ in pieces])
    check(rstorch.cat([t for t, _ in pieces], d), np.concatenate([a.astype(dtype) for _, a in pieces], d), dtype)
    same = [data.draw(tensors(dtypes=NUMERIC, shape=shape)) for _ in range(len(pieces))]
    sd = data.draw(st.integers(-len(shape) - 1, len(shape)))
    dtype = result_type(*[operand(t) for t, _ in same])
    check(rstorch.stack([t for t, _ in same], sd), np.stack([a.astype(dtype) for _, a in same], sd), dtype)


@settings(max_examples=60)
@given(st.data())
def test_cat_of_views(data):
    """Parts that are narrows (rows apart, each one run: the copy takes them in place),
    transposes and steps of wider tensors, joined along any dim, as numpy joins copies."""
    shape = data.draw(nonempty_shapes)
    d = data.draw(st.integers(0, len(shape) - 1))
    parts, arrays = [], []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[d] = data.draw(st.integers(0, 3))
        wide = list(s)
        wide[d] += data.draw(st.integers(0, 3))
        base = rstorch.arange(int(np.prod(wide)), dtype=rstorch.float32).reshape(wide)
        start = data.draw(st.integers(0, wide[d] - s[d]))
        view = data.draw(st.sampled_from(["narrow", "transposed", "stepped"]))
        if view == "narrow":
            t = base.narrow(d, start, s[d])
        elif view == "transposed":
            t = base.narrow(d, start, s[d]).transpose(0, -1).contiguous().transpose(0, -1)
        else:
            doubled = rstorch.cat([base, base], -1)
            t = doubled[..., ::2].narrow(d, start, s[d])
        parts.append(t)
        arrays.append(t.numpy().copy())
    check(rstorch.cat(parts, d), np.concatenate(arrays, d), "float32")


@given(tensors(shape_st=nonempty_shapes), st.data())
def test_unbind(pair, data):
    x, a = pair
    d = data.draw(st.integers(-x.dim(), x.dim() - 1))
    parts = x.unbind(d)
    assert len(parts) == a.shape[d]
    for i, p in enumerate(parts):
        check(p, np.take(a, i, axis=d), dtype_name(x))


# ----- matrix products --------------------------------------------------------------------------

@st.composite
def matmul_shapes(draw):
    m, k, n = (draw(st.integers(0, 5)) for _ in range(3))
    kind = draw(st.sampled_from(["1x1", "1x2", "2x1", "2x2", "batched", "bvec"]))
    batch_a = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    batch_b = tuple(1 if draw(st.booleans()) else s for s in batch_a)[draw(st.integers(0, len(batch_a))):]
    return {
        "1x1": ((k,), (k,)),
        "1x2": ((k,), (k, n)),
        "2x1": ((m, k), (k,)),
        "2x2": ((m, k), (k, n)),
        "batched": (batch_a + (m, k), batch_b + (k, n)),
        "bvec": (batch_a + (m, k), (k,)),
    }[kind]


@given(matmul_shapes(), st.sampled_from(FLOATS + ("int64",)), st.data())
def test_matmul(shapes_, dtype, data):
    sa, sb = shapes_
    x, a = data.draw(tensors(dtypes=(dtype,), shape=sa))
    y, b = data.draw(tensors(dtypes=(dtype,), shape=sb))
    want = np.matmul(a, b)
    check(x @ y, want, dtype, rtol=1e-4, atol=1e-4)
    check(rstorch.matmul(x, y), want, dtype, rtol=1e-4, atol=1e-4)


@given(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5), st.integers(1, 3), st.sampled_from(FLOATS), st.data())
def test_mm_bmm_dot_outer(m, k, n, b, dtype, data):
    x, a = data.draw(tensors(dtypes=(dtype,), shape=(m, k)))
    y, c = data.draw(tensors(dtypes=(dtype,), shape=(k, n)))
    check(x.mm(y), a @ c, dtype, rtol=1e-4, atol=1e-4)
    bx, ba = data.draw(tensors(dtypes=(dtype,), shape=(b, m, k)))
    by, bc = data.draw(tensors(dtypes=(dtype,), shape=(b, k, n)))
    check(bx.bmm(by), ba @ bc, dtype, rtol=1e-4, atol=1e-4)
    u, ua = data.draw(tensors(dtypes=(dtype,), shape=(k,)))
    v, va = data.draw(tensors(dtypes=(dtype,), shape=(k,)))
    check(u.dot(v), np.dot(ua, va), dtype, rtol=1e-4, atol=1e-4)
    check(rstorch.outer(u, v), np.outer(ua, va), dtype, rtol=1e-5)


@given(st.sampled_from([
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,i->", [(4,), (4,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bij->bj", [(2, 3, 4)]),
]), st.sampled_from(FLOATS), st.data())
def test_einsum(case, dtype, data):
    eq, shapes_ = case
    ops = [data.draw(tensors(dtypes=(dtype,), shape=s)) for s in shapes_]
    want = np.einsum(eq, *[a.astype(np.float64) for _, a in ops])
    check(rstorch.einsum(eq, *[t for t, _ in ops]), want, dtype, rtol=1e-4, atol=1e-5)
    check(rstorch.einsum(eq, [t for t, _ in ops]), want, dtype, rtol=1e-4, atol=1e-5)


# ----- conversions ------------------------------------------------------------------------------

SHORTHANDS = {"float": "float32", "double": "float64", "long": "int64", "int": "int32", "byte": "uint8", "bool": "bool"}


@given(tensors(dtypes=ALL_DTYPES), st.sampled_from(ALL_DTYPES))
def test_to_dtype(pair, target):
    x, a = pair
    if a.dtype.kind == "f" and target in INTS:
        a = np.trunc(np.clip(a, 0 if target == "uint8" else -100, 100))
        x = rstorch.tensor(a, dtype=x.dtype)
    want = a.astype(target)
    got = x.to(rs_dtype(target))
    check(got, want, target)
    if dtype_name(x) == target:
        assert got is x
    check(x.to(dtype=rs_dtype(target)), want, target)


@given(tensors(dtypes=ALL_DTYPES), st.sampled_from(sorted(SHORTHANDS)))
def test_dtype_shorthands(pair, name):
    x, a = pair
    target = SHORTHANDS[name]
    if a.dtype.kind == "f" and target in INTS:
        a = np.trunc(np.clip(a, 0, 100))
        x = rstorch.tensor(a, dtype=x.dtype)
    check(getattr(x, name)(), a.astype(target), target)
