//! Float32 erfc on AVX-512 lanes from a fine grid: erfc(a0) and its slope at a0 = n/128 (one pair
//! of words per point, read by two `vgatherdps`), and the step to a = |x| as an integral whose
//! integrand is smooth and near 1:
//!
//!   erfc(a0 + r) = erfc(a0) - (2/√π) e^(-a0²) S,  S = ∫0^r e^(-2 a0 s - s²) ds
//!                = erfc(a0) - slope r (G0(t) - r² G2(t)),  t = a0 r, |r| <= 1/256,
//!
//! with G0(t) = (1 - e^(-2t)) / (2t) a cubic and G2(t) = ∫0^1 u² e^(-2tu) du ≈ 1/3 - t/2. The
//! step is under 1/16 of erfc(a0), so its roundings count for little; erfc(a0) is the float32
//! nearest plus what that leaves (a 6-bit code in the slope's word, whose 26 other bits hold
//! the slope relative to erfc(a0)'s exponent), and the one rounding at the result's size is the
//! last sum. For x < 0, 2 - erfc(a) with 2 - erfc(a0) in two words, so that it too rounds once.
//! About 45 instructions per 16 lanes, where the log-erfcx form of `vecmath_avx512_gelu` (two
//! interval widths, eight table picks, an exp in two words) takes about 80.
//!
//! Lanes from a = 8 on (results under 2^-96, subnormal from 9.19) and NaN take that form.

use std::arch::x86_64::{__m512, __m512i, _CMP_NLT_UQ};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath_avx512::{slice_kernels, with_far_lanes};
use crate::cpu::vecmath_avx512_erfc_tables::{GRID, P};
use crate::cpu::vecmath_avx512_gelu::erfc16_through_log_erfcx;

/// The grid's end: from here on (and NaN) lanes take the log-erfcx form.
const GRID_END: f32 = 8.0;
/// 1.5 2^16: a + it holds a rounded to a multiple of 1/128, and n in its low mantissa bits.
const GRID_SHIFTER: f32 = 98_304.0;
/// The scale of erfc(a0)'s second word's code: what erfc(a0)'s float32 leaves, relative, in units
/// of 2^-28 (|code| <= 16, so its quantum costs at most 2^-29 relative).
const CODE_UNIT: f32 = 1.0 / 268_435_456.0;

