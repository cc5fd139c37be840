//! Float32 gelu of the erf form, x Φ(x), its gradient g gelu'(x), and erfc on AVX-512 lanes. The
//! scalar kernels (erfc in float64: a division and an exp) ran at a quarter of PyTorch's speed;
//! here Φ(-|x|) comes from tables of polynomials (`vpermt2ps` reads a coefficient for 16 lanes).
//!
//! Near zero (|x| < 3.9375, where networks' activations are) Φ(-|x|) is one degree-5
//! polynomial per interval of 1/8: about 25 instructions per 16 elements, no exp, no divide.
//! Beyond it Φ(-a) = e^(-a²/2) R(a) with R = erfcx(a/√2)/2 per interval of 1/2 and the exp in
//! two words from the exact square (a² = sq + sql, fma): the tail keeps its relative accuracy,
//! which PyTorch's x (1 + erf(x/√2)) / 2 loses (millions of ulp). Lanes choose by their own
//! value, so each element's result never depends on its neighbours or the thread count.
//!
//! Accuracy over every 61st float32 of both signs (the tests): within 1.005 ulp near zero and
//! 1.43 ulp beyond (PyTorch 2.15's float32 gelu: 5.2 ulp on [0, 4)). From |x| = 13 on
//! (results turn subnormal below -13.2), infinities and NaN, lanes take `vecmath::gelu`.
//!
//! The gradient g gelu'(x) takes the same two paths with D(a) = Φ(-a) - a φ(a) (gelu'(-a);
//! gelu'(a) = 1 - D(a)): its own tables near zero, within 1.6 x 2^-24 (|gelu'| + 2^-6) (D
//! crosses zero at gelu's minimum, -0.75), and e^(-a²/2) (R(a) - a/√(2π)) in two words beyond,
//! within 0.57 ulp (`act_grad`'s float64 lanes serve the other dtypes and CPUs).
//!
//! erfc(t) = e^-(t² + g(t)) for t = |x| with g = -ln erfcx from tables (intervals of 1/4, then
//! 1/2), the exponent in two words, one exp rounded once: within 0.55 ulp; 2 - erfc(t) below
//! zero; t >= 9.125 (subnormal results from 9.19) and NaN take `vecmath::erfc`. It serves the
//! lanes past the grid of `vecmath_avx512_erfc` (|x| >= 8), whose test covers it there.

use std::arch::x86_64::{__m512, __m512i};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath::{gelu_slope, VecMath};
use crate::cpu::vecmath_avx512::{exp16_parts_with_low, pick32, scalar_lanes, scalar_lanes2, slice_kernels, ZipLanes, SHIFTER};
use crate::cpu::vecmath_avx512_gelu_tables as tables;

/// |x| below this takes the near tables: 32 intervals of 1/8 centred on k/8.
const NEAR_LIMIT: f32 = 31.5 / 8.0;
/// From this |x| on (and NaN) lanes take the scalar kernel.
const SCALAR_FROM: f32 = 13.0;

/// Φ(-a) for a = |x| < `NEAR_LIMIT`.
const NEAR: [&[f32; 32]; 7] =
    [&tables::NEAR_C0, &tables::NEAR_C0L, &tables::NEAR_C1, &tables::NEAR_C2, &tables::NEAR_C3, &tables::NEAR_C4, &tables::NEAR_C5];
/// D(a) = Φ(-a) - a φ(a) for a = |x| < `NEAR_LIMIT`: gelu'(-a).
const SLOPE: [&[f32; 32]; 7] =
    [&tables::SLOPE_C0, &tables::SLOPE_C0L, &tables::SLOPE_C1, &tables::SLOPE_C2, &tables::SLOPE_C3, &tables::SLOPE_C4, &tables::SLOPE_C5];
