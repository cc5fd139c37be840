//! Fast special functions for the unary kernels: the inverse error function and float32 ndtri,
//! branch-free for the vectorised loops (see `vecmath`; it computes in float64, `L = true` for
//! float32 results, short polynomials inside, `L = false` for float64), and trigamma for positive
//! arguments without the Hurwitz zeta function's powers. Float32 erfinv is a fit of its own
//! (`special_f32_tables`, tools/fit_special_f32.py), rounded once from float64.

use crate::cpu::special_f32_tables::{ERFINV_CENTRAL, ERFINV_TAIL, NDTRI_FAR};
use crate::cpu::vecmath::{erfc, exp, log, ERF_LONG};
use crate::cpu::vecmath_core::poly;
use crate::dtype::{DType, Element};

// First guesses for erfinv(a) / a as polynomials: Giles' float32 approximation ("Approximating
// the erfinv function", GPU Computing Gems, 2011) in w - 2.5 for w < 5 and in sqrt(w) - 3 up
// to w = 16 (relative error below 1.2e-7), w = -log((1 - a)(1 + a)); beyond, where Giles'
// second polynomial drifts (10% at the last float64 below 1), a Chebyshev fit made for this
// module with mpmath in s = sqrt(w) on [3.9, 6.1] (relative error 1.5e-9).
const GUESS_CENTRAL: [f64; 9] = [
    1.50140941,
    0.246640727,
    -0.00417768164,
    -0.00125372503,
    0.00021858087,
    -4.39150654e-06,
    -3.5233877e-06,
    3.43273939e-07,
    2.81022636e-08,
];
const GUESS_TAIL: [f64; 9] =
    [2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257];
const GUESS_FAR: [f64; 9] = [
    0.2382870799593931,
    0.4510902725589777,
    0.32032317276390376,
    -0.10811693594731875,
    0.0234429300800906,
    -0.0033242636176514114,
    0.0002992538523752144,
    -1.5566527486952948e-05,
    3.570986358555196e-07,
];
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;
/// sqrt(pi)/2 in two words (mpmath), and 2^-1000, below which it is erfinv's slope to the last bit.
const SQRT_PI_2_HI: f64 = 0.886226925452758;
const SQRT_PI_2_LO: f64 = -3.8332932499128993e-17;
const TINY: f64 = 9.332636185032189e-302;
/// 2/sqrt(pi) - ERF_LONG[0], the fit's leading coefficient's rounding (mpmath).
const C0_LO: f64 = 1.533545961316588e-17;

/// `erfinv(y)`: the guess above (relative error e below 1.2e-7), then one Halley step on
/// erf(x) = a, whose error is of order e^3 (below 1e-20): what remains is the residual's
/// rounding. The residual is erf(x) - a in extra precision below x = 1 (`erf_minus`) and
/// (1 - a) - erfc(x) from there, where 1 - a is exact and erfc keeps relative digits, so that results near ±1 keep theirs (erf(x) - a
/// would leave none). ±inf at ±1, NaN beyond and at NaN, -0.0 at -0.0.
#[inline(always)]
pub fn erfinv<const L: bool>(y: f64) -> f64 {
    let a = y.abs();
    // x0 is 0 at 0 (u too): the sign comes back from y, -0.0 included.
    erfinv_abs::<L>(a, 1.0 - a).copysign(y)
}

