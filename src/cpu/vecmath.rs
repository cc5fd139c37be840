//! Branch-free transcendental functions, written so that the unary kernels' loops vectorise
//! (`map_slice` runs them inside pulp's AVX-512/AVX2 dispatch): no library calls, no branches
//! (every `if` below picks between values already computed, which LLVM turns into selects),
//! integer work on the float's bits only where every lane can do it.
//!
//! Every function computes in float64. Its `const L: bool` says which precision the result needs:
//! `L = true` for float32 kernels (the input widened, about 2^-34 relative error before the one
//! rounding to float32, so results are within 0.5 ulp + 2^-10 ulp of exact, never worse than
//! a correctly rounded float64 function rounded to float32), `L = false` for float64 (polynomials
//! long enough for 2^-56, extra words where cancellation would lose digits). The two differ only
//! in the length of the polynomials, so one body serves both; the float32 kernels take the
//! short ones on 8 (AVX-512) or 4 (AVX2) lanes of float64.
//!
//! The polynomial coefficients are either Taylor coefficients (exact rationals) or Chebyshev fits
//! made for this module with mpmath (`chebyfit` of the named function on the named interval, 50
//! digits; fit errors in the comments).

use crate::cpu::vecmath_core::{int_bits, poly, SHIFTER};
use crate::cpu::vecmath_f32 as f32exp;
use crate::cpu::vecmath_f32erf as f32erf;
use crate::cpu::vecmath_f32log as f32log;
use crate::cpu::vecmath_f32trig as f32trig;

// Public: asin and acos's float64-lane forms are no float32 kernel's now (`vecmath_f32trig` is),
// only the tests' and the crate's users'.
pub use crate::cpu::vecmath_trig::{acos, asin, atan, atan2, cos, sin, tan};

const LN2_HI: f64 = 0.6931471806019545; // ln 2 to 32 bits: k * LN2_HI is exact for |k| < 2^21
const LN2_LO: f64 = -4.2009150726810846e-11;
const LOG2E: f64 = std::f64::consts::LOG2_E;
const LOG10E: f64 = std::f64::consts::LOG10_E;
const LOG10_2_HI: f64 = 0.3010299956658855; // log10(2) to 32 bits
const LOG10_2_LO: f64 = -1.9043128467164274e-12;
const SQRT_HALF_BITS: i64 = 0x3FE6_A09E_667F_3BCD;

/// 1/k! for k = 0..=13: exp's Taylor series on |r| <= ln2/2 (r^14/14! < 2^-57).
const EXP_TAYLOR: [f64; 14] = [
    1.0,
    1.0,
    0.5,
    0.16666666666666666,
    0.041666666666666664,
    0.008333333333333333,
    0.001388888888888889,
    0.0001984126984126984,
    2.48015873015873e-5,
    2.7557319223985893e-6,
    2.755731922398589e-7,
    2.505210838544172e-8,
    2.08767569878681e-9,
    1.6059043836821613e-10,
];
/// 2/(2j+1) for j = 1..=10: 2 atanh(s) = 2s + s * sum(c_j s^2j), |s| <= 0.1716 (s^22 < 2^-56).
const LOG_SERIES: [f64; 10] = [
    0.6666666666666666,
    0.4,
    0.2857142857142857,
    0.2222222222222222,
    0.18181818181818182,
    0.15384615384615385,
    0.13333333333333333,
    0.11764705882352941,
    0.10526315789473684,
    0.09523809523809523,
];

/// The first `low` coefficients for float32 results, `full` for float64.
#[inline(always)]
pub(crate) fn terms<const L: bool>(c: &[f64], low: usize) -> &[f64] {
    if L {
        &c[..low]
    } else {
        c
    }
}

/// `k` as a float64 for |k| < 2^51 (the shifter in reverse: no int64 conversion instruction,
/// which AVX2 lacks).
#[inline(always)]
fn small_int_to_f64(k: i64) -> f64 {
    f64::from_bits((SHIFTER.to_bits() as i64).wrapping_add(k) as u64) - SHIFTER
}

