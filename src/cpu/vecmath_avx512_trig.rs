//! Float32 sin, cos and tan (and the spherical Bessel j0, sin x / x) on AVX-512 lanes, computed
//! in float64 halves (8 lanes each) and rounded once; tan here only for the blocks past
//! `vecmath_avx512_tan`'s float32 reduction. Float64 leaves 29 bits to spare, so a two-constant reduction is exact enough and the
//! polynomials short: x = n π/8 + r, |r| <= π/16, and sin x = sin(jπ/8) cos r + cos(jπ/8) sin r
//! with j = n mod 16 read from a 16-entry table by `vpermt2pd` (t's low mantissa bits are n's).
//! Within 2^-40 of the exact value before the rounding to float32: 0.5000 ulp over every 101st
//! float32 up to 2^24 in magnitude. The float32-lane alternative needs the reduced argument in
//! two words (its error relative to a tiny r otherwise reaches the result); for sin and cos that
//! costs as much.
//!
//! Past 2^24 (±inf included) lanes take `vecmath_trig`'s exact reduction out of line; NaN flows
//! through. sin(-0.0) is -0.0 through the table's first entry, -0.0.

use std::arch::x86_64::{__m256, __m512, __m512d, __m512i, _CMP_EQ_OQ, _CMP_GT_OQ};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::bessel::spherical_j0;
use crate::cpu::vecmath_avx512::{scalar_lanes, slice_kernels};
use crate::cpu::vecmath_trig::{cos_f32, sin_f32, tan_f32, SMALL_ARGUMENT};

/// 1.5 2^52: x 8/π + SHIFTER holds n = round(x 8/π) in its low mantissa bits.
const SHIFTER: f64 = 6_755_399_441_055_744.0;
const EIGHT_OVER_PI: f64 = 2.5464790894703255;
/// π/8 in two words: n PIO8.0 is exact inside the fused multiply-add, and n π/8's remainder
/// past PIO8.1 is below 2^-83 for |n| < 2^23.
const PIO8: (f64, f64) = (std::f64::consts::FRAC_PI_8, 1.5308084989341915e-17);
/// (sin r / r - 1) / r^2 and (cos r - 1) / r^2 in z = r^2, |r| <= π/16: minimax fits made for
/// this module (`tools/fit_avx512_tables.py`), within 5.6e-14 and 5.1e-13 of the functions they
/// stand for.
const SIN_P: [f64; 3] = [-0.16666666663754054, 0.00833332875735498, -0.0001982083135061931];
const COS_P: [f64; 3] = [-0.49999999973790893, 0.04166662548896038, -0.0013870496257038169];
/// sin(jπ/8); the first entry is -0.0 so that sin(-0.0) = -0.0 + -0.0 keeps its sign.
const SIN_J: [f64; 16] = [
    -0.0,
    0.3826834323650898,
    std::f64::consts::FRAC_1_SQRT_2,
    0.9238795325112867,
    1.0,
    0.9238795325112867,
    std::f64::consts::FRAC_1_SQRT_2,
    0.3826834323650898,
    0.0,
    -0.3826834323650898,
    -std::f64::consts::FRAC_1_SQRT_2,
    -0.9238795325112867,
    -1.0,
    -0.9238795325112867,
    -std::f64::consts::FRAC_1_SQRT_2,
    -0.3826834323650898,
];

/// `SIN_J` advanced by `quarter` steps (cos(jπ/8) = sin((j + 4)π/8)), negated if asked.
const fn rotated(quarter: bool, negate: bool) -> [f64; 16] {
    let mut out = [0f64; 16];
    let mut i = 0;
    while i < 16 {
        let v = SIN_J[(i + if quarter { 4 } else { 0 }) % 16];
        out[i] = if negate { -v } else { v };
        i += 1;
    }
    out
}
const COS_J: [f64; 16] = rotated(true, false);
const MINUS_SIN_J: [f64; 16] = rotated(false, true);

/// 8 float32 lanes reduced in float64: x = n π/8 + r, as (sin r, cos r, n) with n's low
/// bits the table index.
#[inline(always)]
fn reduced(simd: V4, x: __m256) -> (__m512d, __m512d, __m512i) {
    let f = simd.avx512f;
    let c = |v: f64| f._mm512_set1_pd(v);
    let xd = f._mm512_cvtps_pd(x);
    let t = f._mm512_fmadd_pd(xd, c(EIGHT_OVER_PI), c(SHIFTER));
    let n = f._mm512_sub_pd(t, c(SHIFTER));
    let r = f._mm512_fnmadd_pd(n, c(PIO8.1), f._mm512_fnmadd_pd(n, c(PIO8.0), xd));
    let z = f._mm512_mul_pd(r, r);
    let sp = f._mm512_fmadd_pd(f._mm512_fmadd_pd(z, c(SIN_P[2]), c(SIN_P[1])), z, c(SIN_P[0]));
    // r (1 + z P): a product, so that r = -0.0 gives -0.0.
    let sin_r = f._mm512_mul_pd(r, f._mm512_fmadd_pd(z, sp, c(1.0)));
    let cp = f._mm512_fmadd_pd(f._mm512_fmadd_pd(z, c(COS_P[2]), c(COS_P[1])), z, c(COS_P[0]));
    let cos_r = f._mm512_fmadd_pd(z, cp, c(1.0));
    (sin_r, cos_r, cast(t))
}

