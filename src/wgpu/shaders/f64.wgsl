// Float64 for the shaders that compute in it (appended to their source; the device must have
// the shader-f64 and shader-int64 features): the bits of an element as a (lo, hi) pair of u32
// words and back, conversions to and from the integers, and the math functions. It stands on
// its own: conversions that need other dtypes' helpers are in elementwise_f64.wgsl (the float64
// prelude of the elementwise kernels). SPIR-V defines exp, log, the trigonometric functions and
// pow for 16- and 32-bit floats only, so they are written here from float64 arithmetic (+ - * /
// fma sqrt floor trunc round, which are exact or correctly rounded): range reduction, then a
// polynomial or series. No formula relies on rounding errors cancelling (Kahan's log1p and expm1
// tricks): shader compilers may simplify (1 + x) - 1 to x. Each is within a few ulp of the CPU's
// libm over its range. sin, cos and tan reduce by pi / 2 in three exact parts for |x| < 2^20 pi
// / 2 (about 1.6e6) and beyond that (to the largest double) by Payne and Hanek's method: x times
// the bits of 2 / pi that matter, exactly, from a table.

const LN2_HI: f64 = 6.93147180369123816490e-01; // ln 2 in 33 bits: k * LN2_HI is exact
const LN2_LO: f64 = 1.90821492927058770002e-10;
const LOG2E_64: f64 = 1.4426950408889634;
const LOG10E_64: f64 = 0.4342944819032518;
const LOG10_2_64: f64 = 0.3010299956639812;
const PI_HI: f64 = 3.141592653589793;
const PI_LO: f64 = 1.2246467991473532e-16;
const PIO2_HI: f64 = 1.5707963267948966;
const PIO2_LO: f64 = 6.123233995736766e-17;
const PIO4_HI: f64 = 0.7853981633974483;
const PIO4_LO: f64 = 3.061616997868383e-17;
// pi / 2 in three 33-bit parts: k * each is exact for |k| < 2^20.
const PIO2_1: f64 = 1.57079632673412561417e+00;
const PIO2_2: f64 = 6.07710050630396597660e-11;
const PIO2_3: f64 = 2.02226624871116645580e-21;
const TAN_PI_8: f64 = 0.41421356237309503;

fn f64_of(v: vec2<u32>) -> f64 {
    return bitcast<f64>((u64(v.y) << 32u) | u64(v.x));
}

fn f64_words(x: f64) -> vec2<u32> {
    let b = bitcast<u64>(x);
    return vec2<u32>(u32(b & 0xfffffffflu), u32(b >> 32u));
}

fn nan64() -> f64 {
    return f64_of(vec2<u32>(0u, 0x7ff80000u));
}

fn inf64() -> f64 {
    return f64_of(vec2<u32>(0u, 0x7ff00000u));
}