/// 2^n for an integer-valued `n` in [-2044, 2046], as two factors whose product with a number
/// near 1 rounds once, subnormal results included.
#[inline(always)]
fn pow2_pair(n: f64) -> (f64, f64) {
    let i = int_bits(n);
    let h = i >> 1;
    (f64::from_bits(((h + 1023) as u64) << 52), f64::from_bits(((i - h + 1023) as u64) << 52))
}

/// `(m, k)` with `x = m 2^k` and m in [sqrt(1/2), sqrt(2)), for positive finite `x`
/// (subnormals scaled up first); anything else gives meaningless finite values.
#[inline(always)]
fn frexp_sqrt2(x: f64) -> (f64, f64) {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18014398509481984.0 } else { x }; // 2^54
    let ix = (xs.to_bits() as i64).wrapping_sub(SQRT_HALF_BITS);
    let k = (ix >> 52) - if sub { 54 } else { 0 };
    let m = f64::from_bits(((ix & 0x000F_FFFF_FFFF_FFFF) + SQRT_HALF_BITS) as u64);
    (m, small_int_to_f64(k))
}

/// `log(m) - f` for m = 1 + f in [sqrt(1/2), sqrt(2)), as a small correction to `f`:
/// with s = f / (2 + f), log m = 2 atanh(s) = f - f s + s R(s^2) = f - (f^2/2 - s (f^2/2 + R)).
#[inline(always)]
fn log_mantissa<const L: bool>(f: f64) -> f64 {
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * poly(z, terms::<L>(&LOG_SERIES, 6));
    let hfsq = 0.5 * f * f;
    s * (hfsq + r) - hfsq
}

/// `exp(x)`; overflow to inf and underflow through the subnormals to 0 as rounding gives.
#[inline(always)]
pub fn exp<const L: bool>(x: f64) -> f64 {
    // Comparisons rather than min/max: a NaN fails both and flows into the result.
    let xc = if x < -746.0 { -746.0 } else { x };
    let xc = if xc > 710.0 { 710.0 } else { xc };
    let n = (xc * LOG2E).round_ties_even();
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, xc));
    // 1 + (r + r^2 (1/2 + ...)): the small tail rounds apart from the leading 1.
    let p = 1.0 + (r * r).mul_add(poly(r, &terms::<L>(&EXP_TAYLOR, 10)[2..]), r);
    let (s1, s2) = pow2_pair(n);
    p * s1 * s2
}

/// `exp(x)` for x in [-708, 0] (normal results; no clamps, NaN stays NaN): `exp` with one power
/// of 2 for its two factors.
#[inline(always)]
fn exp_normal<const L: bool>(x: f64) -> f64 {
    let n = (x * LOG2E).round_ties_even();
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, x));
    let p = 1.0 + (r * r).mul_add(poly(r, &terms::<L>(&EXP_TAYLOR, 10)[2..]), r);
    p * f64::from_bits(((int_bits(n) + 1023) as u64) << 52)
}

/// `exp(x) - 1`, exact in its leading digits near 0: exp(x) = 2^n (1 + q) with q = expm1(r),
/// so expm1(x) = 2^n q + (2^n - 1), the last term exact while n <= 52.
#[inline(always)]
pub fn expm1<const L: bool>(x: f64) -> f64 {
    let xc = if x < -760.0 { -760.0 } else { x };
    let xc = if xc > 710.0 { 710.0 } else { xc };
    let n = (xc * LOG2E).round_ties_even();
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, xc));
    let q = (r * r).mul_add(poly(r, &terms::<L>(&EXP_TAYLOR, 10)[2..]), r);
    let (s1, s2) = pow2_pair(n);
    let s = s1 * s2;
    let near = q.mul_add(s, s - 1.0);
    // Far out 2^n alone may overflow while the result does not: scale in two steps.
    let far = (q + 1.0) * s1 * s2 - 1.0;
    // -0.0 stays -0.0 (n = 0 turns it into +0.0 above).
    if x == 0.0 {
        x
    } else if n > 52.0 {
        far
    } else {
        near
    }
}

