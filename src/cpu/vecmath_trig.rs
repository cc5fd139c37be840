//! The circular functions of `vecmath` (same conventions: float64 arithmetic, `L` for a
//! float32 result). The coefficients are Chebyshev fits made for this module with mpmath.

use crate::cpu::vecmath_core::{int_bits, pi_minus, pio2_minus, poly, PIO2_HI, PIO2_LO};

/// 2/π in ten chunks of 24 bits (each exactly a float64): x c_k is exact for a float32 x.
const TWO_OVER_PI_CHUNKS: [f64; 10] = [
    0.6366197466850281,
    2.5682552973194106e-08,
    2.937095214933759e-16,
    3.2543794001732456e-23,
    1.2089613708828537e-29,
    5.667556795740071e-37,
    2.6204031112097215e-44,
    7.053957680880629e-52,
    1.582624282116559e-58,
    6.375014128012717e-66,
];

// (sin r - r) / r^3 and (cos r - 1) / r^2 as polynomials in z = r^2 on |r| <= π/4 (fit errors
// 1.7e-13 and 7.2e-13 relative: float32 results).
const SIN_SHORT: [f64; 5] =
    [-0.16666666666663885, 0.008333333331078323, -0.00019841266916110632, 2.7555990664728974e-06, -2.4805611712122475e-08];
const COS_SHORT: [f64; 5] =
    [-0.49999999999963873, 0.041666666637384386, -0.0013888885090262895, 2.4799861846361453e-05, -2.7237108576245085e-07];

// (atan t - t) / t^3 in z = t^2 on |t| <= 1/4 (fit errors 1.3e-10 and 5.7e-20).
const ATAN_SHORT: [f64; 5] = [-0.3333333332078392, 0.1999998994961943, -0.14284420536149103, 0.11052421720115628, -0.0798742744401738];
const ATAN_LONG: [f64; 10] = [
    -0.3333333333333333,
    0.19999999999999982,
    -0.14285714285704648,
    0.11111111109132153,
    -0.0909090888420049,
    0.07692295263634524,
    -0.06666210203297757,
    0.05871917647375624,
    -0.05117354078010482,
    0.03602305043853311,
];
// (asin w - w) / w^3 in z = w^2 on |w| <= 1/2 (fit errors 2.5e-10 and 9.8e-19).
const ASIN_SHORT: [f64; 7] = [
    0.16666666686085643,
    0.07499992404401838,
    0.04464766388813485,
    0.030269138728589183,
    0.023611817008891752,
    0.010574415516912909,
    0.030974540371355073,
];
const ASIN_LONG: [f64; 14] = [
    0.16666666666666666,
    0.07500000000000118,
    0.044642857142551895,
    0.03038194447553234,
    0.02237215744350722,
    0.017352816540325496,
    0.01396378001220357,
    0.011566459612121669,
    0.009621842970100282,
    0.009319560794767446,
    0.0030448799094556773,
    0.019554513336123378,
    -0.01924167174674304,
    0.02961201126495512,
];

/// `x` (a float32 value) as r + q π/2 with |r| <= π/4 (about), whatever its size: x (2/π) mod 4
/// summed exactly chunk by chunk (each x c_k is exact, and so is its remainder mod 4 once it is
/// rounded to a multiple of 4), the sum carried in two words, so that no digit of x is lost
/// however close x lies to a multiple of π/2 (the reduction of Payne and Hanek, written without
/// integer tables).
#[inline(always)]
pub(crate) fn reduce_f32(x: f64) -> (f64, i64) {
    let (mut s, mut e) = (0.0f64, 0.0f64);
    for c in TWO_OVER_PI_CHUNKS {
        let p = x * c;
        let f = (-4.0f64).mul_add((p * 0.25).round_ties_even(), p);
        // Knuth's two-sum: s + f = t + err exactly.
        let t = s + f;
        let bp = t - s;
        e += (s - (t - bp)) + (f - bp);
        s = t;
    }
    let n = s.round_ties_even();
    (((s - n) + e) * PIO2_HI, int_bits(n))
}

/// The largest |x| that `reduce_small` serves. For every float32 in [π/4, 2^24] its reduced
/// argument agrees with `reduce_f32`'s to 2.9e-16 relative, in the same quadrant (checked
/// exhaustively once; `small_reduction_agrees` below repeats it on a sample), while the
/// smallest |r| there is 4.2e-9: far above the error.
pub(crate) const SMALL_ARGUMENT: f32 = 16_777_216.0;