// Bit tests: compilers may assume `x != x` is false.
fn is_nan64(x: f64) -> bool {
    return (bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}

fn is_inf64(x: f64) -> bool {
    return (bitcast<u64>(x) & 0x7ffffffffffffffflu) == 0x7ff0000000000000lu;
}

fn sign_bit64(x: f64) -> bool {
    return (bitcast<u64>(x) >> 63u) == 1lu;
}

// |a| with the sign of b.
fn copysign64(a: f64, b: f64) -> f64 {
    return bitcast<f64>((bitcast<u64>(a) & 0x7ffffffffffffffflu) | (bitcast<u64>(b) & 0x8000000000000000lu));
}

// 2^k for -1022 <= k <= 1023, from the exponent bits.
fn pow2_64(k: i32) -> f64 {
    return bitcast<f64>(u64(u32(k + 1023)) << 52u);
}

// ----- conversions ---------------------------------------------------------------------------------

// int64 (lo, hi) to float64 with one rounding: the high word times 2^32 is exact.
fn i64_to_f64(x: vec2<u32>) -> f64 {
    return f64(bitcast<i32>(x.y)) * 4294967296.0 + f64(x.x);
}

// Truncated toward zero; NaN and values out of range give -2^63 (as the float32 casts do).
fn f64_to_i64(v: f64) -> vec2<u32> {
    let t = trunc(v);
    if is_nan64(v) || !(t >= -9223372036854775808.0 && t < 9223372036854775808.0) { return vec2<u32>(0u, 0x80000000u); }
    let b = bitcast<u64>(i64(t));
    return vec2<u32>(u32(b & 0xfffffffflu), u32(b >> 32u));
}

fn f64_to_i32(v: f64) -> i32 {
    let t = trunc(v);
    if is_nan64(v) || !(t >= -2147483648.0 && t < 2147483648.0) { return i32(-2147483647 - 1); }
    return i32(t);
}

// ----- exponentials and logarithms -------------------------------------------------------------------

// e^r for |r| <= ln2 / 2: Taylor to r^13 (the next term is below 2^-57 relative).
fn exp_poly64(r: f64) -> f64 {
    var p: f64 = 1.6059043836821613e-10;
    p = fma(p, r, 2.08767569878681e-09);
    p = fma(p, r, 2.505210838544172e-08);
    p = fma(p, r, 2.755731922398589e-07);
    p = fma(p, r, 2.7557319223985893e-06);
    p = fma(p, r, 2.48015873015873e-05);
    p = fma(p, r, 0.0001984126984126984);
    p = fma(p, r, 0.001388888888888889);
    p = fma(p, r, 0.008333333333333333);
    p = fma(p, r, 0.041666666666666664);
    p = fma(p, r, 0.16666666666666666);
    p = fma(p, r, 0.5);
    p = fma(p, r, 1.0);
    return fma(p, r, 1.0);
}

// p * 2^k for -1075 <= k <= 1024, in two exact factors so that subnormal results round once.
fn scale64(p: f64, k: i32) -> f64 {
    let h = k >> 1u;
    return p * pow2_64(h) * pow2_64(k - h);
}

fn exp64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    if x > 709.782712893384 { return inf64(); }
    if x < -745.1332191019412 { return 0.0; }
    let k = round(x * LOG2E_64);
    let r = fma(-k, LN2_LO, fma(-k, LN2_HI, x));
    return scale64(exp_poly64(r), i32(k));
}

fn exp2_64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    if x >= 1024.0 { return inf64(); }
    if x < -1075.0 { return 0.0; }
    let k = round(x);
    return scale64(exp_poly64((x - k) * 0.6931471805599453), i32(k));
}

// log((1 + s) / (1 - s)) = 2 atanh(s) for |s| < 0.172: its series to s^45.
fn log_series64(s: f64) -> f64 {
    let s2 = s * s;
    var p: f64 = 1.0 / 45.0;
    for (var n = 21; n >= 0; n--) {
        p = fma(p, s2, 1.0 / f64(2 * n + 1));
    }
    return 2.0 * s * p;
}

// x = 2^e * f with f in [sqrt(1/2), sqrt(2)), for finite x > 0: (e, log(f)), log(f) from the
// series with s = (f - 1) / (f + 1).
struct LogParts {
    e: f64,
    lf: f64,
}

fn log_parts64(x: f64) -> LogParts {
    var m = x;
    var e = 0i;
    if m < 2.2250738585072014e-308 {
        m *= 18014398509481984.0; // 2^54: subnormals become normal
        e = -54;
    }
    let b = bitcast<u64>(m);
    e += i32(u32(b >> 52u)) - 1022;
    var f = bitcast<f64>((b & 0x000ffffffffffffflu) | 0x3fe0000000000000lu);
    if f < 0.7071067811865476 {
        f *= 2.0;
        e -= 1;
    }
    return LogParts(f64(e), log_series64((f - 1.0) / (f + 1.0)));
}

// The special values of every logarithm: NaN below zero, -inf at zero, +inf at +inf.
fn log_special64(x: f64) -> bool {
    return is_nan64(x) || x <= 0.0 || is_inf64(x);
}

