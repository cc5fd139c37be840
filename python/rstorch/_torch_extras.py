"""`torch` names that are not tensor math: finfo/iinfo, the window functions, range and
logspace, the legacy tensor types (`FloatTensor`, ...), and the process-wide switches
(interop threads, deterministic algorithms, anomaly detection). Loaded on first use through
`rstorch.__getattr__`."""
import builtins
import math
import warnings

from . import _C
from ._legacy_types import LEGACY_TYPES, legacy_type

Tensor = _C.Tensor

_FLOATS = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64"}
_INTS = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767), "int32": (-2**31, 2**31 - 1),
         "int64": (-2**63, 2**63 - 1)}


def _name(dtype):
    return str(dtype).rpartition(".")[2]


def _g(x):
    """C's `%g` as PyTorch prints finfo's fields."""
    return f"{x:g}"


class finfo:
    """The numerical properties of a floating dtype (float32 when none is given)."""

    def __init__(self, type=None):
        name = "float32" if type is None else _name(type)
        if name not in _FLOATS:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        if name == "bfloat16":
            self.bits, mant, self.tiny, self.max = 16, 7, 2.0 ** -126, (2 - 2.0 ** -7) * 2.0 ** 127
        elif name == "float16":
            self.bits, mant, self.tiny, self.max = 16, 10, 2.0 ** -14, 65504.0
        elif name == "float32":
            self.bits, mant, self.tiny, self.max = 32, 23, 2.0 ** -126, (2 - 2.0 ** -23) * 2.0 ** 127
        else:
            self.bits, mant, self.tiny, self.max = 64, 52, 2.0 ** -1022, 1.7976931348623157e308
        self.eps = 2.0 ** -mant
        self.min = -self.max
        self.smallest_normal = self.tiny
        # 10 ** -(the decimal digits eps leaves), NumPy's definition, which PyTorch follows.
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = name

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, dtype={self.dtype})")


class iinfo:
    """The range of an integer dtype."""

    def __init__(self, type):
        name = _name(type)
        if name not in _INTS:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        self.min, self.max = _INTS[name]
        self.bits = int(name.lstrip("uint"))
        self.dtype = name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


# ----- windows -----------------------------------------------------------------------------------

def _window(name, length, periodic, dtype, device, requires_grad, values):
    """`values(n, N)` over `n = 0..length-1`, N the symmetric window's length (one more when
    `periodic`)."""
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={length}")
    dtype = dtype or _C.float32
    if dtype not in (_C.float16, _C.bfloat16, _C.float32, _C.float64):
        c_name = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                  "uint8": "unsigned char", "bool": "bool"}[_name(dtype)]
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={c_name}, device=cpu, "
                           "layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if length <= 1:
        out = _C.ones(length, dtype=dtype, device=device)
    else:
        # In the dtype itself, as PyTorch computes (the half types in float32).
        n = _C.arange(length, dtype=dtype if dtype in (_C.float32, _C.float64) else _C.float32)
        out = values(n, length + 1 if periodic else length).to(dtype).to(device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def _cosine_sum(coefficients):
    """`a0 - a1 cos(x) + a2 cos(2x) - ...`, summed from the highest term down (PyTorch's order,
    which gives exact zeros at the ends)."""
    def values(n, N):
        out = None
        for k in builtins.range(len(coefficients) - 1, 0, -1):
            a = coefficients[k] if k % 2 == 0 else -coefficients[k]
            term = (n * (2 * math.pi * k / (N - 1))).cos() * a
            out = term if out is None else out + term
        return out + coefficients[0]
    return values


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _cosine_sum([0.5, 0.5]))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, _cosine_sum([alpha, beta]))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum([0.42, 0.5, 0.08]))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 1 - (n * (2 / (N - 1)) - 1).abs())


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    def values(n, N):
        alpha = (N - 1) / 2
        ratio = (n - alpha) / alpha
        return (beta * (1 - ratio * ratio).clamp(min=0).sqrt()).i0() / _C.tensor(beta, dtype=n.dtype).i0()
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, values)


# ----- sequences ---------------------------------------------------------------------------------

def range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`start, start + step, ...` up to `end` included (deprecated in PyTorch; float32 by default)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    out = (_C.arange(count, dtype=_C.float64) * step + start).to(dtype or _C.float32).to(device or "cpu")
    return out.requires_grad_(requires_grad) if requires_grad else out


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """`base ** linspace(start, end, steps)`."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    exponents = _C.linspace(start, end, steps, dtype=_C.float64)
    out = _C.tensor(builtins.float(base), dtype=_C.float64).pow(exponents).to(dtype or _C.float32).to(device or "cpu")
    return out.requires_grad_(requires_grad) if requires_grad else out


# ----- legacy tensor types: `_legacy_types.py` -----------------------------------------------

# ----- switches ----------------------------------------------------------------------------------

_state = {"interop": None, "deterministic": False, "warn_only": False, "warn_always": False}


def set_warn_always(b):
    _state["warn_always"] = builtins.bool(b)


def is_warn_always_enabled():
    return _state["warn_always"]


def is_anomaly_check_nan_enabled():
    return True  # rstorch's anomaly mode always checks for NaN


def get_num_interop_threads():
    return _state["interop"] or _C.get_num_threads()


def set_num_interop_threads(num):
    if not isinstance(num, builtins.int) or num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _state["interop"] = num


def use_deterministic_algorithms(mode, *, warn_only=False):
    """rstorch's kernels are deterministic: the flag is kept for the programs that read it."""
    _state["deterministic"], _state["warn_only"] = builtins.bool(mode), builtins.bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    modes = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in modes:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = modes[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def is_anomaly_enabled():
    from .autograd import is_anomaly_enabled as enabled
    return enabled()


def set_anomaly_enabled(enabled, check_nan=True):
    from .autograd import set_detect_anomaly
    set_detect_anomaly(enabled, check_nan)


def is_storage(obj):
    return type(obj).__name__ in ("TypedStorage", "UntypedStorage") or type(obj).__name__.endswith("Storage")


NAMES = ("finfo", "iinfo", "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
         "range", "logspace", "get_num_interop_threads", "set_num_interop_threads", "use_deterministic_algorithms",
         "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
         "set_deterministic_debug_mode", "get_deterministic_debug_mode", "is_anomaly_enabled",
         "set_anomaly_enabled", "is_storage", "set_warn_always", "is_warn_always_enabled",
         "is_anomaly_check_nan_enabled") + tuple(LEGACY_TYPES)


def __getattr__(name):
    if name in LEGACY_TYPES:
        return legacy_type(name)
    raise AttributeError(name)
