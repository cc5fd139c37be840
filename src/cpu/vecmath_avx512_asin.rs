//! Float32 asin and acos on AVX-512 lanes: `vecmath_f32trig`'s forms (the odd series up to 1/2,
//! pi/2 - 2 asin(s) with s = sqrt((1 - |x|)/2) in two words above, pi/2 and pi in two words) with
//! s taken without a square root or a division. The lane forms of those functions paid a
//! `vsqrtps` and a `vdivps` on every lane, the two slowest instructions in them; here s comes
//! from `vrsqrt14ps` (r ~ 1/sqrt(w) to 2^-14), one Newton step s = s0 + (w - s0^2) r/2 on
//! s0 = w r, and its second word from the residual w - s^2 (exact in an FMA) times r/2, which
//! `asin_core`'s correction needs to 1% only. s may land an ulp off the rounded square root (its
//! second word carries the difference, and the correction's slope is taken to the z^2 term for
//! it): every float32 in [0.45, 1] and [-1, -0.45] within 0.635 ulp (asin) and 0.624 (acos),
//! under PyTorch 2.15's float32 (0.706 and 0.776 on the tests' grid).
//!
//! NaN and |x| > 1 give NaN (the square root's argument is negative there, and so is r's);
//! asin(+-0) = +-0.

use std::arch::x86_64::{__m512, _CMP_GT_OQ, _CMP_LT_OQ};

use pulp::x86::V4;

use crate::cpu::vecmath_avx512::slice_kernels;
use crate::cpu::vecmath_f32trig::{ASIN_P, PI, PIO2};

/// r is held at or below this, so that w = 0 (|x| = 1, where `vrsqrt14ps` gives +inf) takes
/// s = 0 through the same arithmetic: 0 r = 0, not NaN.
const R_CAP: f32 = 1.152_921_5e18; // 2^60

/// asin's argument for 16 lanes of |x| = a, as `vecmath_f32trig::core_argument`: a itself up to
/// 1/2 (second word 0), above it s + sl = sqrt((1 - a)/2); and the mask of the lanes above 1/2.
#[inline(always)]
fn core_argument16(simd: V4, a: __m512) -> (__m512, __m512, u16) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let far = f._mm512_cmp_ps_mask::<_CMP_GT_OQ>(a, c(0.5));
    // (1 - a)/2 is exact from a = 1/2 up (Sterbenz).
    let w = f._mm512_mul_ps(f._mm512_sub_ps(c(1.0), a), c(0.5));
    // `vminps` passes a NaN in its second operand on: w < 0 keeps its NaN.
    let r = f._mm512_min_ps(c(R_CAP), f._mm512_rsqrt14_ps(w));
    let half_r = f._mm512_mul_ps(r, c(0.5));
    let s0 = f._mm512_mul_ps(w, r);
    // One Newton step: s0's relative error 2^-14 becomes its square, under float32's rounding.
    let s = f._mm512_fmadd_ps(f._mm512_fnmadd_ps(s0, s0, w), half_r, s0);
    let sl = f._mm512_mul_ps(f._mm512_fnmadd_ps(s, s, w), half_r);
    (f._mm512_mask_blend_ps(far, a, s), f._mm512_maskz_mov_ps(far, sl), far)
}

/// asin(u + ul) for 0 <= u <= 1/2 as h + l, as `vecmath_f32trig::asin_core`.
#[inline(always)]
fn asin_core16(simd: V4, u: __m512, ul: __m512) -> (__m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let z = f._mm512_mul_ps(u, u);
    let mut p = c(ASIN_P[ASIN_P.len() - 1]);
    for &k in ASIN_P[..ASIN_P.len() - 1].iter().rev() {
        p = f._mm512_fmadd_ps(p, z, c(k));
    }
    let m = f._mm512_mul_ps(u, f._mm512_mul_ps(z, p));
    let h = f._mm512_add_ps(u, m);
    // asin'(u) = 1/sqrt(1 - z) to 0.6% (z <= 1/4): ul may reach an ulp of u here (s need not
    // be the rounded square root), so the scalar form's 1 + z/2 (2.6% off) cost 0.02 ulp.
    let slope = f._mm512_fmadd_ps(f._mm512_fmadd_ps(c(0.375), z, c(0.5)), z, c(1.0));
    let l = f._mm512_fmadd_ps(ul, slope, f._mm512_add_ps(f._mm512_sub_ps(u, h), m));
    (h, l)
}

/// (c0 + c1) - k (h + l), k a power of two and |k h| <= |c0| (or c0 = 0), rounded once but for
/// the small terms, as `vecmath_f32trig::minus`.
#[inline(always)]
fn minus16(simd: V4, c0: __m512, c1: __m512, k: __m512, h: __m512, l: __m512) -> __m512 {
    let f = simd.avx512f;
    let (kh, kl) = (f._mm512_mul_ps(k, h), f._mm512_mul_ps(k, l));
    let hi = f._mm512_sub_ps(c0, kh);
    let small = f._mm512_add_ps(f._mm512_sub_ps(f._mm512_sub_ps(c0, hi), kh), f._mm512_sub_ps(c1, kl));
    f._mm512_add_ps(hi, small)
}