/// The 16-entry `table` at each lane's index.
#[inline(always)]
fn pick(simd: V4, table: [f64; 16], index: __m512i) -> __m512d {
    let [low, high]: [[f64; 8]; 2] = cast(table);
    simd.avx512f._mm512_permutex2var_pd(cast(low), index, cast(high))
}

/// sin (or cos, when `COS`) of 8 float32 lanes in float64, before its rounding.
#[inline(always)]
fn sin_cos_wide<const COS: bool>(simd: V4, x: __m256) -> __m512d {
    let f = simd.avx512f;
    let (sin_r, cos_r, index) = reduced(simd, x);
    // sin(a + r) = sin a cos r + cos a sin r; cos(a + r) = cos a cos r - sin a sin r.
    let (at_a, slope) =
        if COS { (pick(simd, COS_J, index), pick(simd, MINUS_SIN_J, index)) } else { (pick(simd, SIN_J, index), pick(simd, COS_J, index)) };
    f._mm512_fmadd_pd(at_a, cos_r, f._mm512_mul_pd(slope, sin_r))
}

/// sin (or cos, when `COS`) of 8 float32 lanes, through float64.
#[inline(always)]
fn half<const COS: bool>(simd: V4, x: __m256) -> __m256 {
    simd.avx512f._mm512_cvtpd_ps(sin_cos_wide::<COS>(simd, x))
}

/// sin x / x of 8 float32 lanes through float64, the quotient as tan's (no divide).
#[inline(always)]
fn spherical_j0_half(simd: V4, x: __m256) -> __m256 {
    let f = simd.avx512f;
    let sin = sin_cos_wide::<false>(simd, x);
    let xd = f._mm512_cvtps_pd(x);
    let one = f._mm512_set1_pd(1.0);
    let inv = f._mm512_rcp14_pd(xd);
    let inv = f._mm512_fmadd_pd(inv, f._mm512_fnmadd_pd(xd, inv, one), inv);
    let q = f._mm512_mul_pd(sin, inv);
    f._mm512_cvtpd_ps(f._mm512_fmadd_pd(f._mm512_fnmadd_pd(q, xd, sin), inv, q))
}

/// tan of 8 float32 lanes through float64: sin(a + r) / cos(a + r) from the same table and
/// polynomials as `half`, the quotient from `vrcp14pd`, one Newton step (2^-28) and the
/// remainder's correction (2^-53 more): no divide, whose throughput (16 cycles per 8 lanes)
/// would bound the loop. cos(a + r) keeps its relative digits near its zeros: there j = 4 or
/// 12, where it is ∓sin r alone, and elsewhere |a + r| stays π/16 from them.
#[inline(always)]
fn tan_half(simd: V4, x: __m256) -> __m256 {
    let f = simd.avx512f;
    let (sin_r, cos_r, index) = reduced(simd, x);
    let (sin_a, cos_a) = (pick(simd, SIN_J, index), pick(simd, COS_J, index));
    let num = f._mm512_fmadd_pd(sin_a, cos_r, f._mm512_mul_pd(cos_a, sin_r));
    let den = f._mm512_fnmadd_pd(sin_a, sin_r, f._mm512_mul_pd(cos_a, cos_r));
    let one = f._mm512_set1_pd(1.0);
    let inv = f._mm512_rcp14_pd(den);
    let inv = f._mm512_fmadd_pd(inv, f._mm512_fnmadd_pd(den, inv, one), inv);
    let q = f._mm512_mul_pd(num, inv);
    f._mm512_cvtpd_ps(f._mm512_fmadd_pd(f._mm512_fnmadd_pd(q, den, num), inv, q))
}

/// sin (or cos, when `COS`) of 16 lanes: two float64 halves; lanes past `SMALL_ARGUMENT` out of line.
#[inline(always)]
fn sin_cos16<const COS: bool>(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let dq = simd.avx512dq;
    let low = half::<COS>(simd, f._mm512_castps512_ps256(x));
    let high = half::<COS>(simd, dq._mm512_extractf32x8_ps::<1>(x));
    let v = dq._mm512_insertf32x8::<1>(f._mm512_castps256_ps512(low), high);
    with_exact_past_small(simd, x, v, if COS { exact_cos } else { exact_sin })
}

/// `v` with its lanes past `SMALL_ARGUMENT` (and ±inf) replaced by `exact` of them.
#[inline(always)]
fn with_exact_past_small(simd: V4, x: __m512, v: __m512, exact: fn(f32) -> f32) -> __m512 {
    let f = simd.avx512f;
    let magnitude = simd.avx512dq._mm512_andnot_ps(f._mm512_set1_ps(-0.0), x);
    let far = f._mm512_cmp_ps_mask::<_CMP_GT_OQ>(magnitude, f._mm512_set1_ps(SMALL_ARGUMENT));
    if far == 0 {
        v
    } else {
        scalar_lanes(x, v, far, exact)
    }
}