/// -ln erfcx(t) for t = |x| < 11.875: 16 intervals of 1/4, then 16 of 1/2.
const LOG_ERFCX: [&[f32; 32]; 8] = [
    &tables::LOG_ERFCX_C0,
    &tables::LOG_ERFCX_C0L,
    &tables::LOG_ERFCX_C1,
    &tables::LOG_ERFCX_C2,
    &tables::LOG_ERFCX_C3,
    &tables::LOG_ERFCX_C4,
    &tables::LOG_ERFCX_C5,
    &tables::LOG_ERFCX_C6,
];
/// 1/√(2π), the density's factor, in two words.
const FRAC_1_SQRT_2PI: f32 = 0.398_942_3;
const FRAC_1_SQRT_2PI_LO: f32 = -1.133_517e-8;
/// Φ(-a) e^(a²/2) for a = |x| < 15.75.
const FAR: [&[f32; 32]; 8] = [
    &tables::FAR_C0,
    &tables::FAR_C0L,
    &tables::FAR_C1,
    &tables::FAR_C2,
    &tables::FAR_C3,
    &tables::FAR_C4,
    &tables::FAR_C5,
    &tables::FAR_C6,
];

/// A table function of a = |x| over 32 intervals of 1/`scale`, as (c0, s): c0 + s its value,
/// c0 the interval's value at its centre, s the rest (|s| <= 0.3 c0). u = a scale - k is exact
/// (`scale` a power of two), so the polynomial's argument carries no rounding.
#[inline(always)]
fn piecewise<const N: usize>(simd: V4, a: __m512, scale: f32, table: &[&[f32; 32]; N]) -> (__m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    // k = round(a scale) in the low mantissa bits of `t` (`vpermt2ps` reads its low five).
    let t = f._mm512_fmadd_ps(a, c(scale), c(SHIFTER));
    let u = f._mm512_fmsub_ps(a, c(scale), f._mm512_sub_ps(t, c(SHIFTER)));
    table_polynomial(simd, cast(t), u, table)
}

/// The polynomial of the interval whose number is in `index`'s low five bits, at u, as
/// `piecewise`'s (c0, s).
#[inline(always)]
fn table_polynomial<const N: usize>(simd: V4, index: __m512i, u: __m512, table: &[&[f32; 32]; N]) -> (__m512, __m512) {
    let f = simd.avx512f;
    let mut p = pick32(simd, index, table[N - 1]);
    for coefficient in table[2..N - 1].iter().rev() {
        p = f._mm512_fmadd_ps(p, u, pick32(simd, index, coefficient));
    }
    (pick32(simd, index, table[0]), f._mm512_fmadd_ps(p, u, pick32(simd, index, table[1])))
}

/// gelu of lanes with |x| < `NEAR_LIMIT` (others meaningless): x Φ(x) with Φ(x) = Φ(-|x|) for
/// x <= 0 (zeros keep their sign: at 0 the table's s is +0) and 1 - Φ(-|x|) above, each
/// rounded once but for s.
#[inline(always)]
fn near16(simd: V4, x: __m512, ax: __m512) -> __m512 {
    let f = simd.avx512f;
    let (c0, s) = piecewise(simd, ax, 8.0, &NEAR);
    let negative = f._mm512_fmadd_ps(x, c0, f._mm512_mul_ps(x, s));
    let positive = f._mm512_fnmadd_ps(x, f._mm512_add_ps(c0, s), x);
    let not_positive = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LE_OQ }>(x, f._mm512_setzero_ps());
    f._mm512_mask_blend_ps(not_positive, positive, negative)
}

/// e^(-a²/2) = (hi + lo) 2^floor(scale) for lanes a < 13.7 (`exp16_parts`' form), the argument in
/// two words (sq + sql = a² exactly), so the tail keeps its relative accuracy.
#[inline(always)]
fn gauss16(simd: V4, ax: __m512) -> (__m512, __m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let sq = f._mm512_mul_ps(ax, ax);
    let sql = f._mm512_fmsub_ps(ax, ax, sq);
    exp16_parts_with_low(simd, f._mm512_mul_ps(sq, c(-0.5)), Some(f._mm512_mul_ps(sql, c(-0.5))))
}