fn log_special_value64(x: f64) -> f64 {
    if is_nan64(x) || x < 0.0 { return nan64(); }
    if x == 0.0 { return -inf64(); }
    return x;
}

fn log64(x: f64) -> f64 {
    if log_special64(x) { return log_special_value64(x); }
    let l = log_parts64(x);
    return fma(l.e, LN2_HI, fma(l.e, LN2_LO, l.lf));
}

// Exact at powers of two.
fn log2_64(x: f64) -> f64 {
    if log_special64(x) { return log_special_value64(x); }
    let l = log_parts64(x);
    return l.e + l.lf * LOG2E_64;
}

fn log10_64(x: f64) -> f64 {
    if log_special64(x) { return log_special_value64(x); }
    let l = log_parts64(x);
    return fma(l.e, LOG10_2_64, l.lf * LOG10E_64);
}

// log(1 + x): where 1 + x is in [sqrt(1/2), sqrt(2)), the series at s = x / (2 + x), which
// keeps every digit of small x; elsewhere log(1 + x) itself, at least 0.34 in magnitude.
fn log1p64(x: f64) -> f64 {
    // Below 2^-54, log(1 + x) rounds to x (and x / 2 could underflow).
    if is_nan64(x) || abs(x) < 5.551115123125783e-17 { return x; }
    if x > -0.2928932188134524 && x < 0.41421356237309503 {
        return log_series64(x / (2.0 + x));
    }
    return log64(1.0 + x);
}

// exp(x) - 1: below ln2 / 2 in magnitude its Taylor series to x^14; elsewhere exp(x) - 1,
// where the subtraction loses at most two bits.
fn expm1_64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    if x < -40.0 { return -1.0; }
    if abs(x) < 0.34657359027997264 {
        var p: f64 = 1.1470745597729725e-11;
        p = fma(p, x, 1.6059043836821613e-10);
        p = fma(p, x, 2.08767569878681e-09);
        p = fma(p, x, 2.505210838544172e-08);
        p = fma(p, x, 2.755731922398589e-07);
        p = fma(p, x, 2.7557319223985893e-06);
        p = fma(p, x, 2.48015873015873e-05);
        p = fma(p, x, 0.0001984126984126984);
        p = fma(p, x, 0.001388888888888889);
        p = fma(p, x, 0.008333333333333333);
        p = fma(p, x, 0.041666666666666664);
        p = fma(p, x, 0.16666666666666666);
        p = fma(p, x, 0.5);
        p = fma(p, x, 1.0);
        return x * p;
    }
    return exp64(x) - 1.0;
}

// ----- trigonometric functions ---------------------------------------------------------------------

// The largest |x| that the three-part reduction takes exactly (|k| < 2^20).
const TRIG_MAX: f64 = 1647099.0;

// x = k * pi / 2 + r with |r| <= pi / 4; q = k mod 4.
struct Reduced {
    q: u32,
    r: f64,
}

// The bits of 2 / pi after the binary point, 32 to a word, after 64 zero bits (so windows
// that start before the point read zeros): 1344 bits, enough for x up to the largest double.
const TWO_OVER_PI_BITS: array<u32, 44> = array<u32, 44>(
    0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u,
    0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu,
    0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu,
    0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
    0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu,
    0xf0cfbc20u, 0x9af4361du, 0xa9e39161u, 0x5ee61b08u
);

// The 24 bits of 2 / pi from bit p (0-based after the point; p >= -64), as a float64.
fn two_over_pi_24(p: i32) -> f64 {
    let q = u32(p + 64);
    let w = q >> 5u;
    let s = q & 31u;
    var table = TWO_OVER_PI_BITS;
    var hi = table[w] << s;
    if s != 0u {
        hi = hi | (table[w + 1u] >> (32u - s));
    }
    return f64(hi >> 8u);
}

