//! Float32 log, log2 and log10 on AVX-512 lanes (pulp's wrappers of the intrinsics), beside
//! `vecmath_avx512`'s exp family and with its slice-kernel machinery. The float32-lane forms in
//! `vecmath_f32log` divide and pick among three centres with selects (about 45 instructions per
//! 16 elements); here `vgetmantps`/`vgetexpps` split x, and a 32-entry table read by
//! `vpermt2ps` gives a centre c close enough that log1p(m/c - 1) needs a degree-6 polynomial and
//! no division: about 33 instructions.
//!
//! x = m 2^e with m in [0.75, 1.5) (`vgetmantps`, subnormals included), and m's five leading
//! fraction bits index the table: 16 intervals of width 1/32 above 1, 16 of width 1/64 below.
//! Each interval's 1/c has few bits, so that r = m (1/c) - 1 is exact in one fused multiply-add,
//! and |r| <= 0.0206; the two intervals around 1 take c = 1, so that results near 0 are
//! r + log1p's tail with nothing to cancel. Then
//!   ln x = e ln2 + ln c + r - r^2/2 + r^3 Q(r),
//! the leading words of e ln2 and ln c (16 fraction bits each) add exactly, r and -r^2/2 join
//! them in two exact two-sums, and what is left rounds in float32 far below the result's last
//! bit: ln x in two words, within 2^-33 of it. log2 and log10 multiply those two words by the
//! constant in two words. Over every third float32 the largest errors are log 0.5002, log2
//! 0.5002, log10 0.5005 ulp (PyTorch 2.15 on the tests' grid: 0.516, 0.511, 0.504).
//!
//! Zeros, negative values, infinities and NaN get `vecmath_f32log`'s special values, set by mask.

use std::arch::x86_64::__m512;

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath_avx512::{pick32, slice_kernels};

/// 1/c of each interval of m (`tools/fit_avx512_tables.py`): multiples of 2^-5 or finer, chosen
/// (for each interval) with the most fraction bits that keep m (1/c) - 1 exact at both ends, and
/// the smallest |r| among those.
const INV_C: [f32; 32] = [
    1.0, 0.953125, 0.921875, 0.90625, 0.875, 0.8515625, 0.828125, 0.8125, 0.7890625, 0.7734375, 0.75, 0.734375, 0.71875, 0.703125, 0.6875,
    0.671875, 1.3125, 1.296875, 1.265625, 1.25, 1.21875, 1.203125, 1.171875, 1.15625, 1.125, 1.109375, 1.09375, 1.078125, 1.0625, 1.046875,
    1.03125, 1.0,
];
/// ln c, plus ln 2 for the intervals below 1 (there x = m 2^(e+1): `vgetexpps` gives e), in two
/// words: the first rounded to 16 fraction bits, the second the rest. The last entry (c = 1
/// below 1) is `LN2` itself, so that e ln2 + ln 2 cancels exactly at e = -1.
const LN_C_HI: [f32; 32] = [
    0.0,
    0.04800415,
    0.081344604,
    0.09843445,
    0.13352966,
    0.16067505,
    0.18859863,
    0.2076416,
    0.23690796,
    0.25691223,
    0.2876892,
    0.30873108,
    0.33024597,
    0.35221863,
    0.37469482,
    0.39768982,
    0.42121887,
    0.43319702,
    0.45758057,
    0.47000122,
    0.49531555,
    0.5082245,
    0.5345459,
    0.5479584,
    0.57536316,
    0.58935547,
    0.6035309,
    0.6179199,
    0.6325226,
    0.64733887,
    0.6623688,
    0.69314575,
];
const LN_C_LO: [f32; 32] = [
    0.0,
    5.068796e-6,
    1.0349618e-6,
    5.6245713e-6,
    1.7295386e-6,
    7.3328624e-6,
    -7.4630047e-6,
    -2.2367842e-6,
    1.788094e-6,
    -1.8176603e-6,
    -7.1365325e-6,
    4.4025483e-6,
    -4.284809e-6,
    1.9656597e-6,
    -1.3747773e-6,
    -6.8516697e-6,
    -5.406994e-6,
    -7.3653614e-6,
    5.4284095e-7,
    2.4085425e-6,
    5.885472e-6,
    3.5476126e-7,
    -3.7480543e-6,
    6.796692e-6,
    9.857239e-7,
    -5.0818717e-6,
    4.1380813e-6,
    3.8374474e-6,
    -2.4264303e-8,
    -1.2226589e-6,
    6.7474793e-6,
    1.4286068e-6,
];
/// ln 2 in two words, the first of 16 fraction bits: e LN2.0 + LN_C_HI is exact for |e| < 2^7.
const LN2: (f32, f32) = (0.69314575, 1.4286068e-6);
/// (log1p(r) - r + r^2/2) / r^3 on [-0.0206, 0.0313]: a minimax fit made for this module
/// (`tools/fit_avx512_tables.py`: Lawson's iteration over Chebyshev nodes, weighted by r^2, each
/// coefficient rounded to float32 before the next is fitted), within 2^-38 of log1p(r) relative
/// to r.
const Q: [f32; 4] = [0.3333333, -0.2500012, 0.20009772, -0.16367228];
/// log2(e) and log10(e) in two words.
const LOG2E: (f32, f32) = (std::f32::consts::LOG2_E, 1.925_963e-8);
const LOG10E: (f32, f32) = (std::f32::consts::LOG10_E, -1.010_305e-8);

