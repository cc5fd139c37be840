"""Fits ASIN_P and ATANH_P of src/cpu/vecmath_f32trig.rs (float32 asin, acos and atanh on float32 lanes) with mpmath,
using tools/fit_bessel.py's Chebyshev helpers:
    /work/torchref/bin/python tools/fit_f32trig.py
prints P with asin(x) = x + x z P(z), z = x^2 in [0, 1/4] (and atanh's the same way), as float32 coefficients in powers of z
(a Chebyshev fit to relative error 1e-7 turned into powers; P's rounding is scaled by z P(z) < 0.05,
so one float32 word per coefficient is enough)."""

import os
import struct
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(__file__))
import fit_bessel as fb  # noqa: E402

mp.mp.dps = 40


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def asin_p(z):
    """(asin(x) / x - 1) / z, z = x^2."""
    if z == 0:
        return mp.mpf(1) / 6
    x = mp.sqrt(z)
    return (mp.asin(x) / x - 1) / z


def atanh_p(z):
    """(atanh(x) / x - 1) / z, z = x^2."""
    if z == 0:
        return mp.mpf(1) / 3
    x = mp.sqrt(z)
    return (mp.atanh(x) / x - 1) / z


def powers(f, a, b, tol):
    """Chebyshev fit of f on [a, b] (a = 0 here), truncated at tol, in powers of x itself."""
    fb.TOL = tol
    cs = fb.cheb_to_monomial(fb.truncate(fb.cheb_coeffs(f, a, b, fb.MAXDEG), min(abs(f(a + (b - a) * k / 8)) for k in range(9))))
    h, m = (b - a) / 2, (a + b) / 2
    # sum c_k ((x - m) / h)^k expanded in powers of x.
    out = [mp.mpf(0)] * len(cs)
    for k, c in enumerate(cs):
        for j in range(k + 1):
            out[j] += c * mp.binomial(k, j) * (-m / h) ** (k - j) / h ** j
    return [f32(c) for c in out]


if __name__ == "__main__":
    for name, f in (("ASIN_P", asin_p), ("ATANH_P", atanh_p)):
        cs = powers(f, mp.mpf(0), mp.mpf(1) / 4, 1e-7)
        print(f"const {name}: [f32; {len(cs)}] = [" + ", ".join(repr(v) for v in cs) + "];")