/// The special values of the log family: -inf at 0, NaN below 0 and at NaN, inf at inf;
/// `value` elsewhere.
#[inline(always)]
fn log_special(x: f64, value: f64) -> f64 {
    if x > 0.0 && x < f64::INFINITY {
        value
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if x == f64::INFINITY {
        x
    } else {
        f64::NAN
    }
}

/// Natural logarithm: x = m 2^k, log x = k ln2 + log m.
#[inline(always)]
pub fn log<const L: bool>(x: f64) -> f64 {
    let (m, k) = frexp_sqrt2(x);
    let f = m - 1.0;
    let v = k.mul_add(LN2_HI, f + k.mul_add(LN2_LO, log_mantissa::<L>(f)));
    log_special(x, v)
}

/// Base-2 logarithm: k + log(m) / ln 2, k exact.
#[inline(always)]
pub fn log2<const L: bool>(x: f64) -> f64 {
    let (m, k) = frexp_sqrt2(x);
    let f = m - 1.0;
    let lm = f + log_mantissa::<L>(f);
    log_special(x, lm.mul_add(LOG2E, k))
}

/// Base-10 logarithm: k log10(2) + log(m) log10(e).
#[inline(always)]
pub fn log10<const L: bool>(x: f64) -> f64 {
    let (m, k) = frexp_sqrt2(x);
    let f = m - 1.0;
    let lm = f + log_mantissa::<L>(f);
    log_special(x, k.mul_add(LOG10_2_HI, lm.mul_add(LOG10E, k * LOG10_2_LO)))
}

/// `log(1 + x)`: the logarithm of u = 1 + x (rounded) plus the first-order correction for the
/// rounding, (x - (u - 1)) / u, which carries all of x where u rounds to 1.
#[inline(always)]
pub fn log1p<const L: bool>(x: f64) -> f64 {
    let u = 1.0 + x;
    let c = (x - (u - 1.0)) / u;
    let (m, k) = frexp_sqrt2(u);
    let f = m - 1.0;
    let v = k.mul_add(LN2_HI, f + k.mul_add(LN2_LO, log_mantissa::<L>(f) + c));
    if x > -1.0 && x < f64::INFINITY {
        // -0.0 stays -0.0.
        if x == 0.0 {
            x
        } else {
            v
        }
    } else if x == -1.0 {
        f64::NEG_INFINITY
    } else if x == f64::INFINITY {
        x
    } else {
        f64::NAN
    }
}

/// `tanh(x) = -e / (e + 2)` with e = expm1(-2|x|), odd: no cancellation near 0, 1 far out.
/// expm1 is `expm1`'s near form on -2|x| clamped to [-40, 0] (tanh is 1 to the last float64 bit
/// from 20 on), where 2^n is one normal factor: no overflow path and no split scale, the same
/// values in fewer instructions (a loop of 39 rather than 50).
#[inline(always)]
pub fn tanh<const L: bool>(x: f64) -> f64 {
    let a = x.abs();
    // NaN fails the comparison and flows through.
    let y = if a > 20.0 { -40.0 } else { -2.0 * a };
    let n = (y * LOG2E).round_ties_even();
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, y));
    let q = (r * r).mul_add(poly(r, &terms::<L>(&EXP_TAYLOR, 10)[2..]), r);
    let s = f64::from_bits(((int_bits(n) + 1023) as u64) << 52);
    let e = q.mul_add(s, s - 1.0);
    (-e / (e + 2.0)).copysign(x)
}

/// `1 / (1 + exp(-x))`.
#[inline(always)]
pub fn sigmoid<const L: bool>(x: f64) -> f64 {
    1.0 / (1.0 + exp::<L>(-x))
}

/// `x sigmoid(x)`.
#[inline(always)]
pub fn silu<const L: bool>(x: f64) -> f64 {
    x / (1.0 + exp::<L>(-x))
}