/// ln x = hi + lo for positive finite x (normal or subnormal), |lo| below hi's last bit; other
/// lanes give meaningless values, which the callers replace.
#[inline(always)]
pub(crate) fn ln16_two_words(simd: V4, x: __m512) -> (__m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let m = f._mm512_getmant_ps::<{ std::arch::x86_64::_MM_MANT_NORM_P75_1P5 }, { std::arch::x86_64::_MM_MANT_SIGN_ZERO }>(x);
    let e = f._mm512_getexp_ps(x);
    // m's bits 22..18 (`vpermt2ps` reads an index's low five bits): its fraction's leading five.
    let index = f._mm512_srli_epi32::<18>(cast(m));
    let pick = |table: [f32; 32]| pick32(simd, index, &table);
    let r = f._mm512_fmsub_ps(m, pick(INV_C), c(1.0));
    // -r^2/2 = t + t_err exactly (-r/2 is exact).
    let half_r = f._mm512_mul_ps(r, c(-0.5));
    let t = f._mm512_mul_ps(r, half_r);
    let t_err = f._mm512_fmsub_ps(r, half_r, t);
    // r^3 Q(r) = (-2t) r Q(r): the -2 folded into the coefficients.
    let mut q = c(-2.0 * Q[3]);
    for k in Q[..3].iter().rev() {
        q = f._mm512_fmadd_ps(q, r, c(-2.0 * *k));
    }
    let tail = f._mm512_fmadd_ps(f._mm512_mul_ps(t, r), q, t_err);
    let base = f._mm512_fmadd_ps(e, c(LN2.0), pick(LN_C_HI));
    let base_lo = f._mm512_fmadd_ps(e, c(LN2.1), pick(LN_C_LO));
    // Two Fast2Sums: base is 0 or larger than |r| in exponent, and s1 larger than |t|.
    let s1 = f._mm512_add_ps(base, r);
    let e1 = f._mm512_add_ps(f._mm512_sub_ps(base, s1), r);
    let s2 = f._mm512_add_ps(s1, t);
    let e2 = f._mm512_add_ps(f._mm512_sub_ps(s1, s2), t);
    (s2, f._mm512_add_ps(f._mm512_add_ps(e1, e2), f._mm512_add_ps(base_lo, tail)))
}

/// (hi + lo) (k.0 + k.1), rounded once.
#[inline(always)]
fn times_two_words(simd: V4, (hi, lo): (__m512, __m512), k: (f32, f32)) -> __m512 {
    let f = simd.avx512f;
    let k0 = f._mm512_set1_ps(k.0);
    let p = f._mm512_mul_ps(hi, k0);
    let p_err = f._mm512_fmsub_ps(hi, k0, p);
    f._mm512_add_ps(p, f._mm512_fmadd_ps(hi, f._mm512_set1_ps(k.1), f._mm512_fmadd_ps(lo, k0, p_err)))
}

/// `v`, with the logarithms' special values (`vecmath_f32log`'s) where x is zero (-inf), +inf
/// (inf), negative or NaN (NaN): set in registers, as data with negative values or zeros is
/// common (a scalar loop over such vectors took twice PyTorch's time).
#[inline(always)]
fn with_special_lanes(simd: V4, x: __m512, v: __m512) -> __m512 {
    let (f, dq) = (simd.avx512f, simd.avx512dq);
    // vfpclassps: QNaN, +0, -0, +inf, -inf, negative finite, SNaN (all but positive subnormal).
    let special = dq._mm512_fpclass_ps_mask::<0xDF>(x);
    if special == 0 {
        return v;
    }
    let v = f._mm512_mask_mov_ps(v, special, f._mm512_set1_ps(f32::NAN));
    let v = f._mm512_mask_mov_ps(v, dq._mm512_fpclass_ps_mask::<0x06>(x), f._mm512_set1_ps(f32::NEG_INFINITY));
    f._mm512_mask_mov_ps(v, dq._mm512_fpclass_ps_mask::<0x08>(x), f._mm512_set1_ps(f32::INFINITY))
}

#[inline(always)]
fn log16(simd: V4, x: __m512) -> __m512 {
    let (hi, lo) = ln16_two_words(simd, x);
    with_special_lanes(simd, x, simd.avx512f._mm512_add_ps(hi, lo))
}

#[inline(always)]
fn log2_16(simd: V4, x: __m512) -> __m512 {
    with_special_lanes(simd, x, times_two_words(simd, ln16_two_words(simd, x), LOG2E))
}