/// erfinv(a) for a >= 0 given with t = 1 - a exact, the body of `erfinv`.
#[inline(always)]
fn erfinv_abs<const L: bool>(a: f64, t: f64) -> f64 {
    // (1 - a)(1 + a) rather than 1 - a^2: no cancellation near 1. At a = 1 the log is -inf and
    // every guess infinite or NaN; the selects at the end give the result there.
    let w = -log::<true>(t * (1.0 + a));
    let s = w.sqrt();
    let central = poly(w - 2.5, &GUESS_CENTRAL);
    let tail = poly(s - 3.0, &GUESS_TAIL);
    let far = poly(s, &GUESS_FAR);
    let x0 = a * if w < 5.0 {
        central
    } else if w < 16.0 {
        tail
    } else {
        far
    };
    let r = if x0 < 1.0 { erf_minus(x0, a) } else { t - erfc::<L>(x0) };
    // Halley's step for f(x) = erf(x) - a: f'' = -2x f', so x - u / (1 + x u) with u = f / f'.
    let u = r / (TWO_OVER_SQRT_PI * exp::<L>(-x0 * x0));
    let x = x0 - u / x0.mul_add(u, 1.0);
    // Far below 1 erfinv(y) = y sqrt(pi)/2 (1 + pi y^2/12 + ...): the product with the constant's
    // two words, which keeps the subnormal results that the step above would round twice.
    let tiny = a.mul_add(SQRT_PI_2_HI, a * SQRT_PI_2_LO);
    // t > 0 is a < 1, t == 0 is a == 1 (and NaN fails every test).
    if a < TINY {
        tiny
    } else if t > 0.0 {
        x
    } else if t == 0.0 {
        f64::INFINITY
    } else {
        f64::NAN
    }
}

/// The standard normal quantile of a float32 p, `sqrt(2) erfinv(2p - 1)`, with erfinv's a and
/// t = 1 - a both exact: 2p - 1 and 2 - 2p above 1/2, 1 - 2p and 2p below. As `erfinv_f32`: a
/// times the fit of erfinv(a)/a in w = -ln(t (1 + a)), whose third piece (`NDTRI_FAR`, s = sqrt(w)
/// from 4) reaches the last subnormal p (s = 10.1), with no step on erfc after it (the guess and
/// Halley step of `erfinv_abs` took 26 ms a million, this a fifth of it). -inf at 0, inf at 1,
/// NaN outside.
#[inline(always)]
pub(crate) fn ndtri_f32(p: f64) -> f64 {
    let lower = p < 0.5;
    let (a, t) = if lower { (1.0 - 2.0 * p, 2.0 * p) } else { (2.0 * p - 1.0, 2.0 - 2.0 * p) };
    let v = std::f64::consts::SQRT_2 * a * erfinv_over_a::<true>(-log::<false>(t * (1.0 + a)));
    // t > 0 inside (0, 1), t == 0 at 0 and 1; t < 0 beyond and NaN fail both.
    let r = if t > 0.0 {
        v
    } else if t == 0.0 {
        f64::INFINITY
    } else {
        f64::NAN
    };
    if lower {
        -r
    } else {
        r
    }
}

/// `erf(x) - a` for x in [0, 1) and a within 1e-7 of erf(x), in more than float64's precision:
/// erf(x) = x P(x^2) (`vecmath`'s float64 polynomial) with P's leading term and the products
/// carried in two words, so that the difference, which cancels all but the last digits, keeps
/// them (a rounded erf would leave up to 1.4 ulp in erfinv, 0.94 with only c0's step compensated;
/// this leaves 0.68, measured on tests/fixtures/vecspecial.json).
#[inline(always)]
fn erf_minus(x: f64, a: f64) -> f64 {
    let z = x * x;
    let z_lo = x.mul_add(x, -z);
    // The last two Horner steps keep their rounding errors: c1 - q and c0 - p are exact (q is
    // within a factor of 2 of c1, p of c0). C0_LO is 2/sqrt(pi) - c0.
    let q2 = poly(z, &ERF_LONG[2..]);
    let q = z.mul_add(q2, ERF_LONG[1]);
    let q_lo = z.mul_add(q2, ERF_LONG[1] - q);
    let p = z.mul_add(q, ERF_LONG[0]);
    let p_lo = z.mul_add(q, ERF_LONG[0] - p) + z_lo.mul_add(q, z.mul_add(q_lo, C0_LO));
    let hi = x * p;
    let lo = x.mul_add(p, -hi) + x * p_lo;
    // hi is within 1e-7 of a: the difference is exact.
    (hi - a) + lo
}

