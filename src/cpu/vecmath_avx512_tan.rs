//! Float32 tan on AVX-512 float32 lanes: x = n π/32 + r with |r| <= π/64, the reduction in two
//! words (π/32 in three float32 words), tan r = r + r^3 P(r^2) in two words, and
//! tan(jπ/32 + r) = (T + t) / (1 - T t) for j = n mod 32 (T = tan(jπ/32), two words, from a
//! 32-entry table read by `vpermt2ps`). At the pole, j = 16, the table holds T = -1 and ONE = 0,
//! so that the same (T + ONE t) / (ONE - T t) is -1/t. Numerator and denominator are kept in two
//! words, and the quotient comes from `vrcp14ps`, one Newton step and the remainder's correction
//! (no divide): the only rounding at the result's size is the last one. 0.5023 ulp over every
//! float32 within `FAST_LIMIT` (a one-off exhaustive run; PyTorch 2.15: 0.5355 on the tests'
//! grid), in about 41 instructions per 16 lanes, where the float64 halves of
//! `vecmath_avx512_trig` take about 60.
//!
//! Lanes past `FAST_LIMIT` (±inf included) take that float64 kernel, which covers up to 2^24 and
//! the exact reduction past it. NaN flows through; tan(±0) = ±0.

use std::arch::x86_64::{__m512, _CMP_GT_OQ};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath_avx512::{pick32, slice_kernels, with_far_lanes, SHIFTER};
use crate::cpu::vecmath_avx512_tan_tables::{INV_PI_32, ONE, P, PI_32, T_HI, T_LO};
use crate::cpu::vecmath_avx512_trig::tan16_through_f64;

/// Past this (in magnitude) a lane takes the float64 kernel. n = round(x 32/π) comes from
/// float32's 32/π, 4e-8 off in relative terms, so |r| may pass π/64 by 4e-8 |x|; at j = 15 and 17
/// (|T| = 10.15) den = 1 - T t must stay at or above 1/2 for 1 - den to be exact, which holds
/// while that is under 1.2e-4 (|x| < 2950).
const FAST_LIMIT: f32 = 2048.0;