/// tan (or, when `J0`, the spherical j0, sin x / x) of 16 lanes: at ±0 tan gives itself (the
/// quotient's correction would turn -0 into +0) and j0 gives 1 (0/0); the exact reduction's past
/// `SMALL_ARGUMENT` (j0 is 0 at ±inf).
#[inline(always)]
fn quotient16<const J0: bool>(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let dq = simd.avx512dq;
    // The halves written out (as `sin_cos16`), each chosen by a constant: a lane function passed
    // as a value was left uninlined, every intrinsic a call (40 times slower).
    let (x_low, x_high) = (f._mm512_castps512_ps256(x), dq._mm512_extractf32x8_ps::<1>(x));
    let (low, high) = if J0 {
        (spherical_j0_half(simd, x_low), spherical_j0_half(simd, x_high))
    } else {
        (tan_half(simd, x_low), tan_half(simd, x_high))
    };
    let v = dq._mm512_insertf32x8::<1>(f._mm512_castps256_ps512(low), high);
    let zero = f._mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, f._mm512_setzero_ps());
    let at_zero = if J0 { f._mm512_set1_ps(1.0) } else { x };
    with_exact_past_small(simd, x, f._mm512_mask_blend_ps(zero, v, at_zero), if J0 { exact_spherical_j0 } else { exact_tan })
}

/// tan of 16 lanes through float64 halves: `vecmath_avx512_tan`'s kernel for blocks past its
/// float32 reduction's reach.
#[inline(always)]
pub(crate) fn tan16_through_f64(simd: V4, x: __m512) -> __m512 {
    quotient16::<false>(simd, x)
}

#[inline(always)]
fn spherical_j0_16(simd: V4, x: __m512) -> __m512 {
    quotient16::<true>(simd, x)
}

fn exact_spherical_j0(x: f32) -> f32 {
    spherical_j0(x as f64) as f32
}

/// The exact reduction's sin and cos (`vecmath_trig`), for the lanes past `SMALL_ARGUMENT`.
fn exact_sin(x: f32) -> f32 {
    sin_f32::<false>(x as f64) as f32
}

fn exact_cos(x: f32) -> f32 {
    cos_f32::<false>(x as f64) as f32
}

fn exact_tan(x: f32) -> f32 {
    tan_f32::<false>(x as f64) as f32
}

#[inline(always)]
fn sin16(simd: V4, x: __m512) -> __m512 {
    sin_cos16::<false>(simd, x)
}

#[inline(always)]
fn cos16(simd: V4, x: __m512) -> __m512 {
    sin_cos16::<true>(simd, x)
}

slice_kernels! {
    /// `sin` of float32.
    Sin => sin16;
    /// `cos` of float32.
    Cos => cos16;
    /// `special_spherical_bessel_j0` of float32.
    SphericalJ0 => spherical_j0_16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::vecmath_avx512::tests::{grid, run, worst_inside};

    slice_kernels! {
        /// The float64 halves' tan alone (`vecmath_avx512_tan` takes it past its own reach).
        Tan => tan16_through_f64;
    }

    #[test]
    fn sin_cos_tan_and_spherical_j0_within_half_an_ulp_and_the_exact_reduction_past_it() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        let x = grid();
        type Case = (&'static str, fn(f64) -> f64, fn(f32) -> f32);
        let cases: [(Case, Vec<f32>); 4] = [
            (("sin", f64::sin, exact_sin), run(&Sin(simd), &x)),
            (("cos", f64::cos, exact_cos), run(&Cos(simd), &x)),
            (("tan", f64::tan, exact_tan), run(&Tan(simd), &x)),
            (("spherical_j0", spherical_j0, exact_spherical_j0), run(&SphericalJ0(simd), &x)),
        ];
        for ((name, exact, far), got) in cases {
            let (e, at) = worst_inside(name, &x, &got, exact, |x| x.abs() <= SMALL_ARGUMENT, far);
            assert!(e <= 0.5001, "{name}: {e} ulp at {at:e}");
        }
        let specials = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -f32::MAX, 16_777_218.0];
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for (&x, (s, c)) in specials.iter().zip(run(&Sin(simd), &specials).into_iter().zip(run(&Cos(simd), &specials))) {
            assert!(same(s, exact_sin(x)), "sin({x:e}): {s:e}");
            assert!(same(c, exact_cos(x)), "cos({x:e}): {c:e}");
        }
        for (&x, t) in specials.iter().zip(run(&Tan(simd), &specials)) {
            assert!(same(t, exact_tan(x)), "tan({x:e}): {t:e}");
        }
        for (&x, j) in specials.iter().zip(run(&SphericalJ0(simd), &specials)) {
            assert!(same(j, exact_spherical_j0(x)), "spherical_j0({x:e}): {j:e}");
        }
    }
}