/// gelu of lanes with |x| < `SCALAR_FROM` through Φ(-a) = e^(-a²/2) R(a); the others take the
/// scalar kernel.
#[inline(always)]
fn far16(simd: V4, x: __m512, ax: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let (c0, s) = piecewise(simd, ax, 2.0, &FAR);
    let (hi, lo, scale) = gauss16(simd, ax);
    // (hi + lo)(c0 + s) = hi c0 + m: lo is up to 0.022 hi, so lo s stays in m.
    let m = f._mm512_fmadd_ps(f._mm512_add_ps(hi, lo), s, f._mm512_mul_ps(lo, c0));
    let phi = f._mm512_fmadd_ps(hi, c0, m);
    // x Φ before the scaling (exact where the result is normal: |x| < 13), so Φ's own
    // subnormal range (from |x| = 12.8) costs no bits.
    let negative = f._mm512_scalef_ps(f._mm512_mul_ps(x, phi), scale);
    let positive = f._mm512_fnmadd_ps(x, f._mm512_scalef_ps(phi, scale), x);
    let below = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LT_OQ }>(x, c(0.0));
    let v = f._mm512_mask_blend_ps(below, positive, negative);
    let scalar = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_NLT_UQ }>(ax, c(SCALAR_FROM));
    if scalar == 0 {
        v
    } else {
        scalar_lanes(x, v, scalar, <f32 as VecMath>::v_gelu)
    }
}

/// gelu of 16 lanes: the near tables, and where a lane lies beyond them, `far16`'s value there.
#[inline(always)]
fn gelu16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let ax = simd.avx512dq._mm512_andnot_ps(f._mm512_set1_ps(-0.0), x);
    let v = near16(simd, x, ax);
    let far = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_NLT_UQ }>(ax, f._mm512_set1_ps(NEAR_LIMIT));
    if far == 0 {
        v
    } else {
        f._mm512_mask_blend_ps(far, v, far16(simd, x, ax))
    }
}

/// g gelu'(x) of 16 lanes: gelu'(x) = D(|x|) for x <= 0 and 1 - D(|x|) above, with
/// D(a) = Φ(-a) - a φ(a) from the slope tables near zero (fitted within 2^-27.8 of |D| + 2^-6:
/// D crosses zero at a = 0.75, gelu's minimum); beyond them `far_grad16`.
#[inline(always)]
fn gelu_grad16(simd: V4, g: __m512, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let ax = simd.avx512dq._mm512_andnot_ps(c(-0.0), x);
    let (c0, s) = piecewise(simd, ax, 8.0, &SLOPE);
    let negative = f._mm512_fmadd_ps(g, c0, f._mm512_mul_ps(g, s));
    let positive = f._mm512_fnmadd_ps(g, f._mm512_add_ps(c0, s), g);
    let not_positive = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LE_OQ }>(x, f._mm512_setzero_ps());
    let v = f._mm512_mask_blend_ps(not_positive, positive, negative);
    let far = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_NLT_UQ }>(ax, c(NEAR_LIMIT));
    if far == 0 {
        v
    } else {
        f._mm512_mask_blend_ps(far, v, far_grad16(simd, g, x, ax))
    }
}