/// `x` as r + q π/2 for |x| <= `SMALL_ARGUMENT` (Cody and Waite's reduction): x - n π/2_hi is
/// exact, being a multiple of 2^-52 below 1 in magnitude, and n π/2_lo < 2^-30 carries the
/// rest. A tenth of `reduce_f32`'s work; NaN and ±inf give NaN, as they must.
#[inline(always)]
fn reduce_small(x: f64) -> (f64, i64) {
    let n = (x * std::f64::consts::FRAC_2_PI).round_ties_even();
    ((-n).mul_add(PIO2_HI, x) - n * PIO2_LO, int_bits(n))
}

/// `x` reduced by π/2 the exact way, or the cheap way when the caller knows |x| is small.
#[inline(always)]
pub(crate) fn reduce<const SMALL: bool>(x: f64) -> (f64, i64) {
    if SMALL {
        reduce_small(x)
    } else {
        reduce_f32(x)
    }
}

/// sin and cos of a reduced argument.
#[inline(always)]
fn sin_cos_reduced(r: f64) -> (f64, f64) {
    let z = r * r;
    ((r * z).mul_add(poly(z, &SIN_SHORT), r), z.mul_add(poly(z, &COS_SHORT), 1.0))
}

/// sin and cos of 2π u for u in [0, 1], to float32's needs (`SIN_SHORT`, `COS_SHORT`): 4u = q + f
/// exactly (q = round(4u), |f| <= 1/2), so the reduced argument f π/2 has no reduction error,
/// then q quarter turns as `cos_f32`'s quadrants. Branch-free: Box-Muller's angles
/// (`Rng::fill_normal`) vectorise.
#[inline(always)]
pub(crate) fn sin_cos_turns(u: f64) -> (f64, f64) {
    let v = 4.0 * u;
    let n = v.round_ties_even();
    let (s, c) = sin_cos_reduced((v - n) * std::f64::consts::FRAC_PI_2);
    let q = int_bits(n);
    let odd = q & 1 == 1;
    (negate_if(if odd { c } else { s }, q), negate_if(if odd { s } else { c }, q + 1))
}

/// `v` or `-v` by bit 1 of `q`.
#[inline(always)]
fn negate_if(v: f64, q: i64) -> f64 {
    f64::from_bits(v.to_bits() ^ (((q as u64) & 2) << 62))
}

/// Sine of a float32 value, reduced the cheap way when `SMALL` (see `SMALL_ARGUMENT`).
#[inline(always)]
pub fn sin_f32<const SMALL: bool>(x: f64) -> f64 {
    let (r, q) = reduce::<SMALL>(x);
    let (s, c) = sin_cos_reduced(r);
    let v = negate_if(if q & 1 == 1 { c } else { s }, q);
    // sin(-0.0) is -0.0 (the reduction returns +0.0).
    if x == 0.0 {
        x
    } else {
        v
    }
}

/// Cosine of a float32 value (see `sin_f32`).
#[inline(always)]
pub fn cos_f32<const SMALL: bool>(x: f64) -> f64 {
    let (r, q) = reduce::<SMALL>(x);
    let (s, c) = sin_cos_reduced(r);
    let q = q + 1;
    negate_if(if q & 1 == 1 { c } else { s }, q)
}

/// Tangent of a float32 value (see `sin_f32`): sin/cos of the reduced argument, -cos/sin in odd
/// quadrants.
#[inline(always)]
pub fn tan_f32<const SMALL: bool>(x: f64) -> f64 {
    let (r, q) = reduce::<SMALL>(x);
    let (s, c) = sin_cos_reduced(r);
    // One division for every lane (a select between two quotients would compute both).
    let odd = q & 1 == 1;
    let v = (if odd { -c } else { s }) / (if odd { s } else { c });
    if x == 0.0 {
        x
    } else {
        v
    }
}

/// Sine. Float32 results through the exact reduction above; float64 through the C library
/// (its huge arguments need the long reduction that this module has only for float32).
#[inline(always)]
pub fn sin<const L: bool>(x: f64) -> f64 {
    if L {
        sin_f32::<false>(x)
    } else {
        x.sin()
    }
}

/// Cosine (see `sin`).
#[inline(always)]
pub fn cos<const L: bool>(x: f64) -> f64 {
    if L {
        cos_f32::<false>(x)
    } else {
        x.cos()
    }
}

