"""The float32 pow grid shared by tests/record_pow_f32grid.py (PyTorch side) and
tests/python/test_quotient_pow.py (rstorch side): the bases of tests/f32grid_common.py's grid
(every 1021st float32 bit pattern of both signs), each against an exponent from a fixed
sequence in [-8, 8) (integers and halves among them, so that negative bases count), a few
number exponents, and the special pairs. Imports numpy only."""
import numpy as np

import f32grid_common as g

SCALAR_EXPONENTS = [2.5, -1.7, 0.3, 7.25]
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 2.5,
            -2.5, 1e-45, 3.4028234663852886e38, 1.0000001, 0.99999994]


def bases():
    return g.grid()


def exponents(n):
    """A fixed sequence in [-8, 8): every fourth an integer, every fourth a half, the rest fine."""
    i = np.arange(n, dtype=np.uint64)
    u = ((i * np.uint64(2654435761)) % np.uint64(1 << 20)).astype(np.float64) / (1 << 20) * 16.0 - 8.0
    k = i % 4
    y = np.where(k == 0, np.floor(u), np.where(k == 1, np.floor(u) + 0.5, u))
    return y.astype(np.float32)


def special_pairs():
    s = np.array(SPECIALS, dtype=np.float32)
    return np.repeat(s, s.size), np.tile(s, s.size)


def reference(x32, y32):
    with np.errstate(all="ignore"):
        return np.power(x32.astype(np.float64), y32.astype(np.float64))