/// g gelu'(x) for lanes with |x| < `SCALAR_FROM`: D(a) = e^(-a²/2) (R(a) - a/√(2π)), where R(a)
/// is below a tenth of a/√(2π) (a >= 3.9375): no cancellation. Other lanes: `scalar`.
#[inline(always)]
fn far_grad16(simd: V4, g: __m512, x: __m512, ax: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let (c0, s) = piecewise(simd, ax, 2.0, &FAR);
    let (hi, lo, scale) = gauss16(simd, ax);
    // w = R - a/√(2π) in two words: a/√(2π) = ak + akl, then Fast2Sum of c0 - ak (|ak| > c0).
    let ak = f._mm512_mul_ps(ax, c(FRAC_1_SQRT_2PI));
    let akl = f._mm512_fmadd_ps(ax, c(FRAC_1_SQRT_2PI_LO), f._mm512_fmsub_ps(ax, c(FRAC_1_SQRT_2PI), ak));
    let wh = f._mm512_sub_ps(c0, ak);
    let wl = f._mm512_add_ps(f._mm512_sub_ps(c0, f._mm512_add_ps(wh, ak)), f._mm512_sub_ps(s, akl));
    // (hi + lo)(wh + wl) = hi wh + m, rounded once.
    let m = f._mm512_fmadd_ps(f._mm512_add_ps(hi, lo), wl, f._mm512_mul_ps(lo, wh));
    let d = f._mm512_scalef_ps(f._mm512_fmadd_ps(hi, wh, m), scale);
    let negative = f._mm512_mul_ps(g, d);
    let positive = f._mm512_fnmadd_ps(g, d, g);
    let below = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LT_OQ }>(x, c(0.0));
    let v = f._mm512_mask_blend_ps(below, positive, negative);
    let scalar = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_NLT_UQ }>(ax, c(SCALAR_FROM));
    if scalar == 0 {
        v
    } else {
        scalar_lanes2(g, x, v, scalar, gelu_grad_f32)
    }
}

/// g gelu'(x) on float64 lanes (float32's polynomials), as `act_grad`'s elementwise pass: the
/// lanes the kernel leaves out.
fn gelu_grad_f32(g: f32, x: f32) -> f32 {
    (g as f64 * gelu_slope::<true>(x as f64)) as f32
}

/// `g gelu'(x)` over float32 slices (`act_grad`'s fused backward).
#[derive(Clone, Copy)]
pub struct GeluGrad;

impl ZipLanes for GeluGrad {
    #[inline(always)]
    fn lanes(self, simd: V4, g: __m512, x: __m512) -> __m512 {
        gelu_grad16(simd, g, x)
    }
}

/// Below this t = |x| erfc's intervals are 1/4 wide (index 4t), above it 1/2 (index 2t + 7.75).
const ERFC_SPLIT: f32 = 3.875;
/// From this t on (erfc's results subnormal from 9.19) and NaN, erfc's lanes take the scalar kernel.
const ERFC_SCALAR_FROM: f32 = 9.125;

/// a + b = (sum, error) exactly (Knuth's TwoSum: any order of magnitudes).
#[inline(always)]
pub(crate) fn two_sum(simd: V4, a: __m512, b: __m512) -> (__m512, __m512) {
    let f = simd.avx512f;
    let sum = f._mm512_add_ps(a, b);
    let b_part = f._mm512_sub_ps(sum, a);
    let a_part = f._mm512_sub_ps(sum, b_part);
    (sum, f._mm512_add_ps(f._mm512_sub_ps(a, a_part), f._mm512_sub_ps(b, b_part)))
}