/// erfinv(a) / a at w = -ln((1 - a)(1 + a)) from the float32 fits (`special_f32_tables`): in w
/// below 5, in sqrt(w) from 5 to 16 (a float32 a below 1 has w < 15.95), and with `FAR` (ndtri,
/// whose 1 - a reaches 2.8e-45) in sqrt(w) from 16 to 105. Each piece is evaluated and one
/// selected (no table: a gather left the loop scalar).
#[inline(always)]
fn erfinv_over_a<const FAR: bool>(w: f64) -> f64 {
    let s = w.sqrt();
    let central = erfinv_central(w);
    // sqrt(w) in [sqrt(5), 4] mapped onto [-1, 1], and [4, 10.25] for the far piece.
    let tail = poly((s - 3.118_033_988_749_895) * (1.0 / 0.881_966_011_250_105_1), &ERFINV_TAIL);
    if w < 5.0 {
        central
    } else if !FAR || w < 16.0 {
        tail
    } else {
        poly((s - 7.125) * (1.0 / 3.125), &NDTRI_FAR)
    }
}

/// The central piece of `erfinv_over_a`, w < 5.
#[inline(always)]
fn erfinv_central(w: f64) -> f64 {
    poly(0.4f64.mul_add(w, -1.0), &ERFINV_CENTRAL)
}

/// Where every float32 |y| is at most this, w < 3.92 and `erfinv_f32` takes its central piece:
/// `erfinv_f32_central` gives the same bits without the tail's square root and polynomial.
pub const ERFINV_CENTRAL_LIMIT: f32 = 0.99;

/// `erfinv_f32(y)` for |y| <= `ERFINV_CENTRAL_LIMIT` (the same operations on the piece selected there).
#[inline(always)]
pub fn erfinv_f32_central(y: f64) -> f64 {
    let a = y.abs();
    (a * erfinv_central(-log::<true>((1.0 - a) * (1.0 + a)))).copysign(y)
}

/// `erfinv` of a float32 value: a times a fit of erfinv(a)/a in w = -ln((1 - a)(1 + a)) below 5
/// and in sqrt(w) from 5 to 16 (`special_f32_tables`, relative error near 1e-11), where a float32
/// a below 1 has w < 15.95: no step on erf is needed before the one rounding to float32. Both
/// polynomials are evaluated and one selected (no table: a gather left the loop scalar). ±inf at
/// ±1, NaN beyond and at NaN, -0.0 at -0.0.
#[inline(always)]
pub fn erfinv_f32(y: f64) -> f64 {
    let a = y.abs();
    // 1 - a is exact; w's absolute error moves the result by about as much: the float32 log
    // (2^-34 relative, its short series) leaves the result within 2^-30 before its rounding.
    let v = a * erfinv_over_a::<false>(-log::<true>((1.0 - a) * (1.0 + a)));
    let r = if a < 1.0 {
        v
    } else if a == 1.0 {
        f64::INFINITY
    } else {
        f64::NAN
    };
    r.copysign(y)
}

/// erfinv of a float32 or float64 element (the op table's kernel is generic over the element).
#[inline(always)]
pub fn erfinv_elem<T: Element>(y: T) -> T {
    if T::DTYPE == DType::F32 {
        T::from_f64(erfinv_f32(y.to_f64()))
    } else {
        T::from_f64(erfinv::<false>(y.to_f64()))
    }
}

// B2k, the Bernoulli numbers, for trigamma's asymptotic series from k = 1 to 8.
pub(crate) const BERNOULLI: [f64; 8] =
    [1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0, -3617.0 / 510.0];

