"""Builds the tables and fits of src/cpu/vecmath_avx512_log.rs and src/cpu/vecmath_avx512_trig.rs with mpmath and numpy:
    /work/torchref/bin/python tools/fit_avx512_tables.py
prints INV_C, LN_C_HI, LN_C_LO, LN2 and Q (float32 log family) and SIN_P, COS_P (float32 sin and cos through float64);
    /work/torchref/bin/python tools/fit_avx512_tables.py gelu > src/cpu/vecmath_avx512_gelu_tables.rs
writes the module of gelu's tables (src/cpu/vecmath_avx512_gelu.rs), which `cargo fmt` then leaves as it is;
    /work/torchref/bin/python tools/fit_avx512_tables.py erfinv > src/cpu/vecmath_avx512_erfinv_tables.rs
the module of erfinv's float64 tables (src/cpu/vecmath_avx512_erfinv.rs);
    /work/torchref/bin/python tools/fit_avx512_tables.py atan > src/cpu/vecmath_avx512_atan_tables.rs
the module of atan's float32 tables (src/cpu/vecmath_avx512_atan.rs);
    /work/torchref/bin/python tools/fit_avx512_tables.py tanh > src/cpu/vecmath_avx512_tanh_tables.rs
the module of tanh's float32 tables (src/cpu/vecmath_avx512_tanh.rs);
    /work/torchref/bin/python tools/fit_avx512_tables.py tan > src/cpu/vecmath_avx512_tan_tables.rs
the module of tan's float32 tables (src/cpu/vecmath_avx512_tan.rs);
    /work/torchref/bin/python tools/fit_avx512_tables.py erfc > src/cpu/vecmath_avx512_erfc_tables.rs
the module of erfc's float32 grid (src/cpu/vecmath_avx512_erfc.rs).

The log table: m in [0.75, 1.5) falls in 32 intervals by its five leading fraction bits (width 1/32 above 1, 1/64 below).
Each interval's 1/c is a multiple of 2^-q with q as large as keeps r = m (1/c) - 1 exact at both ends (r is a multiple of
ulp(m) 2^-q, exact below 2^24 of those), the one with the smallest |r| among those; the two intervals next to 1 take c = 1.
ln c (plus ln 2 below 1, where vgetexpps's exponent is one short) is split into a first word of 16 fraction bits and the
rest. Fits: Lawson's iteration (a weighted least-squares loop converging to the minimax fit) over Chebyshev nodes; the
float32 ones coefficient by coefficient, each rounded to float32 before the next ones are refitted."""

import numpy as np
import mpmath as mp

mp.mp.dps = 50


def f32(v):
    return np.float32(float(v))


def lawson(a, y, scale, iterations=300):
    """Coefficients c minimising max |a c - y| scale (Lawson's reweighting)."""
    u = np.ones(len(y)) / len(y)
    for _ in range(iterations):
        w = np.sqrt(u) * scale
        c, *_ = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)
        err = np.abs(a @ c - y) * scale
        u = u * err
        u /= u.sum()
    return c


def fit(xs, ys, scale, degree, rounding):
    """Powers-of-x coefficients fitted one at a time: each rounded by `rounding`, the rest refitted."""
    fixed = []
    for k in range(degree + 1):
        rest = ys - sum(c * xs**j for j, c in enumerate(fixed))
        a = np.stack([xs**j for j in range(k, degree + 1)], 1)
        fixed.append(rounding(lawson(a, rest, scale)[0]))
    p = sum(c * xs**j for j, c in enumerate(fixed))
    return fixed, float(np.max(np.abs(p - ys) * scale))


def chebyshev_nodes(lo, hi, n=2000):
    return (np.cos(np.pi * (np.arange(n) + 0.5) / n) + 1) / 2 * (hi - lo) + lo