/// tan of 16 lanes.
#[inline(always)]
fn tan16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    // n = round(x 32/π) in t's low mantissa bits (its low five the table index).
    let t = f._mm512_fmadd_ps(x, c(INV_PI_32), c(SHIFTER));
    let n = f._mm512_sub_ps(t, c(SHIFTER));
    // r = x - n π/32 as r + r_lo. n PI_32[0] is exact inside the FMA and so is the difference r1
    // (a multiple of min(ulp x, 2^-27) below 2^-3). n PI_32[1] is taken in two words, and r1 minus
    // the first by Fast2Sum, exact as r1 is a multiple of that word's ulp (r1 = 0 unless
    // |x| >= π/64, and then a multiple of 2^-28, where |n PI_32[1]| < 2^-12 has ulps <= 2^-35).
    let r1 = f._mm512_fnmadd_ps(n, c(PI_32[0]), x);
    let w = f._mm512_mul_ps(n, c(PI_32[1]));
    let w_lo = f._mm512_fmsub_ps(n, c(PI_32[1]), w);
    let r = f._mm512_sub_ps(r1, w);
    let e = f._mm512_sub_ps(f._mm512_sub_ps(r1, r), w);
    let r_lo = f._mm512_fnmadd_ps(n, c(PI_32[2]), f._mm512_sub_ps(e, w_lo));
    // tan(r + r_lo) = r + small as th + tl (Fast2Sum: |small| < r/1000). The denominator needs
    // the sum in its first word: the quotient's correction is linear, and den's second word must
    // stay within 2^-15 of it for its square to be negligible.
    let z = f._mm512_mul_ps(r, r);
    let p = f._mm512_fmadd_ps(z, c(P[1]), c(P[0]));
    let small = f._mm512_fmadd_ps(f._mm512_mul_ps(z, r), p, r_lo);
    let th = f._mm512_add_ps(r, small);
    let tl = f._mm512_add_ps(f._mm512_sub_ps(r, th), small);
    let (big, big_lo, one) = (pick32(simd, cast(t), &T_HI), pick32(simd, cast(t), &T_LO), pick32(simd, cast(t), &ONE));
    // num = T + ONE t in two words: T - num is exact (Fast2Sum: |T| >= 0.098 > 2^-4 > |t|, or
    // T = 0).
    let num = f._mm512_fmadd_ps(one, th, big);
    let num_lo = f._mm512_fmadd_ps(one, th, f._mm512_sub_ps(big, num));
    let num_lo = f._mm512_add_ps(num_lo, f._mm512_fmadd_ps(one, tl, big_lo));
    // den = ONE - T t in two words: ONE - den is exact (den in [1/2, 3/2] with ONE = 1, or
    // ONE = 0), and the FMA's rounding error is within 2^-24 of itself.
    let den = f._mm512_fnmadd_ps(big, th, one);
    let den_lo = f._mm512_fnmadd_ps(big, th, f._mm512_sub_ps(one, den));
    let den_lo = f._mm512_fnmadd_ps(big, tl, f._mm512_fnmadd_ps(big_lo, th, den_lo));
    // q = num/den: 1/den to 2^-28 from vrcp14ps and a Newton step, then q corrected by the
    // remainder num - q den, computed with both low words.
    let inv = f._mm512_rcp14_ps(den);
    let inv = f._mm512_fmadd_ps(inv, f._mm512_fnmadd_ps(den, inv, c(1.0)), inv);
    let q = f._mm512_mul_ps(num, inv);
    let excess = f._mm512_fmsub_ps(q, den, num);
    let excess = f._mm512_sub_ps(f._mm512_fmadd_ps(q, den_lo, excess), num_lo);
    let v = f._mm512_fnmadd_ps(inv, excess, q);
    // ±0 gives itself (the sums above turn -0 into +0): `vfixupimmps` passes x on where it is a
    // zero (token 1 for the zero class, 2) and v elsewhere (token 0).
    let v = f._mm512_fixupimm_ps::<0>(v, x, f._mm512_set1_epi32(1 << 8));
    // The lanes past `FAST_LIMIT` alone take the float64 kernel: each lane's result depends on
    // its value only, never on its neighbours.
    let magnitude = simd.avx512dq._mm512_andnot_ps(c(-0.0), x);
    let far = f._mm512_cmp_ps_mask::<_CMP_GT_OQ>(magnitude, c(FAST_LIMIT));
    with_far_lanes(simd, far, v, x, tan16_through_f64)
}

slice_kernels! {
    /// `tan` of float32.
    Tan => tan16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::simd::avx512;
    use crate::cpu::vecmath_avx512::tests::{assert_bits, grid, run, worst_inside};
    use crate::cpu::vecmath_trig::tan_f32;

    fn exact_tan(x: f32) -> f32 {
        tan_f32::<false>(x as f64) as f32
    }

    #[test]
    fn tan_within_its_bound_on_both_paths_and_exact_at_the_edges() {
        let Some(simd) = avx512() else { return eprintln!("no AVX-512: skipped") };
        let x = grid();
        // Lanes past `FAST_LIMIT` take the float64 kernel (0.5000 ulp); past 2^24 its exact
        // reduction.
        let (e, at) = worst_inside("tan", &x, &run(&Tan(simd), &x), f64::tan, |x| x.abs() <= 16_777_216.0, exact_tan);
        assert!(e <= 0.51, "tan: {e} ulp at {at:e}");
        let edges = [0.0f32, -0.0, f32::from_bits(1), -f32::from_bits(1), 1e-20, f32::INFINITY, f32::NAN, 1e30, FAST_LIMIT];
        let want: Vec<f32> = edges.iter().map(|&v| exact_tan(v)).collect();
        assert_bits("tan", &edges, &run(&Tan(simd), &edges), &want);
    }
}
