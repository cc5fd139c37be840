"""Fits the float32 Bessel kernels' coefficient tables (src/cpu/bessel_tables.rs) with mpmath.

Run with an interpreter that has mpmath (e.g. /work/torchref/bin/python):
    python tools/fit_bessel.py > src/cpu/bessel_tables.rs

Every table is a Chebyshev interpolant (made at 40 digits, truncated where its tail is below the
tolerance) converted to powers of the interval's local variable t in [-1, 1] and rounded to
float64. The kernels compute in float64 and round once to float32, so a relative error near
1e-13 before that rounding leaves results within about 0.5 ulp.

- J0, J1, Y0, Y1 on [0, 8): three to four pieces each (PIECES below), so few that the kernel
  evaluates every piece's polynomial and selects one by comparisons: a table indexed per element
  is a gather, which left the loop scalar (38 ms for a million J0, 3.8 ms vectorised). Where a
  piece holds a zero z of the function, the fit is of f(x) / (x - z) and the kernel multiplies
  back by x - z computed with z in two words, so that relative accuracy holds next to the zero. Y below 1/2: Y0 = (2/pi) ln(x)
  J0(x) + R0(x^2), Y1 = (2/pi) ln(x) J1(x) - 2/(pi x) + x R1(x^2) (up to 2, where Y1 has no zero yet), with J
  and R fitted in x^2.
- J and Y from 8 on: Hankel's form sqrt(2/(pi x)) (P cos chi - Q sin chi) with P and x Q fitted
  as functions of y = 64/x^2 in (0, 1].
- K0, K1 up to 2: K0 = B0(y) - ln(x) I0(x), K1 = 1/x + x (ln(x) I1(x)/x + B1(y)), y = x^2/4;
  above 2: sqrt(x) e^x K(x) as a function of u = 2/x, piecewise in u.
"""

import sys

import mpmath as mp

mp.mp.dps = 40
TOL = 2e-14  # the truncated Chebyshev tail, relative to the function's size on the interval
MAXDEG = 40


def cheb_coeffs(f, a, b, n):
    """Chebyshev coefficients of the degree-n interpolant of f on [a, b] (first-kind nodes)."""
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / (n + 1)) for k in range(n + 1)]
    vals = [f((b - a) / 2 * t + (a + b) / 2) for t in nodes]
    cs = []
    for j in range(n + 1):
        s = mp.fsum(v * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / (n + 1)) for k, v in enumerate(vals))
        cs.append(s * 2 / (n + 1))
    cs[0] /= 2
    return cs


def truncate(cs, scale):
    """The smallest degree whose dropped tail is below TOL * scale."""
    for d in range(len(cs)):
        if mp.fsum(abs(c) for c in cs[d + 1:]) < TOL * scale:
            return cs[:d + 1]
    raise SystemExit("no convergence: raise MAXDEG")


def cheb_to_monomial(cs):
    """Coefficients of sum c_j T_j(t) in powers of t (exact in mpmath)."""
    n = len(cs)
    out = [mp.mpf(0)] * n
    tprev, tcur = [mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]
    for j, c in enumerate(cs):
        tj = tprev if j == 0 else tcur if j == 1 else None
        if j >= 2:
            tnext = [mp.mpf(0)] * (j + 1)
            for k, v in enumerate(tcur):
                tnext[k + 1] += 2 * v
            for k, v in enumerate(tprev):
                tnext[k] -= v
            tprev, tcur = tcur, tnext
            tj = tcur
        for k, v in enumerate(tj):
            out[k] += c * v
    return out


def fit(f, a, b, scale=None):
    cs = cheb_coeffs(f, a, b, MAXDEG)
    if scale is None:
        scale = min(abs(f(a + (b - a) * k / 8)) for k in range(9))
    return [float(c) for c in cheb_to_monomial(truncate(cs, scale))]


def pad(rows):
    n = max(len(r) for r in rows)
    return [r + [0.0] * (n - len(r)) for r in rows]