def log_table():
    ln2 = mp.log(2)
    ln2_hi = mp.floor(ln2 * 2**16) / 2**16
    rows, r_max = [], 0
    for j in range(32):
        if j < 16:
            lo, hi, exact_below = mp.mpf(32 + j) / 32, mp.mpf(33 + j) / 32, lambda q: mp.mpf(2) ** (1 - q)
        else:
            lo, hi, exact_below = mp.mpf(32 + j) / 64, mp.mpf(33 + j) / 64, lambda q: mp.mpf(2) ** (-q)
        if j in (0, 31):
            inv_c, worst = mp.mpf(1), max(abs(lo - 1), abs(hi - 1))
        else:
            best = None
            for q in range(12, 2, -1):
                centre = mp.nint(2 / (lo + hi) * 2**q)
                for step in range(-3, 4):
                    c = (centre + step) / mp.mpf(2) ** q
                    rm = max(abs(lo * c - 1), abs(hi * c - 1))
                    if rm < exact_below(q) and (best is None or rm < best[0]):
                        best = (rm, c)
                if best is not None:
                    break
            worst, inv_c = best
        ln_c = -mp.log(inv_c) + (ln2 if j >= 16 else 0)
        ln_c_hi = ln2_hi if j == 31 else mp.nint(ln_c * 2**16) / 2**16
        rows.append((f32(inv_c), f32(ln_c_hi), f32(ln_c - ln_c_hi)))
        r_max = max(r_max, worst)
    print("INV_C", [float(r[0]) for r in rows])
    print("LN_C_HI", [float(r[1]) for r in rows])
    print("LN_C_LO", [float(r[2]) for r in rows])
    print("LN2", float(ln2_hi), float(f32(ln2 - ln2_hi)), "; |r| <=", float(r_max))
    return float(r_max)


def log_q(r_lo, r_hi):
    rs = chebyshev_nodes(r_lo, r_hi)
    ys = np.array([float((mp.log1p(mp.mpf(r)) - r + mp.mpf(r) ** 2 / 2) / mp.mpf(r) ** 3) for r in rs])
    # r^3 Q's error relative to log1p(r) ~ r: weight r^2.
    q, err = fit(rs, ys, rs**2, 3, lambda v: float(f32(v)))
    print("Q", q, "; max error relative to r:", err)


def sin_cos():
    big = float(mp.pi / 16) * 1.001
    zs = chebyshev_nodes(0, big * big)
    s = np.array([float((mp.sin(mp.sqrt(z)) / mp.sqrt(z) - 1) / z) for z in zs])
    c = np.array([float((mp.cos(mp.sqrt(z)) - 1) / z) for z in zs])
    # Float64 coefficients: fitted together (their rounding is far below the float32 result's).
    a = np.stack([zs**k for k in range(3)], 1)
    for name, ys in (("SIN_P", s), ("COS_P", c)):
        p = lawson(a, ys, zs)
        print(name, [float(v) for v in p], "; max error:", float(np.max(np.abs(a @ p - ys) * zs)))


def piecewise(f, intervals, degree, floor=0.0):
    """Per interval k (u in [-1/2, 1/2], the first [0, 1/2]; `intervals(k, u)` the argument), f's polynomial in u fitted
    for error relative to |f| + floor (floor > 0 where f crosses zero): its value at the centre in two float32 words, the
    other coefficients float32, fitted one at a time."""
    cols, worst, step = [[] for _ in range(degree + 2)], 0.0, 0.0
    for k in range(32):
        u = chebyshev_nodes(-0.5 if k else 0.0, 0.5, 600)
        y = np.array([float(f(mp.mpf(float(v)))) for v in intervals(k, u)])
        weight = 1 / (np.abs(y) + floor)
        # The value at the centre, exactly: at x = 0 (Phi(0) = 1/2) the rest is +0, so gelu(-0) = -0.
        c0 = f(mp.mpf(float(intervals(k, 0.0))))
        c0h = f32(c0)
        c0l = f32(c0 - mp.mpf(float(c0h)))
        rest, fixed = y - float(c0h) - float(c0l), []
        for j in range(1, degree + 1):
            a = np.stack([u**i for i in range(j, degree + 1)], 1)
            fitted = sum(c * u**i for i, c in enumerate(fixed, 1))
            fixed.append(f32(lawson(a, rest - fitted, weight, 100)[0]))
        s = sum(float(c) * u**i for i, c in enumerate(fixed, 1))
        worst = max(worst, float(np.max(np.abs(float(c0h) + float(c0l) + s - y) * weight)))
        step = max(step, float(np.max(np.abs(s) * weight)))
        for col, c in zip(cols, [c0h, c0l, *fixed]):
            col.append(float(c))
    return cols, worst, step


