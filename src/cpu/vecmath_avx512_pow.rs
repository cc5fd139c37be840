//! Float32 pow on AVX-512 lanes. The scalar `binary_math::pow_f32` works in float64 lanes
//! (eight a vector, a float64 log and exp each), which ran at 0.72x PyTorch; here sixteen lanes
//! take x^y = exp(y ln|x|) in float32 words: ln|x| in two words (`vecmath_avx512_log`), its
//! product with y in two words (the leading product's rounding error from one fused
//! multiply-add), and exp with that low word added to its reduced argument
//! (`vecmath_avx512::exp16_parts_with_low`). A negative base with an integer exponent takes the
//! sign of an odd one.
//!
//! Accuracy: ln|x|'s two words are within 2^-33 of it, so y ln|x| is within 88 x 2^-33 where
//! the result is finite, at most 0.17 of a float32 unit on top of exp's own 0.55 (the test's
//! grid: 0.553; PyTorch 2.15's float32 pow, a SLEEF kernel, bounds its error by 1.0).
//!
//! Lanes the fast form does not cover take `pow_f32` out of line, so that each result depends
//! on its own operands only: a base that is zero, infinite or NaN, an exponent infinite or NaN,
//! a negative base with a non-integer exponent (NaN), and y ln|x| outside [-87, 88] (results
//! subnormal, zero or overflowing).

use std::mem::MaybeUninit;

use std::arch::x86_64::{__m512, _CMP_EQ_OQ, _CMP_GE_OQ, _CMP_LE_OQ, _CMP_LT_OQ, _MM_FROUND_NO_EXC, _MM_FROUND_TO_ZERO};

use pulp::x86::V4;

use crate::cpu::binary_math::pow_f32;
use crate::cpu::elementwise::SliceKernel;
use crate::cpu::vecmath_avx512::{exp16_parts_with_low, scalar_lanes2, Each16, Each16InPlace, Lanes, ZipLanes};
use crate::cpu::vecmath_avx512_log::ln16_two_words;
use crate::cpu::vecmath_f32::EXP_NORMAL_FLOOR;

/// Above this y ln|x| the fast form leaves the lane to `pow_f32` (e^88 is below float32's max).
const FAST_CEILING: f32 = 88.0;

/// x^y of 16 lanes.
#[inline(always)]
fn pow16(simd: V4, x: __m512, y: __m512) -> __m512 {
    let (f, dq) = (simd.avx512f, simd.avx512dq);
    let c = |v: f32| f._mm512_set1_ps(v);
    let (hi, lo) = ln16_two_words(simd, f._mm512_abs_ps(x));
    let p = f._mm512_mul_ps(y, hi);
    let p_low = f._mm512_fmadd_ps(y, lo, f._mm512_fmsub_ps(y, hi, p));
    // Lanes outside [-87, 88] get meaningless values here, replaced below.
    let (e_hi, e_lo, scale) = exp16_parts_with_low(simd, p, Some(p_low));
    let v = f._mm512_scalef_ps(f._mm512_add_ps(e_hi, e_lo), scale);
    // A negative base: an odd integer exponent negates, any other non-integer is NaN's lane.
    const TRUNC: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    let negative = f._mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, c(0.0));
    let integer = f._mm512_cmp_ps_mask::<_CMP_EQ_OQ>(f._mm512_roundscale_ps::<TRUNC>(y), y);
    let half = f._mm512_mul_ps(y, c(0.5));
    let even = f._mm512_cmp_ps_mask::<_CMP_EQ_OQ>(f._mm512_roundscale_ps::<TRUNC>(half), half);
    let v = f._mm512_mask_sub_ps(v, negative & integer & !even, c(0.0), v);
    // vfpclassps: QNaN, +-0, +-inf, SNaN (0x9F); of y, QNaN, +-inf, SNaN (0x99).
    let special = dq._mm512_fpclass_ps_mask::<0x9F>(x) | dq._mm512_fpclass_ps_mask::<0x99>(y);
    let in_range = f._mm512_cmp_ps_mask::<_CMP_GE_OQ>(p, c(EXP_NORMAL_FLOOR)) & f._mm512_cmp_ps_mask::<_CMP_LE_OQ>(p, c(FAST_CEILING));
    let scalar = special | (negative & !integer) | !in_range;
    if scalar == 0 {
        v
    } else {
        scalar_lanes2(x, y, v, scalar, pow_f32)
    }
}