def emit(name, doc, rows):
    rows = pad(rows)
    print(f"/// {doc}")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const {name}: [[f64; {len(rows[0])}]; {len(rows)}] = [")
    for r in rows:
        print("    [" + ", ".join(repr(v) for v in r) + "],")
    print("];")


def emit1(name, doc, row):
    print(f"/// {doc}")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const {name}: [f64; {len(row)}] = [" + ", ".join(repr(v) for v in row) + "];")


J0 = lambda x: mp.besselj(0, x)  # noqa: E731
J1 = lambda x: mp.besselj(1, x)  # noqa: E731
Y0 = lambda x: mp.bessely(0, x)  # noqa: E731
Y1 = lambda x: mp.bessely(1, x)  # noqa: E731
NEAR = 8


def zeros(name):
    fn = {"J0": lambda k: mp.besseljzero(0, k), "J1": lambda k: mp.besseljzero(1, k),
          "Y0": lambda k: mp.besselyzero(0, k), "Y1": lambda k: mp.besselyzero(1, k)}[name]
    zs = [mp.mpf(0)] if name == "J1" else []
    k = 1
    while True:
        z = fn(k)
        if z > NEAR:
            return zs
        zs.append(z)
        k += 1


# Piece boundaries on [0, 8) (Y0 from 1/2 and Y1 from 2, below which their small forms serve),
# chosen for the fewest coefficients in all (each piece holds at most one zero).
PIECES = {"J0": [0, 2.5, 5, 8], "J1": [0, 3, 5.5, 8], "Y0": [0.5, 1.25, 2.5, 5, 8], "Y1": [2, 3, 5, 8]}


def piece_rows(name, f):
    """Rows [lo, mid, 1/half-width, z_hi, z_lo, has_zero, c_0, c_1, ...], one per piece
    [lo, hi) of PIECES, coefficients in t = (x - mid) / half-width."""
    zs = zeros(name)
    rows, degs = [], []
    bounds = [mp.mpf(b) for b in PIECES[name]]
    for a, b in zip(bounds, bounds[1:]):
        head = [float(a), float((a + b) / 2), float(2 / (b - a))]
        inside = [z for z in zs if a <= z < b]
        assert len(inside) <= 1
        if inside:
            z = inside[0]
            g = (lambda z: (lambda x: f(x) / (x - z) if x != z else mp.diff(f, z)))(z)
            scale = min(abs(g(a + (b - a) * k / 8)) for k in range(9))
            zh = float(z)
            cs = fit(g, a, b, scale)
            rows.append(head + [zh, float(z - zh), 1.0] + cs)
        else:
            cs = fit(f, a, b)
            rows.append(head + [0.0, 0.0, 0.0] + cs)
        degs.append(len(cs) - 1)
    return rows, degs


def emit_pieces(name, doc, rows):
    """Rows of their own lengths (no zero padding, which would cost multiply-adds)."""
    print(f"/// {doc}")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const {name}: [&[f64]; {len(rows)}] = [")
    for r in rows:
        print("    &[" + ", ".join(repr(v) for v in r) + "],")
    print("];")


def hankel_pq(n):
    """(p(t), q(t)) with P(x) = p, x Q(x) = q, y = 64/x^2 = (t + 1)/2."""
    def pq(y):
        x = 8 / mp.sqrt(y)
        chi = x - (2 * n + 1) * mp.pi / 4
        j, yv = mp.besselj(n, x), mp.bessely(n, x)
        amp = mp.sqrt(mp.pi * x / 2)
        return amp * (j * mp.cos(chi) + yv * mp.sin(chi)), x * amp * (yv * mp.cos(chi) - j * mp.sin(chi))
    p = fit(lambda y: pq(y)[0], mp.mpf(0), mp.mpf(1), 1)
    q = fit(lambda y: pq(y)[1], mp.mpf(0), mp.mpf(1), 0.125 if n == 0 else 0.375)
    return p, q


def k_far(n, pieces):
    """sqrt(x) e^x K_n(x) for x > 2 as polynomials in t, u = 2/x in pieces of (0, 1]."""
    rows = []
    g = lambda u: mp.sqrt(2 / u) * mp.exp(2 / u) * mp.besselk(n, 2 / u)  # noqa: E731
    for i in range(pieces):
        a, b = mp.mpf(i) / pieces, mp.mpf(i + 1) / pieces
        rows.append(fit(g, a, b, 1))
    return rows


def main():
    print("//! Coefficient tables of the float32 Bessel kernels (`vecmath_bessel`), printed by")
    print("//! tools/fit_bessel.py (Chebyshev fits made with mpmath; see that script for the forms).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    print()
    for name, f in (("J0", J0), ("J1", J1), ("Y0", Y0), ("Y1", Y1)):
        rows, degs = piece_rows(name, f)
        print(f"// {name}: degrees per piece {degs}", file=sys.stderr)
        emit_pieces(f"{name}_NEAR", f"{name} on the pieces {PIECES[name]}: [lo, mid, 1/half-width, z_hi, z_lo, has_zero, "
                    "coefficients in t = (x - mid) / half-width].", rows)
    # Y below 1/2, in s = 8x^2 - 1 (x^2 in [0, 1/4]).
    ys = lambda s: mp.sqrt((s + 1) / 8)  # noqa: E731
    lim = lambda f: (lambda s: f(ys(s)) if s > -1 else f(mp.mpf("1e-30")))  # noqa: E731
    two_pi = 2 / mp.pi
    emit1("J0_SMALL", "J0(x) in s = 8x^2 - 1, x < 1/2.", fit(lim(J0), -1, 1))
    emit1("Y0_SMALL", "Y0(x) - (2/pi) ln(x) J0(x) in s.", fit(lim(lambda x: Y0(x) - two_pi * mp.log(x) * J0(x)), -1, 1, 0.1))
    # Y1 has no zero below 2.19: its small form reaches 2, in s = x^2/2 - 1 (as K's below).
    ks = lambda s: mp.sqrt(2 * (s + 1))  # noqa: E731
    klim = lambda f: (lambda s: f(ks(s)) if s > -1 else f(mp.mpf("1e-30")))  # noqa: E731
    emit1("J1_SMALL", "J1(x) / x in s = x^2/2 - 1, x < 2.", fit(klim(lambda x: J1(x) / x), -1, 1))
    emit1("Y1_SMALL", "(Y1(x) - (2/pi) ln(x) J1(x) + 2/(pi x)) / x in s = x^2/2 - 1.",
          fit(klim(lambda x: (Y1(x) - two_pi * mp.log(x) * J1(x) + 2 / (mp.pi * x)) / x), -1, 1, 0.1))
    for n in (0, 1):
        p, q = hankel_pq(n)
        emit1(f"P{n}_FAR", f"P of order {n} for x >= 8, in t = 128/x^2 - 1.", p)
        emit1(f"Q{n}_FAR", f"x Q of order {n} for x >= 8, in t.", q)
    # K below 2 in s = x^2/2 - 1.
    I0 = lambda x: mp.besseli(0, x)  # noqa: E731
    I1 = lambda x: mp.besseli(1, x)  # noqa: E731
    K0 = lambda x: mp.besselk(0, x)  # noqa: E731
    K1 = lambda x: mp.besselk(1, x)  # noqa: E731
    emit1("I0_SMALL", "I0(x) in s = x^2/2 - 1, x <= 2.", fit(klim(I0), -1, 1))
    emit1("K0_SMALL", "K0(x) + ln(x) I0(x) in s.", fit(klim(lambda x: K0(x) + mp.log(x) * I0(x)), -1, 1, 0.1))
    emit1("I1_SMALL", "I1(x) / x in s.", fit(klim(lambda x: I1(x) / x), -1, 1))
    emit1("K1_SMALL", "(K1(x) - 1/x - ln(x) I1(x)) / x in s.",
          fit(klim(lambda x: (K1(x) - 1 / x - mp.log(x) * I1(x)) / x), -1, 1, 0.1))
    for n in (0, 1):
        emit(f"K{n}_FAR", f"sqrt(x) e^x K{n}(x) for x > 2 on u = 2/x in [i/{K_PIECES}, (i+1)/{K_PIECES}): "
             f"coefficients in t = {2 * K_PIECES} u - (2i + 1).", k_far(n, K_PIECES))


K_PIECES = 2

if __name__ == "__main__":
    main()
