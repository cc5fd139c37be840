//! Float32 atan on AVX-512 lanes, in float32 with the reduced argument in two words.
//! atan(a) = atan(c) + atan(q), q = (a - c)/(1 + a c), for a = |x| and a centre c: a rounded
//! to an eighth below 1.9375 (|q| <= 1/16), to a quarter below 5.625 (|q| < 1/39), and from
//! there on c = "infinity": atan(a) = π/2 + atan(q), q = -1/a. a - c is exact, 1 + a c is
//! kept in two words and so is the quotient (the reciprocal from `vrcp14ps` and one Newton
//! step, the remainders from FMAs), so the only rounding near the result's size is the last
//! addition: atan(c) (a 32-entry table in two words, read by `vpermt2ps`) + q_hi + (the small
//! terms: the table's low word, q_lo, the sum's error and the series q^3 P(q^2), at most 0.0014
//! of the result, as at a = 1/16). The eighths keep the series that small where atan(c) and q
//! nearly cancel (with quarters alone the error reached 0.515 ulp near a = 1/8). 0.5061 ulp over
//! every float32 (PyTorch 2.15: 0.5097 on the tests' grid), about 45 instructions per 16 lanes.
//!
//! NaN stays NaN, ±inf gives ±π/2 and the sign comes from the argument (-0.0 included).

use std::arch::x86_64::{__m512, __m512i, _CMP_LT_OQ};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath_avx512::{pick32, slice_kernels};
use crate::cpu::vecmath_avx512_atan_tables::{CENTRE_HI, CENTRE_LO, P};

/// 1.5 2^20: v + EIGHTHS holds round(8 v) in its low mantissa bits (and v rounded to an eighth).
const EIGHTHS: f32 = 1_572_864.0;

/// 1.5 2^21 + 2: v + QUARTERS holds round(4 v) + 8 in its low mantissa bits (the table's index of
/// a quarter from 2 on, after the sixteen eighths) and v + 2 rounded to a quarter.
const QUARTERS: f32 = 3_145_730.0;

/// Where the eighths stop (8 a < 15.5: index at most 15).
const LAST_EIGHTH: f32 = 1.9375;

/// Where the quarters stop (index at most 30): above it q = -1/a, |q| < 1/5.625.
const LAST_QUARTER: f32 = 5.625;

/// atan of 16 lanes.
#[inline(always)]
fn atan16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let dq = simd.avx512dq;
    let c = |v: f32| f._mm512_set1_ps(v);
    let sign = dq._mm512_and_ps(x, c(-0.0));
    let a = dq._mm512_andnot_ps(c(-0.0), x);
    let near = f._mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, c(LAST_QUARTER));
    let eighths = f._mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, c(LAST_EIGHTH));
    // The centre and its index: the nearest eighth (8c) or quarter (4c + 8), or index 31 (π/2)
    // for every far lane (NaN too), which holds 5.75 in the quarters' shifter.
    let held = f._mm512_mask_blend_ps(near, c(5.75), a);
    let shifted = f._mm512_mask_add_ps(f._mm512_add_ps(held, c(QUARTERS)), eighths, a, c(EIGHTHS));
    let centre = f._mm512_mask_sub_ps(f._mm512_sub_ps(shifted, c(QUARTERS)), eighths, shifted, c(EIGHTHS));
    let index: __m512i = cast(shifted);
    // q = num / den: near, (a - c) / (1 + a c), with 1 + a c = den + den_lo exactly (den - 1 is
    // exact: den < 32 and 1 is a multiple of its ulp); far, -1 / a, a held at 2^100 so that inf
    // does not meet its reciprocal's 0 (`vminps` passes a NaN in its second operand on).
    let num = f._mm512_mask_sub_ps(c(-1.0), near, a, centre);
    let far_den = f._mm512_min_ps(c(f32::from_bits(0x7180_0000)), a);
    let den = f._mm512_mask_fmadd_ps(far_den, near, centre, c(1.0));
    let den_lo = f._mm512_maskz_fmsub_ps(near, a, centre, f._mm512_sub_ps(den, c(1.0)));
    let r = f._mm512_rcp14_ps(den);
    let r = f._mm512_fmadd_ps(f._mm512_fnmadd_ps(den, r, c(1.0)), r, r);
    let q = f._mm512_mul_ps(num, r);
    // num - q (den + den_lo): the first product's remainder is exact in an FMA.
    let remainder = f._mm512_fnmadd_ps(q, den_lo, f._mm512_fnmadd_ps(q, den, num));
    let q_lo = f._mm512_mul_ps(remainder, r);
    let z = f._mm512_mul_ps(q, q);
    let series = f._mm512_fmadd_ps(f._mm512_fmadd_ps(f._mm512_fmadd_ps(c(P[3]), z, c(P[2])), z, c(P[1])), z, c(P[0]));
    // atan c + q exactly as sum + error (atan c >= |q| where c != 0; where c = 0, sum = q).
    let atan_c = pick32(simd, index, &CENTRE_HI);
    let sum = f._mm512_add_ps(atan_c, q);
    let error = f._mm512_sub_ps(q, f._mm512_sub_ps(sum, atan_c));
    let small = f._mm512_add_ps(f._mm512_add_ps(pick32(simd, index, &CENTRE_LO), q_lo), error);
    let small = f._mm512_fmadd_ps(f._mm512_mul_ps(q, z), series, small);
    dq._mm512_or_ps(f._mm512_add_ps(sum, small), sign)
}

slice_kernels! {
    /// `atan` of float32.
    Atan => atan16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::simd::avx512;
    use crate::cpu::vecmath_avx512::tests::{assert_bits, grid, run, worst_inside};
    use crate::cpu::vecmath_trig::atan;

    #[test]
    fn atan_within_its_bound_and_exact_at_the_edges() {
        let Some(simd) = avx512() else { return eprintln!("no AVX-512: skipped") };
        let x = grid();
        let (e, at) = worst_inside("atan", &x, &run(&Atan(simd), &x), atan::<false>, |_| true, |v| v);
        assert!(e <= 0.503, "atan: {e} ulp at {at:e}");
        let pio2 = std::f32::consts::FRAC_PI_2;
        let edges = [0.0f32, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::from_bits(1)];
        let want =
            [0.0f32, -0.0, std::f32::consts::FRAC_PI_4, -std::f32::consts::FRAC_PI_4, pio2, -pio2, f32::NAN, pio2, f32::from_bits(1)];
        assert_bits("atan", &edges, &run(&Atan(simd), &edges), &want);
    }
}