/// Tangent (see `sin`).
#[inline(always)]
pub fn tan<const L: bool>(x: f64) -> f64 {
    if L {
        tan_f32::<false>(x)
    } else {
        x.tan()
    }
}

/// Whether every float32 that the layout `l` can reach in `s` is within `SMALL_ARGUMENT` (NaN
/// and ±inf count as small: the cheap reduction gives them NaN too), so that a whole tensor
/// takes the cheap reduction. It scans the storage span the view covers, a superset of its
/// elements, and answers no for views spread over more than twice their size.
pub(crate) fn small_arguments(s: &[f32], l: &crate::layout::Layout) -> bool {
    let n = l.numel();
    if n == 0 {
        return false;
    }
    let last = l.shape.iter().zip(&l.strides).try_fold(l.offset, |end, (&d, &st)| end.checked_add((d - 1).checked_mul(st)?));
    let Some(span) = last.and_then(|end| s.get(l.offset..=end)) else {
        return false;
    };
    if span.len() / 2 > n {
        return false;
    }
    crate::cpu::simd::vectorized(
        #[inline(always)]
        || span.iter().fold(0u32, |big, &v| big | u32::from(v.abs() > SMALL_ARGUMENT && v.abs() != f32::INFINITY)) == 0,
    )
}

/// atan(a) for a >= 0 (inf and NaN included): a = c + the rest, atan a = atan c +
/// atan((a - c) / (1 + a c)) with c in {0, 1/2, 1, 2} chosen so that |t| <= 1/4, or
/// π/2 + atan(-1/a) from 4 on; a - c is exact on each interval.
#[inline(always)]
pub(crate) fn atan_core<const L: bool>(a: f64) -> f64 {
    let (c, hi, lo) = if a < 0.25 {
        (0.0, 0.0, 0.0)
    } else if a < 0.8 {
        (0.5, 0.4636476090008061, 2.2698777452961687e-17)
    } else if a < 1.6 {
        (1.0, std::f64::consts::FRAC_PI_4, 3.061616997868383e-17)
    } else if a < 4.0 {
        (2.0, 1.1071487177940904, 9.40447137356638e-17)
    } else {
        (f64::INFINITY, PIO2_HI, PIO2_LO)
    };
    let far = c == f64::INFINITY;
    let num = if far { -1.0 } else { a - c };
    let den = if far { a } else { a.mul_add(c, 1.0) };
    atan_series::<L>(num / den, hi, lo)
}

/// atan c + atan t for |t| <= 1/4, atan c given in two words.
#[inline(always)]
fn atan_series<const L: bool>(t: f64, hi: f64, lo: f64) -> f64 {
    let z = t * t;
    let p = if L { poly(z, &ATAN_SHORT) } else { poly(z, &ATAN_LONG) };
    hi + (t + (t * z).mul_add(p, lo))
}

/// Arc tangent, odd.
#[inline(always)]
pub fn atan<const L: bool>(x: f64) -> f64 {
    atan_core::<L>(x.abs()).copysign(x)
}

/// `atan2(y, x)`: atan of the smaller of |y|, |x| over the larger, reflected into the quadrant;
/// C's results at zeros and infinities.
#[inline(always)]
pub fn atan2<const L: bool>(y: f64, x: f64) -> f64 {
    let (ay, ax) = (y.abs(), x.abs());
    let swap = ay > ax;
    let (num, den) = if swap { (ax, ay) } else { (ay, ax) };
    // atan(num/den) = atan c + atan((num - c den) / (den + c num)), c in {0, 1/2, 1} chosen so
    // that the second quotient stays within 1/4: one division rather than num/den and then
    // atan_core's (the loop waits on each). num - c den is exact (c den is, and within the
    // chosen range the two are near enough).
    let zero = num == 0.0 && !den.is_nan();
    let (c, hi, lo): (f64, f64, f64) = if zero || num < 0.25 * den {
        (0.0, 0.0, 0.0)
    } else if num < 0.8 * den {
        (0.5, 0.4636476090008061, 2.2698777452961687e-17)
    } else {
        (1.0, std::f64::consts::FRAC_PI_4, 3.061616997868383e-17)
    };
    let t = (-c).mul_add(den, num) / c.mul_add(num, den);
    // Both infinite: π/4 (reflected); the smaller zero (both zero included) or finite against
    // an infinite larger (where c den would be 0 inf): 0 (reflected). A NaN fails every
    // comparison and stays.
    let t = if num == den || zero || (den == f64::INFINITY && num < den) { 0.0 } else { t };
    let v = atan_series::<L>(t, hi, lo);
    let v = if swap { pio2_minus(v) } else { v };
    let v = if x.is_sign_negative() { pi_minus(v) } else { v };
    v.copysign(y)
}