/// `sinh(x) = (e + e / (e + 1)) / 2` with e = expm1(|x|), odd; exp(|x|/2)^2 / 2 where e would
/// overflow before the result does.
#[inline(always)]
pub fn sinh<const L: bool>(x: f64) -> f64 {
    let a = x.abs();
    let e = expm1::<L>(a);
    let near = 0.5 * (e + e / (e + 1.0));
    let w = exp::<L>(0.5 * a);
    let far = (0.5 * w) * w;
    (if a > 700.0 { far } else { near }).copysign(x)
}

/// `cosh(x) = (E + 1/E) / 2` with E = exp(|x|); exp(|x|/2)^2 / 2 far out.
#[inline(always)]
pub fn cosh<const L: bool>(x: f64) -> f64 {
    let a = x.abs();
    let e = exp::<L>(a);
    let near = 0.5 * e + 0.5 / e;
    let w = exp::<L>(0.5 * a);
    let far = (0.5 * w) * w;
    if a > 700.0 {
        far
    } else {
        near
    }
}

/// `asinh(x) = log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`, odd; log(|x|) + ln2 where x^2 would
/// not fit (taken as log1p(|x| - 1), exact enough there).
#[inline(always)]
pub fn asinh<const L: bool>(x: f64) -> f64 {
    let a = x.abs();
    let far = a > 268435456.0; // 2^28: 1 + x^2 is x^2 from here on
    let v = if far { a - 1.0 } else { a + a * a / (1.0 + (1.0 + a * a).sqrt()) };
    let r = log1p::<L>(v) + if far { std::f64::consts::LN_2 } else { 0.0 };
    r.copysign(x)
}

/// `acosh(x) = log1p(t + sqrt(t (t + 2)))` with t = x - 1 (exact near 1); log(x) + ln2 far out.
#[inline(always)]
pub fn acosh<const L: bool>(x: f64) -> f64 {
    let far = x > 268435456.0;
    let t = x - 1.0;
    let v = if far { t } else { t + (t * (t + 2.0)).sqrt() };
    let r = log1p::<L>(v) + if far { std::f64::consts::LN_2 } else { 0.0 };
    if x < 1.0 {
        f64::NAN
    } else {
        r
    }
}

/// `atanh(x) = log1p(2|x| / (1 - |x|)) / 2`, odd.
#[inline(always)]
pub fn atanh<const L: bool>(x: f64) -> f64 {
    let a = x.abs();
    (0.5 * log1p::<L>(2.0 * a / (1.0 - a))).copysign(x)
}

// erf on [0, 1]: erf(x) = x E(x^2), E fitted on z in [0, 1] (fit error 9.9e-13 short, 1.6e-19
// long, relative).
const ERF_SHORT: [f64; 9] = [
    1.1283791670946768,
    -0.3761263888963531,
    0.11283791308604582,
    -0.026866133235095593,
    0.005223783477189248,
    -0.0008542637997087229,
    0.0001195656256820733,
    -1.3909340021874599e-05,
    1.058938064107502e-06,
];
// Fitted coefficients: the first is close to 2/sqrt(pi) by nature, not a copy of it.
#[allow(clippy::approx_constant)]
pub(crate) const ERF_LONG: [f64; 13] = [
    1.1283791670955126,
    -0.3761263890318375,
    0.11283791670954879,
    -0.026866170645076792,
    0.0052239776248180145,
    -0.000854832698083379,
    0.0001205533111164271,
    -1.4925595266831182e-05,
    1.6461000484121368e-06,
    -1.6350312701054695e-07,
    1.4659775274047436e-08,
    -1.1372848856791674e-09,
    5.957176147748911e-11,
];
// erfc from 1 on: erfc(x) = exp(-x^2) t P(t) with t = 2 / (2 + x), P fitted on t for x in
// [1, 10.1] (short: erfc underflows float32 beyond; fit error 3.9e-12) and [1, 27.3] (long:
// the same for float64; 6.4e-19).
const ERFC_SHORT: [f64; 12] = [
    0.2820952705690874,
    0.2820780827500737,
    0.2470911036260933,
    0.17398570389762752,
    0.09720534194299138,
    -0.056498379239661285,
    0.07744794758721114,
    -0.26977402814997614,
    0.16572838667016895,
    0.09946572183015254,
    -0.14262429139036567,
    0.04385528136925888,
];
pub(crate) const ERFC_LONG: [f64; 22] = [
    0.2820947917738933,
    0.2820947917734829,
    0.24683294275618442,
    0.1763092483912974,
    0.08374676941456873,
    -0.004405072331952516,
    -0.056790474779332335,
    -0.05297377989841288,
    -0.007942197570242601,
    0.07850787517801522,
    -0.10549728423495255,
    0.6973581612356546,
    -2.5876980451911455,
    7.045232657149215,
    -15.944223186409443,
    28.218618013772453,
    -37.04191124100007,
    35.18010706988711,
    -23.582391904330034,
    10.637641188323382,
    -2.9114748631411476,
    0.36676746872989147,
];