/// erfc of 16 lanes.
#[inline(always)]
fn erfc16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let ints = |v: u32| f._mm512_set1_epi32(v as i32);
    let sign = simd.avx512dq._mm512_and_ps(x, c(-0.0));
    let t = simd.avx512dq._mm512_xor_ps(x, sign);
    // minps gives its second operand for NaN: NaN lanes read the last point (and are replaced).
    let a = f._mm512_min_ps(t, c(GRID_END));
    // a0 = n/128 nearest a, r = a - a0 exact (|r| <= 1/256, a multiple of a's ulp).
    let k = f._mm512_add_ps(a, c(GRID_SHIFTER));
    let a0 = f._mm512_sub_ps(k, c(GRID_SHIFTER));
    let r = f._mm512_sub_ps(a, a0);
    let n: __m512i = f._mm512_sub_epi32(cast(k), ints(GRID_SHIFTER.to_bits()));
    // SAFETY: a is in [0, 8], so n is in [0, 1024] and the words 2n and 2n + 1 read (8 bytes per
    // index, the second read one word on) lie inside GRID's 2050.
    let (high, word): (__m512, __m512i) = unsafe {
        let base = GRID.as_ptr();
        (
            std::arch::x86_64::_mm512_i32gather_ps::<8>(n, base.cast::<f32>()),
            std::arch::x86_64::_mm512_i32gather_epi32::<8>(n, base.add(1).cast::<i32>()),
        )
    };
    // The slope's bits are its 26 low bits plus erfc(a0)'s exponent field; the top six are the
    // code of erfc(a0)'s second word, a signed integer.
    let exponent = f._mm512_and_si512(cast(high), ints(0x7F80_0000));
    let slope: __m512 = cast(f._mm512_add_epi32(f._mm512_and_si512(word, ints(0x03FF_FFFF)), exponent));
    let code = f._mm512_cvtepi32_ps(f._mm512_srai_epi32::<26>(word));
    // S/r = 1 - w: w = t - t² (P0 + P1 t) + r² G2(t), G0 = 1 - t + t² (P0 + P1 t), G2 = 1/3 - t/2.
    let ar = f._mm512_mul_ps(a0, r);
    let g2 = f._mm512_fmadd_ps(ar, c(-0.5), c(1.0 / 3.0));
    let w = f._mm512_fnmadd_ps(f._mm512_mul_ps(ar, ar), f._mm512_fmadd_ps(ar, c(P[1]), c(P[0])), ar);
    let w = f._mm512_fmadd_ps(f._mm512_mul_ps(r, r), g2, w);
    // erfc(a) = high - p + small: p = slope r (under 1/16 of high) in two words, exactly, and
    // small = p w + erfc(a0)'s second word (under 1/500 of high), whose roundings are negligible.
    // x < 0 takes 2 - high + p - small: high and r change sign there, and p and small with them.
    let high = simd.avx512dq._mm512_xor_ps(high, sign);
    let r = simd.avx512dq._mm512_xor_ps(r, sign);
    let p = f._mm512_mul_ps(slope, r);
    let p_lo = f._mm512_fmsub_ps(slope, r, p);
    let small = f._mm512_fmadd_ps(f._mm512_mul_ps(high, code), c(CODE_UNIT), f._mm512_fmsub_ps(p, w, p_lo));
    // Each sum of two words is exact: base + high as d + e (base = 0 gives e = 0; base = 2 >=
    // high), then d - p as d2 + e2 (|d| >= high > |p|), so the one rounding at the result's size
    // is the last. `base` is 2 where the sign is set (its bit shifted onto 2's exponent), else 0.
    let base: __m512 = cast(f._mm512_srli_epi32::<1>(cast(sign)));
    let d = f._mm512_add_ps(base, high);
    let e = f._mm512_add_ps(f._mm512_sub_ps(base, d), high);
    let d2 = f._mm512_sub_ps(d, p);
    let e2 = f._mm512_sub_ps(f._mm512_sub_ps(d, d2), p);
    let v = f._mm512_add_ps(d2, f._mm512_add_ps(f._mm512_add_ps(e, e2), small));
    let far = f._mm512_cmp_ps_mask::<_CMP_NLT_UQ>(t, c(GRID_END));
    with_far_lanes(simd, far, v, x, erfc16_through_log_erfcx)
}

slice_kernels! {
    /// `erfc` of float32.
    Erfc => erfc16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::simd::avx512;
    use crate::cpu::vecmath::VecMath;
    use crate::cpu::vecmath_avx512::tests::{assert_bits, grid, run, worst_inside};

    #[test]
    fn erfc_within_its_bound_on_the_grid_and_past_it() {
        let Some(simd) = avx512() else { return eprintln!("no AVX-512: skipped") };
        let x = grid();
        // Past 9.125 (and NaN) the log-erfcx form takes the scalar kernel's bits.
        let (e, at) = worst_inside("erfc", &x, &run(&Erfc(simd), &x), libm::erfc, |x| x.abs() < 9.125, <f32 as VecMath>::v_erfc);
        assert!(e <= 0.6, "erfc: {e} ulp at {at:e}");
        let edges = [0.0f32, -0.0, f32::from_bits(1), -f32::from_bits(1), 10.5, -10.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
        let want: Vec<f32> = edges.iter().map(|&v| libm::erfc(v as f64) as f32).collect();
        assert_bits("erfc", &edges, &run(&Erfc(simd), &edges), &want);
    }

    #[test]
    fn each_lane_takes_its_own_path() {
        let Some(simd) = avx512() else { return eprintln!("no AVX-512: skipped") };
        let values = [0.3f32, -1.7, 3.9, -3.94, 8.5, -11.0, 9.5, f32::NAN, -0.0, 2.0, -20.0, 1e-30, -7.25, 7.999, -3.0, 12.5];
        let together = run(&Erfc(simd), &values);
        for (x, y) in values.iter().zip(&together) {
            let alone = run(&Erfc(simd), &[*x])[0];
            assert!(alone.to_bits() == y.to_bits() || (alone.is_nan() && y.is_nan()), "erfc({x:e}): {y:e} beside others, {alone:e} alone");
        }
    }
}
