//! Float32 erfinv on AVX-512 lanes, computed in float64 halves (8 lanes each) and rounded once.
//! erfinv(a) = a R(w) with w = -ln(1 - a^2): R is smooth in w from 0 (where it is sqrt(pi)/2)
//! to the last float32 below 1 (w = 15.94), so one degree-6 polynomial per unit interval of w
//! (`RATIO`, 16 of them, read by `vpermt2pd`) holds it within 1.2e-10; the log reads its own
//! 16-entry table. Absolute error in w is what matters (R's relative slope in w is below 0.3), so
//! the log need not keep relative digits near w = 0, and its series stops at r^5 (2^-32). The
//! float64 result is within 2^-31 of exact before its one rounding: at most 0.502 ulp
//! (PyTorch 2.15: 0.535 on the tests' grid). Every term short of that would cost time: this is
//! about 80 instructions per 16 lanes.
//!
//! ±inf at ±1, NaN beyond and at NaN; the sign comes from the argument (-0.0 included).

use std::arch::x86_64::{__m256, __m512, __m512d, __m512i, _CMP_EQ_OQ, _CMP_LT_OQ};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath_avx512::{pick16, slice_kernels, SHIFTER_F64};
use crate::cpu::vecmath_avx512_erfinv_tables::{LOG_INV_C, LOG_LN_C, RATIO};

/// -ln(t) for t in (0, 1]: t = m 2^e (m in [1, 2)), ln m = ln(1 + r) - ln(1/c) with r = m/c - 1,
/// |r| <= 1/33, and ln(1 + r) from its Taylor series to r^5 (the rest below 2^-32).
#[inline(always)]
fn minus_log(simd: V4, t: __m512d) -> __m512d {
    let f = simd.avx512f;
    let c = |v: f64| f._mm512_set1_pd(v);
    let m = f._mm512_getmant_pd::<{ std::arch::x86_64::_MM_MANT_NORM_1_2 }, { std::arch::x86_64::_MM_MANT_SIGN_ZERO }>(t);
    let e = f._mm512_getexp_pd(t);
    // m's top four fraction bits: the table index.
    let index = f._mm512_srli_epi64::<48>(cast(m));
    let r = f._mm512_fmsub_pd(m, pick16(simd, index, &LOG_INV_C), c(1.0));
    let mut p = c(-1.0 / 5.0);
    for k in [1.0 / 4.0, -1.0 / 3.0, 1.0 / 2.0] {
        p = f._mm512_fmadd_pd(p, r, c(k));
    }
    // -ln(1 + r) = -r + r^2 (1/2 - r/3 + ...) = r (p r - 1).
    let minus_log1p = f._mm512_mul_pd(r, f._mm512_fmsub_pd(p, r, c(1.0)));
    let minus_ln_m = f._mm512_sub_pd(minus_log1p, pick16(simd, index, &LOG_LN_C));
    f._mm512_fnmadd_pd(e, c(std::f64::consts::LN_2), minus_ln_m)
}

/// erfinv(a) for 8 lanes a = |y| in [0, 1) (other lanes are replaced by the caller): a R(w).
#[inline(always)]
fn half(simd: V4, a: __m256) -> __m256 {
    let f = simd.avx512f;
    let c = |v: f64| f._mm512_set1_pd(v);
    let ad = f._mm512_cvtps_pd(a);
    // a^2 is exact in float64: 1 - a^2 rounds once, no cancellation near 1.
    let t = f._mm512_fnmadd_pd(ad, ad, c(1.0));
    // Where t rounds to 1, w may come out a hair below 0: the first interval takes it.
    let w = f._mm512_max_pd(minus_log(simd, t), c(0.0));
    // k = round(w - 1/2) (floor(w) but at ties), u = w - k in [0, 1].
    let shifted = f._mm512_add_pd(f._mm512_sub_pd(w, c(0.5)), c(SHIFTER_F64));
    let u = f._mm512_sub_pd(w, f._mm512_sub_pd(shifted, c(SHIFTER_F64)));
    let index: __m512i = cast(shifted);
    let mut p = pick16(simd, index, &RATIO[6]);
    for coefficients in RATIO[..6].iter().rev() {
        p = f._mm512_fmadd_pd(p, u, pick16(simd, index, coefficients));
    }
    f._mm512_cvtpd_ps(f._mm512_mul_pd(ad, p))
}

/// erfinv of 16 lanes.
#[inline(always)]
fn erfinv16(simd: V4, y: __m512) -> __m512 {
    let f = simd.avx512f;
    let dq = simd.avx512dq;
    let sign = dq._mm512_and_ps(y, f._mm512_set1_ps(-0.0));
    let a = dq._mm512_andnot_ps(f._mm512_set1_ps(-0.0), y);
    let one = f._mm512_set1_ps(1.0);
    let inside = f._mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, one);
    let at_one = f._mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, one);
    // Lanes at or past 1 (and NaN) compute at 0 and are replaced.
    let a_in = f._mm512_maskz_mov_ps(inside, a);
    let low = half(simd, f._mm512_castps512_ps256(a_in));
    let high = half(simd, dq._mm512_extractf32x8_ps::<1>(a_in));
    let v = dq._mm512_insertf32x8::<1>(f._mm512_castps256_ps512(low), high);
    let edge = f._mm512_mask_blend_ps(at_one, f._mm512_set1_ps(f32::NAN), f._mm512_set1_ps(f32::INFINITY));
    dq._mm512_or_ps(f._mm512_mask_blend_ps(inside, edge, v), sign)
}

slice_kernels! {
    /// `erfinv` of float32.
    Erfinv => erfinv16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::simd::avx512;
    use crate::cpu::vecmath_avx512::tests::{assert_bits, grid, run, worst_inside};
    use crate::cpu::vecmath_special::erfinv;

    #[test]
    fn erfinv_within_its_bound_and_exact_at_the_edges() {
        let Some(simd) = avx512() else { return eprintln!("no AVX-512: skipped") };
        let x: Vec<f32> = grid().into_iter().filter(|v| v.abs() < 1.0).collect();
        // The float64 kernel: a few 1e-16 relative, far below what is measured.
        let (e, at) = worst_inside("erfinv", &x, &run(&Erfinv(simd), &x), erfinv::<false>, |_| true, |v| v);
        assert!(e <= 0.502, "erfinv: {e} ulp at {at:e}");
        let edges = [1.0f32, -1.0, 1.5, -2.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 0.0, -0.0];
        let want = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::NAN, f32::NAN, f32::NAN, f32::NAN, 0.0, -0.0];
        assert_bits("erfinv", &edges, &run(&Erfinv(simd), &edges), &want);
    }
}