/// erf(a) for a in [0, 1].
#[inline(always)]
fn erf_small<const L: bool>(a: f64) -> f64 {
    let z = a * a;
    if L {
        a * poly(z, &ERF_SHORT)
    } else {
        a * poly(z, &ERF_LONG)
    }
}

/// erfc(a) for a >= 1 (0 from 27.3 on; NaN stays NaN).
#[inline(always)]
fn erfc_large<const L: bool>(a: f64) -> f64 {
    erfc_large_gauss::<L>(a).0
}

/// `erfc_large` with the e^(-a^2) it computes (0 where erfc is, past the clamp), for any
/// a >= 0: from the exact square's two words, exp(-hi) (1 - lo).
#[inline(always)]
fn erfc_large_gauss<const L: bool>(a: f64) -> (f64, f64) {
    // Float32 results: 0 from 10.6 on (gelu's left tail x erfc(-x/sqrt2)/2 too), so e^(-a^2)
    // stays normal: one power of 2 (`exp_normal`). t is one float64 division: a float32
    // quotient refined once had more throughput but a longer dependency chain, and these loops
    // are bound by their chains (one iteration a vector): erfc and gelu ran 9-12% slower so.
    let top = if L { 10.6 } else { 27.5 };
    let ac = if a > top { top } else { a };
    let t = 2.0 / (2.0 + ac);
    let hi = ac * ac;
    let lo = ac.mul_add(ac, -hi);
    let e = if L { exp_normal::<L>(-hi) } else { exp::<L>(-hi) } * (1.0 - lo);
    let p = if L { poly(t, &ERFC_SHORT) } else { poly(t, &ERFC_LONG) };
    let v = e * t * p;
    if a > top {
        (0.0, 0.0)
    } else {
        (v, e)
    }
}

/// The error function, odd.
#[inline(always)]
pub fn erf<const L: bool>(x: f64) -> f64 {
    let a = x.abs();
    let v = if a < 1.0 { erf_small::<L>(a) } else { 1.0 - erfc_large::<L>(a) };
    v.copysign(x)
}

/// The complementary error function, relative accuracy kept far into the right tail.
#[inline(always)]
pub fn erfc<const L: bool>(x: f64) -> f64 {
    erfc_gauss::<L>(x).0
}

/// `erfc(x)` and e^(-x^2) (0 where it is below what the results can hold: gelu's slope takes
/// its density term from it rather than from a second exp).
#[inline(always)]
pub fn erfc_gauss<const L: bool>(x: f64) -> (f64, f64) {
    let a = x.abs();
    let (tail, gauss) = erfc_large_gauss::<L>(a);
    let small = erf_small::<L>(a);
    let pos = if a < 1.0 { 1.0 - small } else { tail };
    let neg = if a < 1.0 { 1.0 + small } else { 2.0 - tail };
    (if x < 0.0 { neg } else { pos }, gauss)
}

/// `gelu(x) = x Φ(x) = x erfc(-x / sqrt 2) / 2`: erfc rather than 1 + erf, so the left tail keeps
/// its digits.
#[inline(always)]
pub fn gelu<const L: bool>(x: f64) -> f64 {
    0.5 * x * erfc::<L>(-x * std::f64::consts::FRAC_1_SQRT_2)
}