// Payne-Hanek reduction of a finite |x| >= 2^20: x = m 2^e with m an integer of 53 bits.
// Bits of 2 / pi that make m 2^e (2 / pi) a multiple of 4 do not matter, so x (2 / pi) =
// 4 m W (mod 4) where W is the 216-bit window of 2 / pi starting at bit e - 1 (in 24-bit digits
// w_t). m (three 24-bit digits m_i) times W is summed exactly in float64 by output digit
// (f_k = sum m_i w_(k+i), each below 2^50), carries are propagated, and the fraction of m W
// gives the quadrant (its first two bits, rounded to nearest) and the remainder in turns,
// summed from its smallest digit up with every term of one sign (the complement is taken when
// rounding up), so it keeps full relative precision however close x is to a multiple of pi / 2.
fn reduce_pio2_large(x: f64) -> Reduced {
    let words = f64_words(x);
    let e = i32((words.y >> 20u) & 0x7ffu) - 1075;
    let hm = (words.y & 0xfffffu) | 0x100000u;
    let m0 = f64(words.x & 0xffffffu);
    let m1 = f64((words.x >> 24u) | ((hm & 0xffffu) << 8u));
    let m2 = f64(hm >> 16u);
    var w: array<f64, 11>;
    for (var t = 0; t < 11; t++) {
        w[t] = two_over_pi_24(e - 2 + 24 * t);
    }
    var f: array<f64, 9>;
    for (var k = 0; k < 9; k++) {
        f[k] = m0 * w[k] + m1 * w[k + 1] + m2 * w[k + 2];
    }
    let base: f64 = 16777216.0; // 2^24
    for (var k = 8; k > 0; k--) {
        let c = floor(f[k] * (1.0 / base));
        f[k] = f[k] - c * base;
        f[k - 1] = f[k - 1] + c;
    }
    var d0 = f[0] - floor(f[0] * (1.0 / base)) * base;
    let q0 = floor(d0 * (1.0 / 4194304.0));
    d0 = d0 - q0 * 4194304.0;
    let up = d0 >= 2097152.0;
    var s: f64 = 0.0;
    var scale: f64 = pow2_64(2 - 24 * 9);
    for (var k = 8; k >= 0; k--) {
        var d = select(f[k], d0, k == 0);
        if up {
            d = select(select(base - 1.0 - d, base - d, k == 8), 4194303.0 - d, k == 0);
        }
        let sc = select(scale, 1.0 / 4194304.0, k == 0);
        s = s + d * sc;
        scale = scale * base;
    }
    s = select(s, -s, up);
    var q = (u32(q0) + select(0u, 1u, up)) & 3u;
    var r = fma(s, PIO2_HI, s * PIO2_LO);
    if sign_bit64(x) {
        q = (4u - q) & 3u;
        r = -r;
    }
    return Reduced(q, r);
}

fn reduce_pio2(x: f64) -> Reduced {
    if !(abs(x) < TRIG_MAX) {
        return reduce_pio2_large(x);
    }
    let k = round(x * 0.6366197723675814);
    var r = fma(-k, PIO2_1, x);
    r = fma(-k, PIO2_2, r);
    r = fma(-k, PIO2_3, r);
    return Reduced(u32(k - 4.0 * floor(k * 0.25)), r);
}

// sin and cos of |r| <= pi / 4: Taylor to r^17 and r^20.
fn sin_poly64(r: f64) -> f64 {
    let z = r * r;
    var p: f64 = -8.22063524662433e-18;
    p = fma(p, z, 2.8114572543455206e-15);
    p = fma(p, z, -7.647163731819816e-13);
    p = fma(p, z, 1.6059043836821613e-10);
    p = fma(p, z, -2.505210838544172e-08);
    p = fma(p, z, 2.7557319223985893e-06);
    p = fma(p, z, -0.0001984126984126984);
    p = fma(p, z, 0.008333333333333333);
    p = fma(p, z, -0.16666666666666666);
    return fma(r * z, p, r);
}