/// `trigamma(x) = polygamma(1, x)` for x > 0: the recurrence psi1(x) = psi1(x + 1) + 1/x^2 up to
/// 12, then psi1(x) ~ 1/x + 1/(2x^2) + sum B2k / x^(2k+1), whose first omitted term is below
/// 2e-18 of the result from 12 on. All terms are positive but the series' small tail: no digits
/// cancel. (polygamma's general path sums the Hurwitz zeta function with a power per term.)
pub fn trigamma_positive(x: f64) -> f64 {
    let (mut x, mut acc) = (x, 0.0);
    while x < 12.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let r = 1.0 / x;
    let z = r * r;
    acc + (r + 0.5 * z + r * z * poly(z, &BERNOULLI))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfinv_inverts_erf() {
        // Away from 0 the residual's rounding bounds the error: a few ulp of the result.
        for y in [-0.999999, -0.3, 1e-10, 1e-300, 0.5, 0.9, 0.99999999, 1.0 - 1e-15] {
            let x = erfinv::<false>(y);
            let back = if y < 0.5 { libm::erf(x) } else { 1.0 - libm::erfc(x) };
            assert!((back - y).abs() <= 4.0 * f64::EPSILON * y.abs(), "{y}: {x}");
        }
        assert_eq!(erfinv::<false>(1.0), f64::INFINITY);
        assert_eq!(erfinv::<false>(-1.0), f64::NEG_INFINITY);
        assert!(erfinv::<false>(1.5).is_nan() && erfinv::<false>(f64::NAN).is_nan());
        assert!(erfinv::<false>(-0.0).is_sign_negative() && erfinv::<false>(-0.0) == 0.0);
        // Near 1 the digits come from 1 - y: erfinv(1 - 2^-53) = 5.8636..., relative 1e-15.
        let x = erfinv::<false>(1.0 - f64::EPSILON / 2.0);
        assert!((x - 5.863_584_748_755_167).abs() < 1e-14, "{x}");
    }

    #[test]
    fn erfinv_f32_matches_float64() {
        // Float32 arguments across every piece of the fit, up to the last float32 below 1: relative
        // error below 1e-10 against the float64 path (a few 1e-16).
        let mut y = 1e-30f32;
        while y < 1.0 {
            for v in [y, -y] {
                let (fast, slow) = (erfinv_f32(v as f64), erfinv::<false>(v as f64));
                assert!((fast - slow).abs() <= 1e-10 * slow.abs(), "{v}: {fast} vs {slow}");
            }
            y = if y < 0.5 { y * 1.01 } else { f32::from_bits(y.to_bits() + 97) };
        }
        let last = erfinv_f32(f32::from_bits(1.0f32.to_bits() - 1) as f64);
        assert!((last - erfinv::<false>(f32::from_bits(1.0f32.to_bits() - 1) as f64)).abs() < 1e-10 * last);
        assert_eq!(erfinv_f32(1.0), f64::INFINITY);
        assert_eq!(erfinv_f32(-1.0), f64::NEG_INFINITY);
        assert!(erfinv_f32(1.5).is_nan() && erfinv_f32(f64::NAN).is_nan() && erfinv_f32(f64::INFINITY).is_nan());
        assert!(erfinv_f32(-0.0).is_sign_negative() && erfinv_f32(-0.0) == 0.0);
    }

    #[test]
    fn erfinv_central_gives_the_general_bits() {
        let mut bits = 0u32;
        while f32::from_bits(bits) <= ERFINV_CENTRAL_LIMIT {
            for y in [f32::from_bits(bits) as f64, -f32::from_bits(bits) as f64] {
                assert_eq!(erfinv_f32_central(y).to_bits(), erfinv_f32(y).to_bits(), "{y}");
            }
            bits += 97;
        }
    }

    #[test]
    fn trigamma_known_values() {
        // pi^2/6, pi^2/2 (at 1/2), and psi1(1e-8) = 1e16 + pi^2/6 - 2 zeta(3) 1e-8.
        let close = |a: f64, b: f64| (a - b).abs() <= 4.0 * f64::EPSILON * b.abs();
        assert!(close(trigamma_positive(1.0), std::f64::consts::PI.powi(2) / 6.0));
        assert!(close(trigamma_positive(0.5), std::f64::consts::PI.powi(2) / 2.0));
        assert!(close(trigamma_positive(1e-8), 1e16 + 1.6449340668482264));
        assert!(close(trigamma_positive(30.0), 0.033_895_060_357_739_94), "{}", trigamma_positive(30.0));
    }
}