/// asin of 16 lanes: h + l up to 1/2, pi/2 - 2 (h + l) above, with x's sign.
#[inline(always)]
fn asin16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let dq = simd.avx512dq;
    let c = |v: f32| f._mm512_set1_ps(v);
    let a = dq._mm512_andnot_ps(c(-0.0), x);
    let (u, ul, far) = core_argument16(simd, a);
    let (h, l) = asin_core16(simd, u, ul);
    let (c0, c1) = (f._mm512_maskz_mov_ps(far, c(PIO2.0)), f._mm512_maskz_mov_ps(far, c(PIO2.1)));
    let k = f._mm512_mask_blend_ps(far, c(-1.0), c(2.0));
    // The magnitude is never negative (h + l of a >= 0 is >= 0): or-ing the sign in is copysign.
    dq._mm512_or_ps(minus16(simd, c0, c1, k, h, l), dq._mm512_and_ps(x, c(-0.0)))
}

/// acos of 16 lanes: pi/2 - asin(x) up to 1/2, 2 asin(s) above, pi - 2 asin(s) below -1/2.
#[inline(always)]
fn acos16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let dq = simd.avx512dq;
    let c = |v: f32| f._mm512_set1_ps(v);
    let neg = f._mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, c(0.0));
    let (u, ul, far) = core_argument16(simd, dq._mm512_andnot_ps(c(-0.0), x));
    let (h, l) = asin_core16(simd, u, ul);
    // c = pi/2 near, pi far below -1/2, 0 far above 1/2; k = +-1 near, -+2 far, flipped for x < 0.
    let c0 = f._mm512_mask_blend_ps(far, c(PIO2.0), f._mm512_maskz_mov_ps(neg, c(PI.0)));
    let c1 = f._mm512_mask_blend_ps(far, c(PIO2.1), f._mm512_maskz_mov_ps(neg, c(PI.1)));
    let k = f._mm512_mask_blend_ps(far, c(1.0), c(-2.0));
    let k = dq._mm512_mask_xor_ps(k, neg, k, c(-0.0));
    minus16(simd, c0, c1, k, h, l)
}

slice_kernels! {
    /// `asin` of float32.
    Asin => asin16;
    /// `acos` of float32.
    Acos => acos16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::simd::avx512;
    use crate::cpu::vecmath_avx512::tests::{assert_bits, grid, run, worst_inside};
    use crate::cpu::vecmath_f32trig::{acos, asin};

    /// Every float32 from `lo` to `hi` (both of one sign), and the grid.
    fn dense(lo: f32, hi: f32) -> Vec<f32> {
        let (b0, b1) = (lo.to_bits().min(hi.to_bits()), lo.to_bits().max(hi.to_bits()));
        (b0..=b1).map(f32::from_bits).chain(grid()).collect()
    }

    // Bounds: the measured worst cases (0.6344 and 0.6235 ulp) rounded up, under PyTorch 2.15's
    // error on the grid (asin 0.706, acos 0.776). Outside [-1, 1], NaN as the scalar forms give.
    #[test]
    fn asin_and_acos_within_the_scalar_forms_bounds_and_exact_at_the_edges() {
        let Some(simd) = avx512() else { return eprintln!("no AVX-512: skipped") };
        let inside = |x: f32| x.abs() <= 1.0;
        let x = dense(0.45, 1.0);
        let (e, at) = worst_inside("asin", &x, &run(&Asin(simd), &x), f64::asin, inside, asin);
        assert!(e <= 0.64, "asin: {e} ulp at {at:e}");
        for (lo, hi) in [(0.45, 1.0), (-0.45, -1.0)] {
            let x = dense(lo, hi);
            let (e, at) = worst_inside("acos", &x, &run(&Acos(simd), &x), f64::acos, inside, acos);
            assert!(e <= 0.63, "acos: {e} ulp at {at:e}");
        }
        let edges = [0.0f32, -0.0, 0.5, -0.5, 1.0, -1.0, 1.000_000_1, -1.000_000_1, f32::from_bits(1), -f32::from_bits(1)];
        let edges: Vec<f32> = edges.into_iter().chain([f32::INFINITY, -f32::INFINITY, f32::NAN]).collect();
        assert_bits("asin", &edges, &run(&Asin(simd), &edges), &edges.iter().map(|&v| asin(v)).collect::<Vec<_>>());
        assert_bits("acos", &edges, &run(&Acos(simd), &edges), &edges.iter().map(|&v| acos(v)).collect::<Vec<_>>());
    }
}