/// erfc of 16 lanes by the log-erfcx form: erfc(t) = e^-(t² + g(t)) for t = |x|, g = -ln erfcx from its tables (fitted
/// within 2^-31 (|g| + 1)), the exponent summed in two words (t² exactly, by fma), so one exp
/// rounds once and the tail keeps its relative accuracy; erfc(x) = 2 - erfc(t) for x < 0, the
/// difference in two words too.
#[inline(always)]
pub(crate) fn erfc16_through_log_erfcx(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let t = simd.avx512dq._mm512_andnot_ps(c(-0.0), x);
    // The interval: round(4t) below the split, round(2t + 7.75) above; u exact in both.
    let near = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LT_OQ }>(t, c(ERFC_SPLIT));
    let k_near = f._mm512_fmadd_ps(t, c(4.0), c(SHIFTER));
    let k_far = f._mm512_add_ps(f._mm512_fmadd_ps(t, c(2.0), c(7.75)), c(SHIFTER));
    let k = f._mm512_mask_blend_ps(near, k_far, k_near);
    let n = f._mm512_sub_ps(k, c(SHIFTER));
    let u_near = f._mm512_fmsub_ps(t, c(4.0), n);
    let u_far = f._mm512_fmsub_ps(t, c(2.0), f._mm512_sub_ps(n, c(7.75)));
    let u = f._mm512_mask_blend_ps(near, u_far, u_near);
    // g = g0 + c1 u + u² Q(u): the linear term (up to 0.14) exact in two words, so that only
    // the small u² Q rounds (a rounded rest of g cost erfc 0.22 ulp near 0).
    let index: __m512i = cast(k);
    let mut q = pick32(simd, index, LOG_ERFCX[7]);
    for coefficient in LOG_ERFCX[3..7].iter().rev() {
        q = f._mm512_fmadd_ps(q, u, pick32(simd, index, coefficient));
    }
    let c1 = pick32(simd, index, LOG_ERFCX[2]);
    let linear = f._mm512_mul_ps(c1, u);
    let linear_error = f._mm512_fmsub_ps(c1, u, linear);
    let rest = f._mm512_fmadd_ps(f._mm512_mul_ps(u, u), q, pick32(simd, index, LOG_ERFCX[1]));
    // -(t² + g) = -(yh + yl): t² = sq + sql exactly, summed with g in two words.
    let sq = f._mm512_mul_ps(t, t);
    let sql = f._mm512_fmsub_ps(t, t, sq);
    let (g, gl) = two_sum(simd, pick32(simd, index, LOG_ERFCX[0]), linear);
    let (yh, yl) = two_sum(simd, sq, g);
    let yl = f._mm512_add_ps(yl, f._mm512_add_ps(sql, f._mm512_add_ps(gl, f._mm512_add_ps(linear_error, rest))));
    let minus_zero = c(-0.0);
    let (hi, lo, scale) =
        exp16_parts_with_low(simd, simd.avx512dq._mm512_xor_ps(yh, minus_zero), Some(simd.avx512dq._mm512_xor_ps(yl, minus_zero)));
    let positive = f._mm512_scalef_ps(f._mm512_add_ps(hi, lo), scale);
    // 2 - (h + l): d = 2 - h with its error e exactly (Fast2Sum, h <= 1), then one rounding.
    let (h, l) = (f._mm512_scalef_ps(hi, scale), f._mm512_scalef_ps(lo, scale));
    let d = f._mm512_sub_ps(c(2.0), h);
    let e = f._mm512_sub_ps(f._mm512_sub_ps(c(2.0), d), h);
    let negative = f._mm512_add_ps(d, f._mm512_sub_ps(e, l));
    let below = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LT_OQ }>(x, c(0.0));
    let v = f._mm512_mask_blend_ps(below, positive, negative);
    let scalar = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_NLT_UQ }>(t, c(ERFC_SCALAR_FROM));
    if scalar == 0 {
        v
    } else {
        scalar_lanes(x, v, scalar, <f32 as VecMath>::v_erfc)
    }
}