def gelu_tables():
    print("//! Coefficient tables of `vecmath_avx512_gelu`, printed by tools/fit_avx512_tables.py (`gelu`): per")
    print("//! interval, a polynomial in u whose value at 0 has two float32 words (`*_C0`, `*_C0L`).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    phi = lambda a: mp.erfc(a / mp.sqrt(2)) / 2  # noqa: E731
    half_erfcx = lambda a: mp.erfc(a / mp.sqrt(2)) * mp.exp(a * a / 2) / 2  # noqa: E731
    slope = lambda a: phi(a) - a * mp.exp(-a * a / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    log_erfcx = lambda t: -mp.log(mp.erfc(t) * mp.exp(t * t))  # noqa: E731
    for name, f, scale, degree, floor, what in (
        ("NEAR", phi, 8, 5, 0.0, "Phi(-a) for a = |x| in [0, 3.9375): a = (k + u) / 8"),
        ("FAR", half_erfcx, 2, 6, 0.0, "Phi(-a) e^(a^2/2) for a = |x| in [0, 15.75): a = (k + u) / 2"),
        ("SLOPE", slope, 8, 5, 2**-6, "gelu'(-a) = Phi(-a) - a phi(a) for a = |x| in [0, 3.9375): a = (k + u) / 8"),
        ("LOG_ERFCX", log_erfcx, None, 6, 1.0, "-ln erfcx(t), t = |x| < 11.875: t = (k + u) / 4 below 3.875, (k + u - 7.75) / 2 above"),
    ):
        if scale is None:
            cols, worst, step = piecewise(f, lambda k, u: (k + u) / 4 if k < 16 else (k + u - 7.75) / 2, degree, floor)
        else:
            cols, worst, step = piecewise(f, lambda k, u, s=scale: (k + u) / s, degree, floor)
        relative = "relative" if floor == 0 else f"relative to |value| + 2^{np.log2(floor):.0f}"
        print()
        print(f"// {what}, degree {degree}: within {worst:.2e} (2^{np.log2(worst):.1f}) {relative}; |rest| <= {step:.3f} of that.")
        names = ["C0", "C0L"] + [f"C{j}" for j in range(1, degree + 1)]
        for n, col in zip(names, cols):
            print("#[rustfmt::skip]")
            print(f"pub(crate) const {name}_{n}: [f32; 32] = [{', '.join(repr(v) for v in col)}];")


def erfinv_tables():
    """erfinv's float64 tables: its log's 1/c and -ln(1/c) for m in [1, 2) by four leading fraction bits (c the interval's
    centre, 1/c rounded to float64 and its log taken of the rounded value), and erfinv(a)/a per interval of w = -ln(1 - a^2)
    in [k, k + 1), k < 16, as a degree-6 polynomial in u = w - k (float64 coefficients, fitted together)."""
    print("//! Coefficient tables of `vecmath_avx512_erfinv`, printed by tools/fit_avx512_tables.py (`erfinv`).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    inv_c = [float(1 / (1 + (mp.mpf(j) + 0.5) / 16)) for j in range(16)]
    print()
    print("/// 1/c for m in [1 + j/16, 1 + (j + 1)/16), c its centre, rounded to float64.")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const LOG_INV_C: [f64; 16] = [{', '.join(repr(v) for v in inv_c)}];")
    print("/// -ln of each `LOG_INV_C` (of the float64 value): ln m = ln(1 + r) + this, r = m (1/c) - 1.")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const LOG_LN_C: [f64; 16] = [{', '.join(repr(float(-mp.log(mp.mpf(v)))) for v in inv_c)}];")

    def ratio(w):
        if w == 0:
            return mp.sqrt(mp.pi) / 2
        a = mp.sqrt(-mp.expm1(-w))
        return mp.erfinv(a) / a

    degree, cols, worst = 6, [[] for _ in range(7)], 0.0
    u = chebyshev_nodes(0.0, 1.0, 200)
    powers = np.stack([u**j for j in range(degree + 1)], 1)
    for k in range(16):
        y = np.array([float(ratio(mp.mpf(k) + mp.mpf(float(v)))) for v in u])
        c = lawson(powers, y, 1 / y, 20)
        worst = max(worst, float(np.max(np.abs(powers @ c - y) / y)))
        for col, v in zip(cols, c):
            col.append(float(v))
    print()
    print(f"/// erfinv(a)/a for w = -ln(1 - a^2) in [k, k + 1): coefficient j of u^j, u = w - k, within {worst:.1e} relative.")
    print("#[rustfmt::skip]")
    print("pub(crate) const RATIO: [[f64; 16]; 7] = [")
    for col in cols:
        print(f"    [{', '.join(repr(v) for v in col)}],")
    print("];")


def two_word_table(name, doc, values):
    """Prints NAME_HI, the float32 nearest each value (documented by `doc`), and NAME_LO, what it leaves, rounded."""
    high = [f32(v) for v in values]
    low = [f32(v - mp.mpf(float(h))) for v, h in zip(values, high)]
    print(f"/// {doc}")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const {name}_HI: [f32; 32] = [{', '.join(repr(float(v)) for v in high)}];")
    print(f"/// What `{name}_HI` leaves, rounded to float32.")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const {name}_LO: [f32; 32] = [{', '.join(repr(float(v)) for v in low)}];")


def atan_tables():
    """atan's float32 tables: atan(c) at the centres c = k/8 (k < 16) and c = 2 + (k - 16)/4 (16 <= k < 31) and π/2 at
    31, each in two float32 words, and the odd polynomial q + q^3 P(q^2) for |q| <= 1/5.625 (the reduced argument's range),
    fitted for error relative to atan q with float32 coefficients."""
    print("//! Coefficient tables of `vecmath_avx512_atan`, printed by tools/fit_avx512_tables.py (`atan`).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    values = [mp.atan(mp.mpf(k) / 8) for k in range(16)] + [mp.atan(2 + mp.mpf(k) / 4) for k in range(15)] + [mp.pi / 2]
    print()
    two_word_table("CENTRE", "atan(k/8) for k < 16, atan(2 + (k - 16)/4) for 16 <= k < 31, π/2 at 31: the float32 nearest.", values)
    zs = chebyshev_nodes(1e-12, (1 / 5.625) ** 2)
    ys = np.array([float((mp.atan(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3) for z in zs])
    # q^3 P's error relative to atan q ~ q: weight q^2.
    p, err = fit(zs, ys, zs, 3, lambda v: float(f32(v)))
    print()
    print(f"/// atan q = q + q^3 (P[0] + P[1] q^2 + P[2] q^4 + P[3] q^6) for |q| <= 1/5.625, within {err:.1e} relative.")
    print(f"pub(crate) const P: [f32; 4] = [{', '.join(repr(float(v)) for v in p)}];")


def tanh_interval(k):
    """tanh's interval k: (centre, w), x = centre + w u with u in [-1/2, 1/2] ([0, 1/2] for k = 0). k = 0 is [0, 2^-4]
    (it takes x below 1.25 2^-5), 1 to 30 the quarter binades from 1.25 2^-5 to 7, 31 is [7, 9.5] (x is held at 9.5,
    where tanh rounds to 1). Every w is a power of two, so the coefficients of x - centre are exact rescalings."""
    if k == 0:
        return mp.mpf(0), mp.mpf(2) ** -3
    if k == 31:
        return mp.mpf(8.25), mp.mpf(4)
    e, quarter = k // 4 - 5, k % 4
    return mp.mpf(2) ** e * (1 + mp.mpf(quarter) / 4 + mp.mpf(1) / 8), mp.mpf(2) ** e / 4


def tanh_tables():
    """tanh's float32 tables: per interval (`tanh_interval`) its centre, tanh(centre) and the slope in two float32 words
    each, and degree-2 to 6 coefficients in float32, fitted one at a time for error relative to tanh, each rounded before
    the next are refitted; all as coefficients of x - centre."""
    print("//! Coefficient tables of `vecmath_avx512_tanh`, printed by tools/fit_avx512_tables.py (`tanh`): per interval,")
    print("//! tanh(centre + u) = VALUE + VALUE_LO + (SLOPE + SLOPE_LO) u + C2 u^2 + ... + C6 u^6.")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    degree, names = 6, ["CENTRE", "VALUE", "VALUE_LO", "SLOPE", "SLOPE_LO", "C2", "C3", "C4", "C5", "C6"]
    cols, worst = {n: [] for n in names}, 0.0
    for k in range(32):
        centre, w = tanh_interval(k)
        # Interval 31's x runs from 7 to 9.5 only.
        u = chebyshev_nodes(-0.3125, 0.3125, 600) if k == 31 else chebyshev_nodes(0.0 if k == 0 else -0.5, 0.5, 600)
        y = np.array([float(mp.tanh(centre + w * mp.mpf(float(v)))) for v in u])
        weight = 1 / np.abs(y)
        value = mp.tanh(centre)
        hi = f32(value)
        lo = f32(value - mp.mpf(float(hi)))
        rest = y - float(hi) - float(lo)
        if k == 0:
            slope = mp.mpf(1) * w  # tanh'(0) = 1 exactly: tanh of a subnormal is itself.
        else:
            a = np.stack([u**j for j in range(1, degree + 1)], 1)
            slope = mp.mpf(float(lawson(a, rest, weight, 100)[0]))
        s_hi = f32(slope)
        s_lo = f32(slope - mp.mpf(float(s_hi)))
        rest = rest - (float(s_hi) + float(s_lo)) * u
        fixed = []
        for j in range(2, degree + 1):
            a = np.stack([u**i for i in range(j, degree + 1)], 1)
            fitted = sum(c * u**i for i, c in enumerate(fixed, 2))
            fixed.append(f32(lawson(a, rest - fitted, weight, 100)[0]))
        err = rest - sum(float(c) * u**i for i, c in enumerate(fixed, 2))
        worst = max(worst, float(np.max(np.abs(err) * weight)))
        # Coefficients of x - centre = w u: divide by w^j (a power of two: exact).
        row = [centre, hi, lo, s_hi / w, s_lo / w] + [c / w**j for j, c in enumerate(fixed, 2)]
        for n, v in zip(names, row):
            cols[n].append(float(v))
    print(f"// Within {worst:.1e} (2^{np.log2(worst):.1f}) relative on every interval.")
    for n in names:
        print("#[rustfmt::skip]")
        print(f"pub(crate) const {n}: [f32; 32] = [{', '.join(repr(v) for v in cols[n])}];")


def tan_tables():
    """tan's float32 tables: π/32 in three float32 words, tan(jπ/32) in two (j = 16, the pole, as -1 with ONE = 0, so
    that (T + ONE t) / (ONE - T t) is -1/t there), and tan r = r + r^3 P(r^2) for |r| <= 1.01 π/64 with float32
    coefficients, fitted for error relative to tan r."""
    print("//! Coefficient tables of `vecmath_avx512_tan`, printed by tools/fit_avx512_tables.py (`tan`).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    step = mp.pi / 32
    words = []
    for _ in range(3):
        words.append(f32(step - sum(mp.mpf(float(w)) for w in words)))
    print()
    print("/// π/32 = PI_32[0] + PI_32[1] + PI_32[2] to 2^-75 relative.")
    print(f"pub(crate) const PI_32: [f32; 3] = [{', '.join(repr(float(w)) for w in words)}];")
    print(f"pub(crate) const INV_PI_32: f32 = {float(f32(1 / step))!r};")
    values = [mp.tan(j * step) if j != 16 else mp.mpf(-1) for j in range(32)]
    print()
    two_word_table("T", "tan(jπ/32) as the float32 nearest, -1 at the pole (j = 16).", values)
    print("/// 1 but at the pole, 0.")
    print("#[rustfmt::skip]")
    print(f"pub(crate) const ONE: [f32; 32] = [{', '.join('0.0' if j == 16 else '1.0' for j in range(32))}];")
    # |r| reaches a little past π/64 where n = round(x 32/π) is rounded from float32's x 32/π.
    zs = chebyshev_nodes(1e-12, float(step / 2 * 1.01) ** 2)
    ys = np.array([float((mp.tan(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3) for z in zs])
    p, err = fit(zs, ys, zs, 1, lambda v: float(f32(v)))
    print()
    print(f"/// tan r = r + r^3 (P[0] + P[1] r^2) for |r| <= 1.01 π/64, within {err:.1e} relative.")
    print(f"pub(crate) const P: [f32; 2] = [{', '.join(repr(float(v)) for v in p)}];")


def erfc_tables():
    """erfc's float32 table for a = |x| < 8 on the grid a0 = n/128 (n <= 1024), two 32-bit words per point: erfc(a0) as the
    float32 nearest, and a word packing what that leaves (relative, in 2^-28, as a 6-bit signed integer in the top bits)
    above erfc's slope 2/√π e^(-a0^2) as float32 bits less erfc(a0)'s exponent field (the slope is 1.1 to 17 times
    erfc(a0), so 26 bits hold its exponent's offset and its whole fraction); and G0(t) = (1 - e^(-2t)) / (2t) =
    1 - t + t^2 (P[0] + P[1] t) for |t| = |a0 r| <= 1/32, fitted for absolute error with float32 coefficients."""
    print("//! The table and fit of `vecmath_avx512_erfc`, printed by tools/fit_avx512_tables.py (`erfc`).")
    print("#![allow(clippy::excessive_precision, clippy::unreadable_literal)]")
    words = []
    for n in range(1025):
        a0 = mp.mpf(n) / 128
        value = mp.erfc(a0)
        high = f32(value)
        code = int(mp.nint((value - mp.mpf(float(high))) / mp.mpf(float(high)) * 2**28))
        assert -32 <= code < 32
        slope = f32(2 / mp.sqrt(mp.pi) * mp.exp(-a0 * a0))
        high_bits = int(np.array(high).view(np.uint32))
        offset = int(np.array(slope).view(np.uint32)) - (high_bits & 0x7F800000)
        assert 0 <= offset < 1 << 26, (n, offset)
        words += [high_bits, ((code & 63) << 26) | offset]
    print()
    print("/// erfc(n/128) and its packed word for n <= 1024, in pairs.")
    print("#[rustfmt::skip]")
    print(f"pub(crate) static GRID: [u32; {len(words)}] = [")
    for row in range(0, len(words), 8):
        print("    " + ", ".join(f"0x{w:08x}" for w in words[row : row + 8]) + ",")
    print("];")
    ts = chebyshev_nodes(-1 / 32, 1 / 32)
    ts = ts[np.abs(ts) > 1e-9]
    g0 = np.array([float((1 - mp.exp(-2 * mp.mpf(t))) / (2 * mp.mpf(t))) for t in ts])
    p, err = fit(ts, (g0 - 1 + ts) / ts**2, ts**2, 1, lambda v: float(f32(v)))
    print()
    print(f"/// (1 - e^(-2t)) / (2t) = 1 - t + t^2 (P[0] + P[1] t) for |t| <= 1/32, within {err:.1e}.")
    print(f"pub(crate) const P: [f32; 2] = [{', '.join(repr(float(v)) for v in p)}];")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["gelu"]:
        gelu_tables()
        sys.exit()
    if sys.argv[1:] == ["tanh"]:
        tanh_tables()
        sys.exit()
    if sys.argv[1:] == ["tan"]:
        tan_tables()
        sys.exit()
    if sys.argv[1:] == ["atan"]:
        atan_tables()
        sys.exit()
    if sys.argv[1:] == ["erfc"]:
        erfc_tables()
        sys.exit()
    if sys.argv[1:] == ["erfinv"]:
        erfinv_tables()
        sys.exit()
    log_table()
    log_q(-0.0206, 0.03126)
    sin_cos()