/// gelu'(x) = Φ(x) + x φ(x) (Φ as erfc(-x/√2)/2, keeping the left tail's digits).
#[inline(always)]
pub fn gelu_slope<const L: bool>(x: f64) -> f64 {
    const FRAC_1_SQRT_2PI: f64 = 0.3989422804014327; // 1/sqrt(2 pi)
                                                     // e^(-u^2) at u = -x / sqrt 2 is the density's e^(-x^2 / 2): erfc's own, not a second exp.
    let (c, gauss) = erfc_gauss::<L>(-x * std::f64::consts::FRAC_1_SQRT_2);
    0.5 * c + x * FRAC_1_SQRT_2PI * gauss
}

/// `gelu(x, approximate='tanh') = x (1 + tanh(u)) / 2 = x sigmoid(2u)`,
/// u = sqrt(2/pi) (x + 0.044715 x^3).
#[inline(always)]
pub fn gelu_tanh<const L: bool>(x: f64) -> f64 {
    const K: f64 = 0.7978845608028654; // sqrt(2/pi)
    let u = K * x.mul_add(0.044715 * x * x, x);
    x / (1.0 + exp::<L>(-2.0 * u))
}

/// `mish(x) = x tanh(log1p(exp(x))) = x n / (n + 2)` with n = e^x (e^x + 2); x itself where the
/// factor is 1 to the last bit (n would overflow). -inf gives NaN (-inf * 0), as the formula.
#[inline(always)]
pub fn mish<const L: bool>(x: f64) -> f64 {
    let e = exp::<L>(x);
    let n = e * (e + 2.0);
    if x > 20.0 {
        x
    } else {
        x * (n / (n + 2.0))
    }
}

/// log1p(y)/y in powers of y - 1/2 on y in [0, 1] (a least-squares fit on Chebyshev nodes
/// against mpmath, degree 13: 2^-38 relative), for float32 results.
const LOG1P_UNIT: [f64; 14] = [
    0.8109302162187563,
    -0.2885270991110095,
    0.13260975281017268,
    -0.06768864158013009,
    0.0366119143213062,
    -0.020548885881885075,
    0.011832377384599486,
    -0.006944007275575304,
    0.004152005679040259,
    -0.002505109375597783,
    0.0014257636000267716,
    -0.0008618892302917644,
    0.0008159025212134494,
    -0.0005209280078050014,
];

/// `log1p(y)` for y = exp(-|x|) in [0, 1] (NaN stays NaN), float32 results: y P(y - 1/2), with
/// no division and no split of y into exponent and mantissa (`log1p` has both, twice the time).
#[inline(always)]
fn log1p_unit(y: f64) -> f64 {
    y * poly(y - 0.5, &LOG1P_UNIT)
}

/// `log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))`: no overflow either way.
#[inline(always)]
pub fn log_sigmoid<const L: bool>(x: f64) -> f64 {
    let y = exp::<L>(-x.abs());
    (if x < 0.0 { x } else { 0.0 }) - if L { log1p_unit(y) } else { log1p::<L>(y) }
}

/// `log1p(exp(x))` (softplus's body; the linear part past its threshold is the caller's): for
/// float32 results max(x, 0) + log1p(exp(-|x|)) (the two terms of one sign: no cancellation).
#[inline(always)]
pub fn log1p_exp<const L: bool>(x: f64) -> f64 {
    if L {
        (if x > 0.0 { x } else { 0.0 }) + log1p_unit(exp::<L>(-x.abs()))
    } else {
        log1p::<L>(exp::<L>(x))
    }
}

/// `atanh(x) = log1p(2|x| / (1 - |x|)) / 2`, odd: no digits lost near 0 or near ±1.
pub fn atanh64(x: f64) -> f64 {
    let a = x.abs();
    (0.5 * (2.0 * a / (1.0 - a)).ln_1p()).copysign(x)
}