fn cos_poly64(r: f64) -> f64 {
    let z = r * r;
    var p: f64 = 4.110317623312165e-19;
    p = fma(p, z, -1.5619206968586225e-16);
    p = fma(p, z, 4.779477332387385e-14);
    p = fma(p, z, -1.1470745597729725e-11);
    p = fma(p, z, 2.08767569878681e-09);
    p = fma(p, z, -2.755731922398589e-07);
    p = fma(p, z, 2.48015873015873e-05);
    p = fma(p, z, -0.001388888888888889);
    p = fma(p, z, 0.041666666666666664);
    p = fma(p, z, -0.5);
    return fma(p, z, 1.0);
}

fn sin64(x: f64) -> f64 {
    if is_nan64(x) || is_inf64(x) { return nan64(); }
    if abs(x) < 1e-8 { return x; }
    let t = reduce_pio2(x);
    switch t.q {
        case 0u: { return sin_poly64(t.r); }
        case 1u: { return cos_poly64(t.r); }
        case 2u: { return -sin_poly64(t.r); }
        default: { return -cos_poly64(t.r); }
    }
}

fn cos64(x: f64) -> f64 {
    if is_nan64(x) || is_inf64(x) { return nan64(); }
    let t = reduce_pio2(x);
    switch t.q {
        case 0u: { return cos_poly64(t.r); }
        case 1u: { return -sin_poly64(t.r); }
        case 2u: { return -cos_poly64(t.r); }
        default: { return sin_poly64(t.r); }
    }
}

fn tan64(x: f64) -> f64 {
    if is_nan64(x) || is_inf64(x) { return nan64(); }
    if abs(x) < 1e-8 { return x; }
    let t = reduce_pio2(x);
    let s = sin_poly64(t.r);
    let c = cos_poly64(t.r);
    return select(s / c, -c / s, (t.q & 1u) == 1u);
}

// atan of 0 <= t <= tan(pi / 8): the alternating series to t^47.
fn atan_series64(t: f64) -> f64 {
    let z = t * t;
    var p: f64 = 0.0;
    for (var n = 23; n >= 0; n--) {
        p = fma(p, -z, 1.0 / f64(2 * n + 1));
    }
    return t * p;
}

// atan of |x| through atan(1 / t) = pi / 2 - atan(t) and atan(t) = pi / 4 + atan((t - 1) / (t + 1)),
// adding the constants' low parts before their high parts.
fn atan64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    let ax = abs(x);
    var r: f64;
    if ax > 1.0 {
        let t = 1.0 / ax;
        if t > TAN_PI_8 {
            r = PIO4_HI + ((PIO4_LO) - atan_series64((t - 1.0) / (t + 1.0)));
        } else {
            r = PIO2_HI + (PIO2_LO - atan_series64(t));
        }
    } else if ax > TAN_PI_8 {
        r = PIO4_HI + (PIO4_LO + atan_series64((ax - 1.0) / (ax + 1.0)));
    } else {
        r = atan_series64(ax);
    }
    return copysign64(r, x);
}

// C's atan2, signed zeros and infinities included.
fn atan2_64(y: f64, x: f64) -> f64 {
    if is_nan64(x) || is_nan64(y) { return nan64(); }
    if y == 0.0 {
        if x > 0.0 || (x == 0.0 && !sign_bit64(x)) { return y; }
        return copysign64(PI_HI, y);
    }
    if is_inf64(x) {
        if is_inf64(y) { return copysign64(select(3.0 * PIO4_HI, PIO4_HI, x > 0.0), y); }
        return copysign64(select(PI_HI, 0.0lf, x > 0.0), y);
    }
    if x == 0.0 || is_inf64(y) { return copysign64(PIO2_HI, y); }
    let t = atan64(abs(y / x));
    if x > 0.0 { return copysign64(t, y); }
    return copysign64(PI_HI - (t - PI_LO), y);
}

// ----- hyperbolic functions, erf and pow -------------------------------------------------------------