/// `pow` of float32 slices.
#[derive(Clone, Copy)]
pub struct Pow;

impl ZipLanes for Pow {
    #[inline(always)]
    fn lanes(self, simd: V4, x: __m512, y: __m512) -> __m512 {
        pow16(simd, x, y)
    }
}

/// `pow` of float32 values by one exponent (`x ** 2.5`).
#[derive(Clone, Copy)]
pub struct PowBy(pub V4, pub f32);

impl Lanes for PowBy {
    #[inline(always)]
    fn lanes(self, simd: V4, x: __m512) -> __m512 {
        pow16(simd, x, simd.avx512f._mm512_set1_ps(self.1))
    }
}

impl SliceKernel<f32> for PowBy {
    fn map(&self, x: &[f32], out: &mut [MaybeUninit<f32>]) {
        self.0.vectorize(Each16 { simd: self.0, f: *self, x, out })
    }
    fn map_in_place(&self, x: &mut [f32]) {
        self.0.vectorize(Each16InPlace { simd: self.0, f: *self, x })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::binary_math::tests::{bits, same32, specials32};

    fn pow_of(simd: V4, x: &[f32], y: &[f32]) -> Vec<f32> {
        let mut out = vec![std::mem::MaybeUninit::uninit(); x.len()];
        Pow.zip_into(simd, x, y, &mut out);
        out.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    /// Error of `got` against float64 pow in float32 units; None where `pow_f32` must be met bit
    /// for bit (special operands, results that are not normal float32 numbers).
    fn units(x: f32, y: f32, got: f32) -> Option<f64> {
        let want = (x as f64).powf(y as f64);
        let want32 = want as f32;
        if !x.is_finite() || x == 0.0 || !y.is_finite() || !want32.is_normal() {
            assert!(same32(got, pow_f32(x, y)), "pow({x:e}, {y:e}) = {got:e}, pow_f32 {:e}", pow_f32(x, y));
            return None;
        }
        let unit = (f32::from_bits(want32.abs().to_bits() + 1) - want32.abs()) as f64;
        Some((got as f64 - want).abs() / unit)
    }

    /// Special operands and results that are not normal numbers give `pow_f32`'s bits; elsewhere
    /// the result is within 0.6 of a unit of float64 pow, over the special values' pairs, bases
    /// of every magnitude and sign, exponents that keep most results finite, bases near 1 with
    /// large exponents (where ln|x|'s low word matters most) and results near the fast form's
    /// upper edge.
    #[test]
    fn pow_matches_the_scalar_kernel_on_specials_and_is_accurate_elsewhere() {
        let Some(simd) = crate::cpu::simd::avx512() else { return eprintln!("no AVX-512: skipped") };
        let s = specials32();
        let (mut xs, mut ys): (Vec<f32>, Vec<f32>) = s.iter().flat_map(|&a| s.iter().map(move |&b| (a, b))).unzip();
        for w in bits(400_000, 11).collect::<Vec<_>>().chunks(2) {
            let x = f32::from_bits(w[0] as u32 & 0x7FFF_FFFF);
            let y = ((w[1] >> 11) as f64 / (1u64 << 53) as f64 * 64.0 - 32.0) as f32;
            let near_one = 1.0 + (((w[0] >> 40) as f32) / (1u64 << 24) as f32 - 0.5) * 1e-3;
            xs.extend([x, -x, near_one, x]);
            ys.extend([y, y.round(), y * 4096.0, 88.0 / (x as f64).ln() as f32]);
        }
        let got = pow_of(simd, &xs, &ys);
        let mut worst: f64 = 0.0;
        for ((&x, &y), &g) in xs.iter().zip(&ys).zip(&got) {
            if let Some(err) = units(x, y, g) {
                assert!(err <= 0.6, "pow({x:e}, {y:e}) = {g:e}: {err} units");
                worst = worst.max(err);
            }
        }
        // By one exponent: the same lanes.
        for y in [2.5f32, -1.75, 0.3, 7.0, f32::INFINITY, f32::NAN] {
            let mut by = vec![MaybeUninit::uninit(); xs.len()];
            PowBy(simd, y).map(&xs, &mut by);
            let want = pow_of(simd, &xs, &vec![y; xs.len()]);
            for ((&x, b), w) in xs.iter().zip(by).zip(want) {
                assert!(same32(unsafe { b.assume_init() }, w), "pow({x:e}, {y:e})");
            }
        }
        eprintln!("pow: worst {worst:.4} units");
    }
}
