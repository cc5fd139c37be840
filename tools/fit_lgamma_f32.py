"""Fits the polynomial of the float32 lgamma kernel (src/cpu/vecmath_gamma.rs) with mpmath, with
tools/fit_bessel.py's Chebyshev helpers:
    /work/torchref/bin/python tools/fit_lgamma_f32.py

lgamma(x) / (x - 2) on [2, 3] as a polynomial in t = 2x - 5 in [-1, 1] (the factor x - 2 is exact
and keeps lgamma's zero at 2 relative), to a relative error near 1e-16: the kernel's reflection
subtracts it from a logarithm near lgamma's negative zeros, where its absolute error is the result's.
"""

import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(__file__))
import fit_bessel as fb  # noqa: E402

mp.mp.dps = 40


def lgamma_over(x):
    return mp.digamma(2) if x == 2 else mp.loggamma(x) / (x - 2)


if __name__ == "__main__":
    fb.TOL = 1e-17
    row = fb.fit(lgamma_over, mp.mpf(2), mp.mpf(3))
    print(f"// degree {len(row) - 1}", file=sys.stderr)
    fb.emit1("LGAMMA_2_3", "lgamma(x) / (x - 2) on [2, 3] in t = 2x - 5 (tools/fit_lgamma_f32.py).", row)