fn sinh64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    let ax = abs(x);
    var r: f64;
    if ax < 1.0 {
        let e = expm1_64(ax);
        r = 0.5 * (e + e / (e + 1.0));
    } else if ax < 709.0 {
        let e = exp64(ax);
        r = 0.5 * (e - 1.0 / e);
    } else {
        r = half_exp64(ax);
    }
    return copysign64(r, x);
}

fn cosh64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    let ax = abs(x);
    if ax < 709.0 {
        let e = exp64(ax);
        return 0.5 * (e + 1.0 / e);
    }
    return half_exp64(ax);
}

// exp(x) / 2 for x from 709, where exp(x) itself overflows before its half does. As exp(x - ln 2),
// not (exp(x / 2) / 2) * exp(x / 2): that product came out infinite on NVIDIA's Vulkan driver
// where the half is finite (a driver may reorder it, and exp(x / 2) squared overflows). ln 2 in
// two parts, the first exact in subtraction from such x: the argument is within half an ulp.
fn half_exp64(x: f64) -> f64 {
    return exp64((x - LN2_HI) - LN2_LO);
}

fn tanh64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    let ax = abs(x);
    if ax > 22.0 { return copysign64(1.0, x); }
    let t = expm1_64(2.0 * ax);
    return copysign64(t / (t + 2.0), x);
}

// erf: below 2.5 the series 2/sqrt(pi) e^-x^2 sum 2^n x^(2n+1) / (1 3 5 .. (2n+1)) (all terms
// positive, so nothing cancels); up to 6 from erfc's continued fraction; 1 beyond.
fn erf64(x: f64) -> f64 {
    if is_nan64(x) { return x; }
    let ax = abs(x);
    var r: f64;
    if ax < 2.5 {
        let z = ax * ax;
        var term = ax;
        var s = ax;
        for (var n = 1; n < 80; n++) {
            term = term * 2.0 * z / f64(2 * n + 1);
            s += term;
            if term < s * 1e-17 { break; }
        }
        r = 1.1283791670955126 * exp64(-z) * s;
    } else if ax < 6.0 {
        var f = ax;
        for (var n = 60; n > 0; n--) {
            f = ax + 0.5 * f64(n) / f;
        }
        r = 1.0 - exp64(-ax * ax) / (1.7724538509055159 * f);
    } else {
        r = 1.0;
    }
    return copysign64(r, x);
}

fn sigmoid64(x: f64) -> f64 {
    return 1.0 / (1.0 + exp64(-x));
}

// x to an integer power by squaring.
fn powi64(x: f64, n: i32) -> f64 {
    var base = x;
    var e = abs(n);
    var acc: f64 = 1.0;
    while e > 0 {
        if (e & 1) == 1 { acc *= base; }
        base *= base;
        e = e >> 1u;
    }
    return select(acc, 1.0 / acc, n < 0);
}

// C's pow, as the float32 `pow_`.
fn pow64(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 { return 1.0; }
    if is_nan64(x) || is_nan64(y) { return nan64(); }
    if y == floor(y) && abs(y) <= 64.0 { return powi64(x, i32(y)); }
    let ax = abs(x);
    // y is an odd integer (every float64 of 2^53 and up is even).
    let odd = y == floor(y) && abs(y) < 9007199254740992.0 && fract(y * 0.5) != 0.0;
    var r: f64;
    if is_inf64(ax) {
        r = select(inf64(), 0.0lf, y < 0.0);
        return select(r, -r, x < 0.0 && odd);
    }
    if is_inf64(y) {
        if ax == 1.0 { return 1.0; }
        return select(0.0lf, inf64(), (ax > 1.0) == (y > 0.0));
    }
    if ax == 0.0 {
        r = select(0.0lf, inf64(), y < 0.0);
    } else {
        r = exp64(y * log64(ax));
    }
    if x < 0.0 {
        if y != floor(y) { return nan64(); }
        if odd { r = -r; }
    }
    return r;
}