/// `asinh(x) = log1p(|x| + x² / (1 + sqrt(1 + x²)))`, odd; `log(2|x|)` where x² would not fit.
pub fn asinh64(x: f64) -> f64 {
    let a = x.abs();
    let r = if a < 268435456.0 { (a + a * a / (1.0 + (1.0 + a * a).sqrt())).ln_1p() } else { a.ln() + std::f64::consts::LN_2 };
    r.copysign(x)
}

/// `acosh(x) = log1p(t + sqrt(t (t + 2)))` with `t = x - 1` (exact near 1); `log(2x)` far out.
pub fn acosh64(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else if x < 268435456.0 {
        let t = x - 1.0;
        (t + (t * (t + 2.0)).sqrt()).ln_1p()
    } else {
        x.ln() + std::f64::consts::LN_2
    }
}

/// The functions above as methods of the float32 and float64 elements, for the kernels of the
/// op tables: float32 takes the short polynomials on the widened input and rounds once.
pub trait VecMath: Copy {
    fn v_exp(self) -> Self;
    fn v_exp2(self) -> Self;
    fn v_log(self) -> Self;
    fn v_log2(self) -> Self;
    fn v_log10(self) -> Self;
    fn v_log1p(self) -> Self;
    fn v_expm1(self) -> Self;
    fn v_tanh(self) -> Self;
    fn v_sinh(self) -> Self;
    fn v_cosh(self) -> Self;
    fn v_asinh(self) -> Self;
    fn v_acosh(self) -> Self;
    fn v_atanh(self) -> Self;
    fn v_sin(self) -> Self;
    fn v_cos(self) -> Self;
    fn v_tan(self) -> Self;
    fn v_asin(self) -> Self;
    fn v_acos(self) -> Self;
    fn v_atan(self) -> Self;
    fn v_atan2(self, x: Self) -> Self;
    fn v_erf(self) -> Self;
    fn v_erfc(self) -> Self;
    fn v_gelu(self) -> Self;
    fn v_gelu_tanh(self) -> Self;
    fn v_mish(self) -> Self;
    fn v_log1p_exp(self) -> Self;
    fn v_sigmoid(self) -> Self;
    fn v_silu(self) -> Self;
    fn v_log_sigmoid(self) -> Self;
}

// Float32: the functions before the `;` on the widened input, rounded once (within 0.51 ulp);
// those after it on float32 lanes (`vecmath_f32`, `vecmath_f32erf`, `vecmath_f32log`, `vecmath_f32trig`: twice
// the lanes, never less accurate than PyTorch's own float32 results). See the tests.
macro_rules! float32_methods {
    ($($m:ident => $f:ident),*; $($m32:ident => $f32:path),*) => {
        impl VecMath for f32 {
            $(
                #[inline(always)]
                fn $m(self) -> Self {
                    $f::<true>(self as f64) as f32
                }
            )*
            $(
                #[inline(always)]
                fn $m32(self) -> Self {
                    $f32(self)
                }
            )*
            #[inline(always)]
            fn v_atan2(self, x: Self) -> Self {
                atan2::<true>(self as f64, x as f64) as f32
            }
        }
    };
}
float32_methods!(v_tanh => tanh,
      v_sinh => sinh, v_cosh => cosh, v_asinh => asinh, v_acosh => acosh, v_sin => sin,
      v_cos => cos, v_tan => tan, v_atan => atan, v_erfc => erfc,
      v_gelu => gelu, v_gelu_tanh => gelu_tanh, v_mish => mish, v_log1p_exp => log1p_exp,
      v_log_sigmoid => log_sigmoid;
      v_erf => f32erf::erf,
      v_exp => f32exp::exp, v_exp2 => f32exp::exp2, v_expm1 => f32exp::expm1, v_sigmoid => f32exp::sigmoid, v_silu => f32exp::silu,
      v_log => f32log::log_f32, v_log2 => f32log::log2_f32, v_log10 => f32log::log10_f32, v_log1p => f32log::log1p_f32,
      v_asin => f32trig::asin, v_acos => f32trig::acos, v_atanh => f32trig::atanh);