/// asin(w) for |w| <= 1/2.
#[inline(always)]
fn asin_core<const L: bool>(w: f64) -> f64 {
    let z = w * w;
    let p = if L { poly(z, &ASIN_SHORT) } else { poly(z, &ASIN_LONG) };
    (w * z).mul_add(p, w)
}

/// From |x| = a > 1/2 on, asin and acos go through w = sqrt((1 - a) / 2) <= 1/2
/// (asin a = π/2 - 2 asin w); the second word of the square root (its residual) keeps the
/// digits that 2 asin w would lose. Gives (asin_core of w or of `small`, whether a > 1/2).
#[inline(always)]
fn asin_reduced<const L: bool>(x: f64, small: f64) -> (f64, bool) {
    let a = x.abs();
    let far = a > 0.5;
    let v = (1.0 - a) * 0.5;
    let w = v.sqrt();
    let dw = if w > 0.0 { (-w).mul_add(w, v) / (2.0 * w) } else { 0.0 };
    let arg = if far { w } else { small };
    (asin_core::<L>(arg) + if far { dw } else { 0.0 }, far)
}

/// Arc sine, odd; NaN outside [-1, 1].
#[inline(always)]
pub fn asin<const L: bool>(x: f64) -> f64 {
    let (p, far) = asin_reduced::<L>(x, x.abs());
    (if far { pio2_minus(2.0 * p) } else { p }).copysign(x)
}

/// Arc cosine: π/2 - asin x near 0, 2 asin w (x > 1/2) and π - 2 asin w (x < -1/2) beyond.
#[inline(always)]
pub fn acos<const L: bool>(x: f64) -> f64 {
    let (p, far) = asin_reduced::<L>(x, x);
    let wide = if x > 0.0 { 2.0 * p } else { pi_minus(2.0 * p) };
    if far {
        wide
    } else {
        pio2_minus(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;

    /// The cheap reduction against the exact one on every 61st float32 of [π/4, 2^24] (the
    /// whole range agreed when `SMALL_ARGUMENT` was chosen): same quadrant, same r to 4e-16.
    #[test]
    fn small_reduction_agrees() {
        let (lo, hi) = (std::f32::consts::FRAC_PI_4.to_bits(), SMALL_ARGUMENT.to_bits());
        let mut worst = 0.0f64;
        for b in (lo..=hi).step_by(61).chain([hi]) {
            for x in [f32::from_bits(b) as f64, -(f32::from_bits(b) as f64)] {
                let ((re, qe), (rs, qs)) = (reduce_f32(x), reduce_small(x));
                assert_eq!(qe & 3, qs & 3, "quadrant of {x}");
                worst = worst.max(((rs - re) / re).abs());
            }
        }
        assert!(worst < 4e-16, "relative difference {worst:e}");
    }

    #[test]
    fn small_reduction_special_values() {
        for f in [sin_f32::<true>, cos_f32::<true>, tan_f32::<true>] {
            assert!(f(f64::NAN).is_nan() && f(f64::INFINITY).is_nan() && f(f64::NEG_INFINITY).is_nan());
        }
        assert!(sin_f32::<true>(-0.0).is_sign_negative() && tan_f32::<true>(-0.0).is_sign_negative());
        assert_eq!(cos_f32::<true>(-0.0), 1.0);
    }

    #[test]
    fn small_arguments_scans_the_view() {
        let mut s = vec![1.0f32; 12];
        let t = Layout { shape: vec![3, 4], strides: vec![1, 3], offset: 0 };
        assert!(small_arguments(&s, &t));
        s[7] = f32::NAN;
        s[8] = f32::NEG_INFINITY;
        assert!(small_arguments(&s, &t));
        s[11] = 3e7;
        assert!(!small_arguments(&s, &t));
        // A view that does not reach the large value.
        let head = Layout { shape: vec![2, 2], strides: vec![4, 1], offset: 0 };
        assert!(small_arguments(&s, &head));
        // A view spread over more than twice its size answers no without scanning.
        let sparse = Layout { shape: vec![2], strides: vec![10], offset: 0 };
        assert!(!small_arguments(&s, &sparse));
        assert!(!small_arguments(&s, &Layout { shape: vec![0], strides: vec![1], offset: 0 }));
    }
}