slice_kernels! {
    /// `gelu` (the erf form) of float32.
    Gelu => gelu16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::vecmath_avx512::tests::{grid, run, ulps};

    fn exact(x: f64) -> f64 {
        0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
    }

    #[test]
    fn gelu_within_its_bounds_and_the_scalar_kernel_past_them() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        let x = grid();
        let got = run(&Gelu(simd), &x);
        let scalar = <f32 as VecMath>::v_gelu;
        let (mut near, mut far) = ((0.0f64, 0.0f32), (0.0f64, 0.0f32));
        for (&x, &y) in x.iter().zip(&got) {
            let worst = if x.abs() < NEAR_LIMIT {
                &mut near
            } else if x.abs() < SCALAR_FROM {
                &mut far
            } else {
                let want = scalar(x);
                assert!(y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()), "gelu({x:e}): {y:e}, not {want:e}");
                continue;
            };
            let e = ulps(y, exact(x as f64));
            if e > worst.0 {
                *worst = (e, x);
            }
        }
        eprintln!("gelu: near {:.4} ulp at {:e}, far {:.4} ulp at {:e}", near.0, near.1, far.0, far.1);
        assert!(near.0 <= 1.01 && far.0 <= 1.52);
        for x in [0.0f32, -0.0, 1e-45, -1e-45, -12.99, 3.9375, -3.9375] {
            let y = run(&Gelu(simd), &[x])[0];
            assert!(ulps(y, exact(x as f64)) <= 1.01 && y.is_sign_negative() == x.is_sign_negative(), "gelu({x:e}): {y:e}");
        }
    }

    /// gelu'(x) in float64.
    fn slope(x: f64) -> f64 {
        0.5 * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2) + x * (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
    }

    fn run_grad(g: &[f32], x: &[f32]) -> Vec<f32> {
        let simd = crate::cpu::simd::avx512().expect("checked");
        let mut out = vec![std::mem::MaybeUninit::uninit(); x.len()];
        GeluGrad.zip_into(simd, g, x, &mut out);
        out.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    #[test]
    fn gradient_within_its_bounds_and_the_scalar_kernel_past_them() {
        if crate::cpu::simd::avx512().is_none() {
            return;
        }
        let x = grid();
        let ones = vec![1.0f32; x.len()];
        let got = run_grad(&ones, &x);
        // Near zero the error in units of 2^-24 (|gelu'| + 2^-6) (the slope crosses zero at
        // -0.75); beyond, in ulps.
        let (mut near, mut far) = ((0.0f64, 0.0f32), (0.0f64, 0.0f32));
        for (&x, &y) in x.iter().zip(&got) {
            let want = slope(x as f64);
            let (worst, e) = if x.abs() < NEAR_LIMIT {
                (&mut near, ((y as f64) - want).abs() / (2f64.powi(-24) * (want.abs() + 2f64.powi(-6))))
            } else if x.abs() < SCALAR_FROM {
                (&mut far, ulps(y, want))
            } else {
                let scalar = gelu_grad_f32(1.0, x);
                assert!(y.to_bits() == scalar.to_bits() || (y.is_nan() && scalar.is_nan()), "gelu'({x:e}): {y:e}, not {scalar:e}");
                continue;
            };
            if e > worst.0 {
                *worst = (e, x);
            }
        }
        eprintln!("gelu': near {:.4} units at {:e}, far {:.4} ulp at {:e}", near.0, near.1, far.0, far.1);
        assert!(near.0 <= 1.6 && far.0 <= 0.6);
        // The gradient multiplies: g gelu'(x) for other g, rounded once more at most.
        let g: Vec<f32> = (0..x.len()).map(|i| [0.37f32, -2.5, 1e-20, -0.0][i % 4]).collect();
        for ((&g, &x), &y) in g.iter().zip(&x).zip(&run_grad(&g, &x)) {
            let want = g as f64 * slope(x as f64);
            if x.abs() < NEAR_LIMIT {
                assert!(
                    ((y as f64) - want).abs() <= 2f64.powi(-23) * (want.abs() + g.abs() as f64 * 2f64.powi(-6)),
                    "{g} gelu'({x:e}) = {y:e}"
                );
            } else if x.abs() < SCALAR_FROM && want.abs() > 1e-37 {
                assert!(ulps(y, want) <= 2.5, "{g} gelu'({x:e}) = {y:e}, not {want:e}");
            }
        }
    }

    #[test]
    fn each_lane_takes_its_own_path() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        // The same values beside lanes of each path give the same bits as alone.
        let values = [0.3f32, -1.7, 3.9, -3.94, 5.5, -11.0, 14.0, f32::NAN, -0.0, 2.0, -20.0, 1e-30, -7.25, 0.01, -3.0, 12.5];
        let together = run(&Gelu(simd), &values);
        for (x, y) in values.iter().zip(&together) {
            let alone = run(&Gelu(simd), &[*x])[0];
            assert!(alone.to_bits() == y.to_bits() || (alone.is_nan() && y.is_nan()), "gelu({x:e}): {y:e} beside others, {alone:e} alone");
        }
        let g = [1.5f32; 16];
        let together = run_grad(&g, &values);
        for (x, y) in values.iter().zip(&together) {
            let alone = run_grad(&[1.5], &[*x])[0];
            assert!(alone.to_bits() == y.to_bits() || (alone.is_nan() && y.is_nan()), "gelu'({x:e}): {y:e} beside others, {alone:e} alone");
        }
    }
}