// Float64: the C library's functions and PyTorch's formulas on them. PyTorch's float64 results
// are correctly rounded or nearly (0.50-0.70 ulp on tests/fixtures/vecmath.json's samples); the
// long forms above measure 0.5-3 ulp, so float64 kernels keep the library until they match.
// Gelu takes the formulas that keep the left tail (PyTorch's lose it to cancellation).
impl VecMath for f64 {
    #[inline(always)]
    fn v_exp(self) -> Self {
        self.exp()
    }
    #[inline(always)]
    fn v_exp2(self) -> Self {
        self.exp2()
    }
    #[inline(always)]
    fn v_log(self) -> Self {
        self.ln()
    }
    #[inline(always)]
    fn v_log2(self) -> Self {
        self.log2()
    }
    #[inline(always)]
    fn v_log10(self) -> Self {
        self.log10()
    }
    #[inline(always)]
    fn v_log1p(self) -> Self {
        self.ln_1p()
    }
    #[inline(always)]
    fn v_expm1(self) -> Self {
        self.exp_m1()
    }
    #[inline(always)]
    fn v_tanh(self) -> Self {
        self.tanh()
    }
    #[inline(always)]
    fn v_sinh(self) -> Self {
        self.sinh()
    }
    #[inline(always)]
    fn v_cosh(self) -> Self {
        self.cosh()
    }
    #[inline(always)]
    fn v_asinh(self) -> Self {
        asinh64(self)
    }
    #[inline(always)]
    fn v_acosh(self) -> Self {
        acosh64(self)
    }
    #[inline(always)]
    fn v_atanh(self) -> Self {
        atanh64(self)
    }
    #[inline(always)]
    fn v_sin(self) -> Self {
        self.sin()
    }
    #[inline(always)]
    fn v_cos(self) -> Self {
        self.cos()
    }
    #[inline(always)]
    fn v_tan(self) -> Self {
        self.tan()
    }
    #[inline(always)]
    fn v_asin(self) -> Self {
        self.asin()
    }
    #[inline(always)]
    fn v_acos(self) -> Self {
        self.acos()
    }
    #[inline(always)]
    fn v_atan(self) -> Self {
        self.atan()
    }
    #[inline(always)]
    fn v_atan2(self, x: Self) -> Self {
        self.atan2(x)
    }
    #[inline(always)]
    fn v_erf(self) -> Self {
        libm::erf(self)
    }
    #[inline(always)]
    fn v_erfc(self) -> Self {
        libm::erfc(self)
    }
    #[inline(always)]
    fn v_gelu(self) -> Self {
        0.5 * self * libm::erfc(-self * std::f64::consts::FRAC_1_SQRT_2)
    }
    #[inline(always)]
    fn v_gelu_tanh(self) -> Self {
        let u = 0.7978845608028654 * self.mul_add(0.044715 * self * self, self);
        self / (1.0 + (-2.0 * u).exp())
    }
    #[inline(always)]
    fn v_mish(self) -> Self {
        self * self.exp().ln_1p().tanh()
    }
    #[inline(always)]
    fn v_log1p_exp(self) -> Self {
        self.exp().ln_1p()
    }
    #[inline(always)]
    fn v_sigmoid(self) -> Self {
        1.0 / (1.0 + (-self).exp())
    }
    #[inline(always)]
    fn v_silu(self) -> Self {
        self / (1.0 + (-self).exp())
    }
    #[inline(always)]
    fn v_log_sigmoid(self) -> Self {
        (if self < 0.0 { self } else { 0.0 }) - (-self.abs()).exp().ln_1p()
    }
}

/// atan2 of any element type (the binary table's kernel is generic): float32 and float64 take
/// the vectorised function, others the C library's (float64's, see `VecMath for f64`).
#[inline(always)]
pub fn atan2_elem<T: crate::dtype::Element>(y: T, x: T) -> T {
    let l = T::DTYPE == crate::dtype::DType::F32;
    if l {
        T::from_f64(atan2::<true>(y.to_f64(), x.to_f64()))
    } else {
        T::from_f64(y.to_f64().atan2(x.to_f64()))
    }
}

#[cfg(test)]
#[path = "vecmath_tests.rs"]
mod tests;
