"""Fits the float32-lane erf's coefficients (src/cpu/vecmath_f32erf.rs) with numpy and mpmath:
    /work/torchref/bin/python tools/fit_erf_f32.py

Three pieces of |x|, each a polynomial with float32 coefficients, fitted near-minimax (Lawson's
reweighted least squares on Chebyshev nodes) in the error that matters for a float32 erf (in
units of 2^-24, erf's ulp from 1/2 to 1), each coefficient rounded to float32 in turn and the
rest refitted:
- [0, 0.75): erf(x) = x (1 + G), G = (2/sqrt(pi) - 1) + z Q(z), z = x^2 (relative error).
- [0.75, 1.75): erf(x) = E + s R(s), s = x - C, C a float32 whose erf is a float32 to 1e-4 ulp.
- [1.75, 3.95]: erfc(x) = e^(-x^2) P(x - M) (the absolute error of erf: erfc itself is small).
"""

import math

import mpmath as mp
import numpy as np

mp.mp.dps = 30
T1, T2, TOP = 0.75, 1.75, 3.95


def f32(v):
    return float(np.float32(v))


def nodes(a, b, n):
    k = np.arange(n)
    return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / n)


def minimax(target, basis, weight, iters=30):
    """Coefficients c minimising max |weight (basis c - target)| (Lawson's iteration)."""
    a, y, w = basis * weight[:, None], target * weight, np.ones(len(target))
    for _ in range(iters):
        s = np.sqrt(w)
        c = np.linalg.lstsq(a * s[:, None], y * s, rcond=None)[0]
        w = w * np.abs(a @ c - y)
        w /= w.sum()
    return c


def rounded_fit(t, target, degree, weight):
    """Float32 coefficients: each rounded in turn, the higher ones refitted to what is left."""
    basis, cs = np.vander(t, degree, increasing=True), []
    for k in range(degree):
        rest = target - (basis[:, :k] @ np.array(cs) if cs else 0.0)
        cs.append(f32(minimax(rest, basis[:, k:], weight)[0]))
    err = np.max(np.abs((basis @ np.array(cs) - target) * weight))
    return cs, err


def main():
    c0 = 2 / math.sqrt(math.pi)
    x = nodes(1e-4, T1, 3000)
    z = x * x
    f = np.array([math.erf(v) / v for v in x])
    q, err = rounded_fit(z, (f - c0) / z, 5, z / f * 2.0**24)
    print(f"// [0, {T1}): Q, error {err:.2g} ulp\nconst C0M1 = {f32(c0 - 1)!r}; const Q = {q};")
    # C: the float32 near the middle whose erf is nearest a float32.
    best = None
    for i in range(-4000, 4000):
        c = f32((T1 + T2) / 2 + i * 2.0**-22)
        e = mp.erf(mp.mpf(c))
        d = abs(float(e - mp.mpf(f32(float(e)))))
        if best is None or d < best[0]:
            best = (d, c, f32(float(e)))
    _, c, e = best
    s = nodes(T1 - c, T2 - c, 3000)
    r = np.array([float((mp.erf(mp.mpf(c) + v) - mp.mpf(e)) / v) for v in s])
    rc, err = rounded_fit(s, r, 10, np.abs(s) * 2.0**24)
    print(f"// [{T1}, {T2}): R, error {err:.2g} ulp\nconst MID_C = {c!r}; const MID_E = {e!r}; const MID_R = {rc};")
    m = (T2 + TOP) / 2
    x = nodes(T2, TOP, 4000)
    ex = np.array([math.erfc(v) * math.exp(v * v) for v in x])
    p, err = rounded_fit(x - m, ex, 8, np.exp(-x * x) * 2.0**24)
    print(f"// [{T2}, {TOP}]: P, error {err:.2g} ulp\nconst TAIL_M = {f32(m)!r}; const TAIL_P = {p};")


if __name__ == "__main__":
    main()
