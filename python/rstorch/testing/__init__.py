"""`torch.testing`: `assert_close`, with PyTorch's default tolerances per dtype, its order of
checks (the pair's types, then shape, device, dtype and strides, then the values) and its
messages, over tensors, Python numbers and nested sequences and mappings of them."""
import collections.abc
import math

import numpy as np

__all__ = ["assert_close"]

# (rtol, atol) by dtype name, PyTorch's defaults; integers and bool compare exactly.
_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}


class _Mismatch(AssertionError):
    """A failed comparison, with where in the nested inputs it happened."""

    def __init__(self, message, path=""):
        super().__init__(message)
        self.message, self.path = message, path


def _is_tensor(x):
    from .. import Tensor
    return isinstance(x, Tensor)


def _dtype_name(t):
    return str(t.dtype).rsplit(".", 1)[-1]


def _tolerances(dtype_name, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.")
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype_name, (0.0, 0.0))


def _number(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, complex)


def _fmt(v):
    """A difference as PyTorch prints it: ints as ints, floats through Python's float."""
    return str(int(v)) if isinstance(v, (int, np.integer)) else str(float(v))


def _values_message(kind, actual, expected, abs_diff, rel_diff, mismatched, rtol, atol, exact):
    allowed = lambda tol: "" if exact else f" (up to {tol} allowed)"  # noqa: E731
    if actual.ndim == 0:
        # One value: its differences in Python numbers, as PyTorch writes them.
        a, e = actual[()].item(), expected[()].item()
        diff = abs(a - e)
        rel = diff / abs(e) if e != 0 else (math.nan if diff != diff else math.inf)
        return (f"Scalars are not {kind}!\n\nExpected {e} but got {a}.\n"
                f"Absolute difference: {diff}{allowed(atol)}\n"
                f"Relative difference: {rel}{allowed(rtol)}")

    def worst(diff):
        masked = np.where(mismatched, diff, -np.inf if diff.dtype.kind == "f" else np.iinfo(diff.dtype).min)
        nan = np.isnan(masked) if masked.dtype.kind == "f" else np.zeros(masked.shape, bool)
        flat = int(np.argmax(nan)) if nan.any() else int(np.argmax(masked))
        index = np.unravel_index(flat, diff.shape)
        return diff[index], str(tuple(int(i) for i in index))

    n, total = int(mismatched.sum()), mismatched.size
    a, a_at = worst(abs_diff)
    r, r_at = worst(rel_diff)
    return (f"Tensor-likes are not {kind}!\n\nMismatched elements: {n} / {total} ({100.0 * n / total:.1f}%)\n"
            f"Greatest absolute difference: {_fmt(a)} at index {a_at}{allowed(atol)}\n"
            f"Greatest relative difference: {_fmt(r)} at index {r_at}{allowed(rtol)}")


def _compare_values(actual, expected, rtol, atol, equal_nan, dtype_name):
    """`actual` and `expected` as NumPy arrays of one dtype; raises a _Mismatch if not close."""
    exact = rtol == 0 and atol == 0 and dtype_name not in _TOLERANCES
    if actual.dtype == np.bool_:
        actual, expected = actual.astype(np.int64), expected.astype(np.int64)
    if actual.dtype.kind in "iu":
        abs_diff = np.abs(actual - expected)
        rel_diff = abs_diff.astype(np.float32) / np.abs(expected).astype(np.float32)
        close = abs_diff <= atol + rtol * np.abs(expected)
    else:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            abs_diff = np.abs(actual - expected)
            rel_diff = abs_diff / np.abs(expected)
            close = (actual == expected) | (abs_diff <= atol + rtol * np.abs(expected))
            if equal_nan:
                close |= np.isnan(actual) & np.isnan(expected)
    if not close.all():
        kind = "equal" if exact else "close"
        raise _Mismatch(_values_message(kind, actual, expected, abs_diff, rel_diff, ~close, rtol, atol, exact))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride):
    for name, check in (("shape", True), ("device", check_device), ("dtype", check_dtype)):
        a, e = getattr(actual, name), getattr(expected, name)
        if check and a != e:
            raise _Mismatch(f"The values for attribute '{name}' do not match: {a} != {e}.")
    if check_stride and actual.stride() != expected.stride():
        raise _Mismatch(f"The values for attribute 'stride()' do not match: {actual.stride()} != {expected.stride()}.")
    if actual.dtype != expected.dtype:
        from .. import promote_types
        common = promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    dtype_name = _dtype_name(actual)
    rtol, atol = _tolerances(dtype_name, rtol, atol)
    as_array = lambda t: t.detach().cpu().float().numpy() if dtype_name == "bfloat16" else t.detach().cpu().numpy()  # noqa: E731
    _compare_values(as_array(actual), as_array(expected), rtol, atol, equal_nan, dtype_name)


def _compare(actual, expected, path, **options):
    if _is_tensor(actual) and _is_tensor(expected):
        return _compare_tensors(actual, expected, options["rtol"], options["atol"], options["equal_nan"],
                                options["check_device"], options["check_dtype"], options["check_stride"])
    if _number(actual) and _number(expected):
        if options["check_dtype"] and type(actual) is not type(expected):
            raise _Mismatch(f"The values for attribute 'dtype' do not match: {type(actual)} != {type(expected)}.")
        is_float = isinstance(actual, float) or isinstance(expected, float)
        rtol, atol = _tolerances("float64" if is_float else "int64", options["rtol"], options["atol"])
        if is_float and math.isnan(actual) and math.isnan(expected) and options["equal_nan"]:
            return
        as_array = lambda x: np.asarray(x, dtype=np.float64 if is_float else np.int64)  # noqa: E731
        return _compare_values(as_array(actual), as_array(expected), rtol, atol, options["equal_nan"],
                               "float64" if is_float else "int64")
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(f"The keys of the mappings do not match:\n{sorted(map(repr, actual))} != {sorted(map(repr, expected))}")
        for key in actual:
            _compare_item(actual[key], expected[key], path + f"[{key!r}]", options)
        return None
    is_seq = lambda x: isinstance(x, collections.abc.Sequence) and not isinstance(x, str)  # noqa: E731
    if is_seq(actual) and is_seq(expected):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare_item(a, e, path + f"[{i}]", options)
        return None
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _compare_item(actual, expected, path, options):
    try:
        _compare(actual, expected, path, **options)
    except _Mismatch as m:
        raise _Mismatch(m.message, m.path or path) from None


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises an AssertionError unless `actual` and `expected` are close: for each pair of
    elements `|actual - expected| <= atol + rtol * |expected|` (equal infinities are close, and
    NaNs when `equal_nan`), after their shapes, devices and dtypes are found equal."""
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_stride=check_stride)
    try:
        _compare(actual, expected, "", **options)
    except _Mismatch as m:
        message = m.message + (f"\n\nThe failure occurred for item {m.path}" if m.path else "")
        if callable(msg):
            message = msg(message)
        elif msg is not None:
            message = msg
        raise AssertionError(message) from None
