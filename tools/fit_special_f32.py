"""Fits the coefficient tables of float32 kernels outside the J/Y/K family
(src/cpu/special_f32_tables.rs) with mpmath, in the manner of tools/fit_bessel.py (whose Chebyshev
helpers it uses):
    /work/torchref/bin/python tools/fit_special_f32.py > src/cpu/special_f32_tables.rs

- I0, I1 above 2: sqrt(x) e^-x I_n(x) as a function of u = 2/x in (0, 1], piecewise in u
  (below 2 the kernels use fit_bessel's I0_SMALL and I1_SMALL).
- erfinv(a) / a of a float32 a as a function of w = -ln((1 - a)(1 + a)) in [0, 5) and of
  sqrt(w) for w in [5, 16) (a float32 below 1 has w < 15.95), to a relative error near 1e-11: no
  Newton or Halley step is needed for a float32 result.
- ndtri's far tail: erfinv(a) / a for w from 16 (s = sqrt(w) from 4) to float32 ndtri's last
  t = 2p = 2.8e-45 (s = 10.1), as a function of s on [4, 10.25], to the same relative error (at
  120 digits: a = 1 - t is within 1e-45 of 1).
- Airy's Ai on [-10, 1): intervals of width 1/2, with fit_bessel's treatment of zeros (the fit of
  Ai(x) / (x - z), z in two words); from 1 on, Ai(x) e^zeta x^(1/4) (zeta = (2/3) x^(3/2)) as a
  function of u = x^(-3/2) in (0, 1], piecewise in u.
"""

import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(__file__))
import fit_bessel as fb  # noqa: E402

mp.mp.dps = 40


def pieces(g, lo, hi, n, tol):
    """Fits of g on n equal pieces of [lo, hi], each in its own t in [-1, 1]."""
    fb.TOL = tol
    rows = []
    for i in range(n):
        a = lo + (hi - lo) * mp.mpf(i) / n
        b = lo + (hi - lo) * mp.mpf(i + 1) / n
        rows.append(fb.fit(g, a, b))
    print(f"// degrees {[len(r) - 1 for r in rows]}", file=sys.stderr)
    return rows


def i_far(n):
    def g(u):
        x = 2 / u
        return mp.sqrt(x) * mp.exp(-x) * mp.besseli(n, x)
    return pieces(lambda u: g(u) if u > 0 else 1 / mp.sqrt(2 * mp.pi), mp.mpf(0), mp.mpf(1), I_PIECES, 2e-14)


def erfinv_over_a(w):
    if w == 0:
        return mp.sqrt(mp.pi) / 2
    a = mp.sqrt(-mp.expm1(-w))
    return mp.erfinv(a) / a


def ndtri_far(s):
    """erfinv(a) / a at w = s^2, with 1 - a = t = q / (1 + sqrt(1 - q)), q = e^-w."""
    with mp.workdps(120):
        q = mp.exp(-s * s)
        a = 1 - q / (1 + mp.sqrt(1 - q))
        return +(mp.erfinv(a) / a)


def airy_near():
    """Rows [z_hi, z_lo, has_zero, c_0, ...] on [-10 + i/2, -10 + (i+1)/2), t = 4x + 40 - (2i + 1)."""
    zs = []
    k = 1
    while True:
        z = mp.airyaizero(k)
        if z < AIRY_LO:
            break
        zs.append(z)
        k += 1
    fb.TOL = 2e-14
    rows, degs = [], []
    for i in range(int((1 - AIRY_LO) * 2)):
        a, b = AIRY_LO + mp.mpf(i) / 2, AIRY_LO + mp.mpf(i + 1) / 2
        inside = [z for z in zs if a <= z < b]
        if inside:
            z = inside[0]
            g = (lambda z: (lambda x: mp.airyai(x) / (x - z) if x != z else mp.airyai(z, 1)))(z)
            scale = min(abs(g(a + (b - a) * k / 8)) for k in range(9))
            cs = fb.fit(g, a, b, scale)
            rows.append([float(z), float(z - mp.mpf(float(z))), 1.0] + cs)
        else:
            cs = fb.fit(mp.airyai, a, b)
            rows.append([0.0, 0.0, 0.0] + cs)
        degs.append(len(cs) - 1)
    print(f"// degrees {degs}", file=sys.stderr)
    return rows


def airy_far(u):
    if u == 0:
        return 1 / (2 * mp.sqrt(mp.pi))
    x = u ** (-mp.mpf(2) / 3)
    return mp.airyai(x) * mp.exp(2 * x ** mp.mpf(1.5) / 3) * x ** mp.mpf(0.25)


AIRY_LO = -10
AIRY_PIECES = 8
I_PIECES = 2


def main():
    print("//! Coefficient tables of float32 kernels (`vecmath_bessel`'s I0, I1 and Ai, `vecmath_special`'s erfinv")
    print("//! and ndtri),")
    print("//! printed by tools/fit_special_f32.py (Chebyshev fits made with mpmath; see that script for the forms).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    print()
    for n in (0, 1):
        # Rows of their own lengths: the kernel evaluates both (an indexed row is a gather, which
        # left the scaled kernels' loops scalar) and a zero-padded row would cost multiply-adds.
        fb.emit_pieces(f"I{n}_FAR", f"sqrt(x) e^-x I{n}(x) for x > 2 on u = 2/x in [i/{I_PIECES}, (i+1)/{I_PIECES}): "
                       f"coefficients in t = {2 * I_PIECES} u - (2i + 1).", i_far(n))
    fb.TOL = 1e-11
    fb.emit1("ERFINV_CENTRAL", "erfinv(a) / a for w = -ln((1 - a)(1 + a)) in [0, 5), in t = 0.4 w - 1.",
             fb.fit(erfinv_over_a, mp.mpf(0), mp.mpf(5), 1))
    fb.emit1("ERFINV_TAIL", "erfinv(a) / a for w in [5, 16), in t = (sqrt(w) - 3.118) / 0.882.",
             fb.fit(lambda s: erfinv_over_a(s * s), mp.sqrt(5), mp.mpf(4), 1))
    fb.emit1("NDTRI_FAR", "erfinv(a) / a for w >= 16 (ndtri's tail), in t = (sqrt(w) - 7.125) / 3.125.",
             fb.fit(ndtri_far, mp.mpf(4), mp.mpf("10.25"), 1))
    fb.emit("AIRY_NEAR", "Ai on [-10 + i/2, -10 + (i+1)/2): [z_hi, z_lo, has_zero, coefficients in t = 4x + 40 - (2i + 1)].",
            airy_near())
    fb.emit("AIRY_FAR", f"Ai(x) e^zeta x^(1/4) for x >= 1 on u = x^(-3/2) in [i/{AIRY_PIECES}, (i+1)/{AIRY_PIECES}): "
            f"coefficients in t = {2 * AIRY_PIECES} u - (2i + 1).", pieces(airy_far, mp.mpf(0), mp.mpf(1), AIRY_PIECES, 2e-14))


if __name__ == "__main__":
    main()
