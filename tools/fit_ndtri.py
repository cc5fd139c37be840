"""Fits the far-tail first guess of `vecmath_special::erfinv` for float32 ndtri (see
src/cpu/vecmath_special.rs, GUESS_FARTHER) with mpmath:
    /path/to/python-with-mpmath tools/fit_ndtri.py
erfinv(1 - t) as a polynomial in u = (s - 8.2) / 2.05, s = sqrt(-log(t (2 - t))) in [6.15, 10.25]:
float32 ndtri's p (and so t = 2p) reaches the smallest subnormal, 1.4e-45, where s is 10.1; the
float64 guesses stop at s = 6.1. A relative error near 1e-9 suffices: one Halley step cubes it.
"""
import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(__file__))
import fit_bessel as fb  # noqa: E402

LO, HI = mp.mpf("6.15"), mp.mpf("10.25")


def x_of_s(s):
    q = mp.exp(-s * s)
    t = q / (1 + mp.sqrt(1 - q))  # 1 - sqrt(1 - q) without cancellation
    return mp.erfinv(1 - t)


def main():
    mp.mp.dps = 120
    fb.TOL = 1e-10
    cs = fb.fit(x_of_s, LO, HI, 1)
    print("const GUESS_FARTHER: [f64; %d] = [%s];" % (len(cs), ", ".join(repr(c) for c in cs)))


if __name__ == "__main__":
    main()
