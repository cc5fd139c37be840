"""The dense float32 grid shared by tests/record_vecmath_f32grid.py (PyTorch side) and
tests/python/test_vecmath_f32grid.py (rstorch side): every 1021st float32 bit pattern of both
signs (about 4.2 million points, every binade), the float64 reference of each function on it
(numpy; a float64 result is within 2^-28 float32 ulp of exact, far below what is measured), and
the error in float32 ulps as the Rust tests measure it (subnormal ulps below the normal range;
NaN and infinities must match exactly). Imports numpy (and math, for erf and erfc) only."""
import math

import numpy as np

SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805
CELU_ALPHA = 0.5
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, -1e-45, 1.1754943508222875e-38,
            -1.1754943508222875e-38, 3.4028234663852886e38, -3.4028234663852886e38, 88.72283935546875, 88.7228470,
            -87.33654785, -103.972084, -104.0, 128.0, -150.0, -149.0, 1.0, -1.0, -0.9999999403953552, 20.0, 20.000002]


def grid():
    bits = np.arange(0, 0x7F800000, 1021, dtype=np.uint32)
    pos = bits.view(np.float32)
    return np.concatenate([pos, -pos])


def _sig(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _log1p_exp(x):
    with np.errstate(over="ignore"):
        return np.log1p(np.exp(x))


def _where(c, a, b):
    return np.where(c, a, b)


def _gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x / (1.0 + np.exp(-2.0 * u))


_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _gelu(x):
    return 0.5 * x * _erfc(-x * 0.7071067811865476).astype(np.float64)


def _mish(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return x * np.tanh(_log1p_exp(x))


# name: float64 reference of the float32 function.
REFERENCE = {
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "tanh": np.tanh,
    "sigmoid": _sig,
    "silu": lambda x: x * _sig(x),
    "softplus": lambda x: _where(x > 20, x, _log1p_exp(x)),
    "mish": _mish,
    "elu": lambda x: _where(x > 0, x, np.expm1(x)),
    "selu": lambda x: _where(x > 0, SELU_S * x, SELU_S * SELU_A * np.expm1(x)),
    "celu": lambda x: _where(x > 0, x, CELU_ALPHA * np.expm1(x / CELU_ALPHA)),
    "logsigmoid": lambda x: np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x))),
    "gelu_tanh": _gelu_tanh,
    "erf": lambda x: _erf(x).astype(np.float64),
    "erfc": lambda x: _erfc(x).astype(np.float64),
    "gelu": _gelu,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atanh": np.arctanh,
}


def reference(name, x32):
    with np.errstate(all="ignore"):
        return REFERENCE[name](x32.astype(np.float64))


def max_ulp(got32, want64):
    """The largest error of float32 results against float64 references, in float32 ulps at the
    reference, and the index where it is (NaN/inf mismatches count as inf)."""
    got = np.asarray(got32, dtype=np.float32).astype(np.float64)
    want = np.asarray(want64, dtype=np.float64)
    with np.errstate(all="ignore"):
        w32 = want.astype(np.float32).astype(np.float64)
        exact_only = np.isnan(want) | np.isinf(w32) | np.isinf(got) | np.isnan(got)
        same = (np.isnan(got) & np.isnan(want)) | (got == w32)
        _, e = np.frexp(np.abs(want))
        ulp = np.ldexp(1.0, np.maximum(e - 1, -126) - 23)
        err = np.abs(got - want) / ulp
    err = np.where(exact_only, np.where(same, 0.0, np.inf), err)
    i = int(np.argmax(err))
    return float(err[i]), i