#[inline(always)]
fn log10_16(simd: V4, x: __m512) -> __m512 {
    with_special_lanes(simd, x, times_two_words(simd, ln16_two_words(simd, x), LOG10E))
}

slice_kernels! {
    /// `log` of float32.
    Log => log16;
    /// `log2` of float32.
    Log2 => log2_16;
    /// `log10` of float32.
    Log10 => log10_16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::vecmath_avx512::tests::{grid, run, worst_inside};
    use crate::cpu::vecmath_f32log as f32log;

    /// The table's two promises: r = m (1/c) - 1 is exact over each interval (checked at its
    /// ends, where |r| is largest, against the bound that makes it exact), and the two words of
    /// ln c add up to it (plus ln 2 below 1).
    #[test]
    fn table_reductions_are_exact() {
        for j in 0..32 {
            let (lo, hi, ulp_m) = if j < 16 {
                (1.0 + j as f64 / 32.0, 1.0 + (j + 1) as f64 / 32.0, 2f64.powi(-23))
            } else {
                ((32 + j) as f64 / 64.0, (33 + j) as f64 / 64.0, 2f64.powi(-24))
            };
            let inv_c = INV_C[j] as f64;
            // 1/c a multiple of 2^-q: r a multiple of ulp_m 2^-q, exact below 2^24 of those.
            let q = (0..24).find(|&q| (inv_c * 2f64.powi(q)).fract() == 0.0).expect("few bits");
            let bound = 2f64.powi(24) * ulp_m * 2f64.powi(-q);
            let r_max = (lo * inv_c - 1.0).abs().max((hi * inv_c - 1.0).abs());
            assert!(r_max < bound && r_max <= 0.0313, "interval {j}: |r| up to {r_max}, exact below {bound}");
            let ln_c = -inv_c.ln() + if j >= 16 { std::f64::consts::LN_2 } else { 0.0 };
            assert_eq!((LN_C_HI[j] as f64 * 65536.0).fract(), 0.0, "interval {j}");
            assert!((LN_C_HI[j] as f64 + LN_C_LO[j] as f64 - ln_c).abs() < 2f64.powi(-40), "interval {j}");
        }
        assert_eq!((LN2.0 as f64 * 65536.0).fract(), 0.0);
        assert!((LN2.0 as f64 + LN2.1 as f64 - std::f64::consts::LN_2).abs() < 2f64.powi(-44));
        assert_eq!((LN_C_HI[31], LN_C_LO[31]), LN2);
    }

    #[test]
    fn log_log2_and_log10_within_their_bounds() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        let x = grid();
        type Case = (&'static str, fn(f64) -> f64, fn(f32) -> f32);
        let cases: [(Case, Vec<f32>); 3] = [
            (("log", f64::ln, f32log::log_f32), run(&Log(simd), &x)),
            (("log2", f64::log2, f32log::log2_f32), run(&Log2(simd), &x)),
            (("log10", f64::log10, f32log::log10_f32), run(&Log10(simd), &x)),
        ];
        for ((name, exact, scalar), got) in cases {
            // Zeros and negative values: the scalar kernel's special values.
            let (e, at) = worst_inside(name, &x, &got, exact, |x| x > 0.0 && x.is_finite(), scalar);
            // Bounds from an exhaustive run over every third float32 (0.5002, 0.5002, 0.5005).
            assert!(e <= 0.501, "{name}: {e} ulp at {at:e}");
        }
    }

    #[test]
    fn special_values_and_exact_results() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let specials = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -1.0, -1e-45, 1e-45, 1.0, f32::MAX, f32::MIN_POSITIVE];
        for (&x, ((l, l2), l10)) in
            specials.iter().zip(run(&Log(simd), &specials).into_iter().zip(run(&Log2(simd), &specials)).zip(run(&Log10(simd), &specials)))
        {
            assert!(same(l, f32log::log_f32(x)), "log({x:e}): {l:e}");
            assert!(same(l2, f32log::log2_f32(x)), "log2({x:e}): {l2:e}");
            assert!(same(l10, f32log::log10_f32(x)), "log10({x:e}): {l10:e}");
        }
        // Exact where the result is representable: powers of 2 for log2, of 10 for log10.
        let power_of_two = |k: i32| if k < -126 { f32::from_bits(1 << (k + 149)) } else { f32::from_bits(((k + 127) as u32) << 23) };
        let powers: Vec<f32> = (-149..128).map(power_of_two).collect();
        for (k, y) in (-149..128).zip(run(&Log2(simd), &powers)) {
            assert_eq!(y, k as f32, "log2(2^{k})");
        }
        let tens: Vec<f32> = (0..11).map(|k| 10f32.powi(k)).collect();
        for (k, y) in (0..11).zip(run(&Log10(simd), &tens)) {
            assert_eq!(y, k as f32, "log10(1e{k})");
        }
        assert!(run(&Log(simd), &[1.0])[0].is_sign_positive());
    }
}
