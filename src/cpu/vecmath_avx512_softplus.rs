//! Float32 softplus and log_sigmoid (-softplus(-x)) on AVX-512 lanes, forward and backward. The scalar path computed
//! log1p(exp(βx)) in float64 lanes (eight a vector, a float64 exp and log1p each: 0.85x
//! PyTorch); here sixteen lanes take log1p(exp(z)) = max(z, 0) + log1p(e), e = exp(-|z|), in
//! float32 words: e in two words (`vecmath_avx512::exp16_neg_two_words`), 1 + e = dh + dl in
//! two, ln dh in two (`vecmath_avx512_log::ln16_two_words`, within 2^-33), log1p(e) = ln dh +
//! dl/dh (|dl/dh| < 2^-24), or for e < 2^-12 its series to e^3, and the sum with max(z, 0) in
//! two words (Knuth's TwoSum), rounded once. Both terms have one sign: nothing
//! cancels. Then /β where β is not 1, as the scalar kernel (two roundings, as PyTorch's).
//!
//! Below `SOFTPLUS_FLOOR` (e's low word subnormal) lanes take the scalar kernel, so that each
//! result depends on its own value only. The kernels serve thresholds below infinity only
//! (softplus(+inf) is +inf by the linear part; the two-word sum would give NaN).

use std::arch::x86_64::{__m512, _CMP_GT_OQ};
use std::mem::MaybeUninit;

use pulp::x86::V4;

use crate::cpu::elementwise::SliceKernel;
use crate::cpu::vecmath::VecMath;
use crate::cpu::vecmath_avx512::{
    below, exp16_neg_two_words, scalar_lanes, sigmoid16, with_scalar_below, Each16, Each16InPlace, Lanes, ZipLanes,
};
use crate::cpu::vecmath_avx512_gelu::two_sum;
use crate::cpu::vecmath_avx512_log::ln16_two_words;

/// Below this βx (e = exp(βx) with its low word subnormal) the lanes take the scalar kernel.
const SOFTPLUS_FLOOR: f32 = -64.0;

/// log1p(exp(z)) of 16 lanes z >= `SOFTPLUS_FLOOR`, finite or NaN.
#[inline(always)]
fn log1p_exp16(simd: V4, z: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let one = c(1.0);
    // From |z| = 87 on, e = exp(-87) changes no result; NaN flows through `min`'s second operand.
    let a = f._mm512_min_ps(c(87.0), simd.avx512dq._mm512_andnot_ps(c(-0.0), z));
    let (eh, el) = exp16_neg_two_words(simd, a);
    // 1 + e = dh + dl, dl below dh's last bit (Fast2Sum: eh <= 1).
    let dh = f._mm512_add_ps(one, eh);
    let dl = f._mm512_add_ps(f._mm512_add_ps(f._mm512_sub_ps(one, dh), eh), el);
    let (lh, ll) = ln16_two_words(simd, dh);
    // log1p(e) = ln dh + dl/dh (|dl/dh| < 2^-24: its square is below 2^-37 of the result).
    let low = f._mm512_add_ps(ll, f._mm512_div_ps(dl, dh));
    // Below e = 2^-12 the roundings of dl/dh and of that sum (2^-48 each) come near a unit of
    // the result (log1p(e) ~ e): there log1p(e) = e (1 - e/2 + e^2/3) to 2^-38, from e's words.
    let tiny = f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LT_OQ }>(eh, c(1.0 / 4096.0));
    let series = f._mm512_fmadd_ps(f._mm512_mul_ps(eh, eh), f._mm512_fmadd_ps(eh, c(1.0 / 3.0), c(-0.5)), el);
    let (lh, low) = (f._mm512_mask_blend_ps(tiny, lh, eh), f._mm512_mask_blend_ps(tiny, low, series));
    // max(0, z) keeps a NaN z (the second operand).
    let (s, s_err) = two_sum(simd, f._mm512_max_ps(c(0.0), z), lh);
    f._mm512_add_ps(s, f._mm512_add_ps(s_err, low))
}

/// The scalar kernel of lanes below the floor: `log1p(exp(z))` as the element kernel computes it.
fn log1p_exp_f32(z: f32) -> f32 {
    z.v_log1p_exp()
}

/// `softplus(x) = x` where βx > threshold, else log1p(exp(βx)) / β, for float32 slices; β and the
/// threshold as float32 (the element kernel's rounding) and the threshold finite.
#[derive(Clone, Copy)]
pub struct Softplus {
    pub simd: V4,
    pub beta: f32,
    pub threshold: f32,
}

impl Lanes for Softplus {
    #[inline(always)]
    fn lanes(self, simd: V4, x: __m512) -> __m512 {
        let f = simd.avx512f;
        let unit = self.beta == 1.0;
        let z = if unit { x } else { f._mm512_mul_ps(x, f._mm512_set1_ps(self.beta)) };
        let v = log1p_exp16(simd, z);
        let v = with_scalar_below(simd, z, v, SOFTPLUS_FLOOR, log1p_exp_f32);
        let v = if unit { v } else { f._mm512_div_ps(v, f._mm512_set1_ps(self.beta)) };
        let linear = f._mm512_cmp_ps_mask::<_CMP_GT_OQ>(z, f._mm512_set1_ps(self.threshold));
        f._mm512_mask_blend_ps(linear, v, x)
    }
}

impl SliceKernel<f32> for Softplus {
    fn map(&self, x: &[f32], out: &mut [MaybeUninit<f32>]) {
        self.simd.vectorize(Each16 { simd: self.simd, f: *self, x, out })
    }
    fn map_in_place(&self, x: &mut [f32]) {
        self.simd.vectorize(Each16InPlace { simd: self.simd, f: *self, x })
    }
}

/// `log_sigmoid(x) = -log1p(exp(-x))` for float32 slices: `log1p_exp16` of -x, negated; x above
/// -`SOFTPLUS_FLOOR` and x = -inf take the scalar kernel.
#[derive(Clone, Copy)]
pub struct LogSigmoid(pub V4);

impl Lanes for LogSigmoid {
    #[inline(always)]
    fn lanes(self, simd: V4, x: __m512) -> __m512 {
        let (f, dq) = (simd.avx512f, simd.avx512dq);
        let sign = f._mm512_set1_ps(-0.0);
        let z = dq._mm512_xor_ps(x, sign);
        let v = dq._mm512_xor_ps(log1p_exp16(simd, z), sign);
        // vfpclassps 0x08: +inf.
        let far = below(simd, z, SOFTPLUS_FLOOR) | dq._mm512_fpclass_ps_mask::<0x08>(z);
        if far == 0 {
            v
        } else {
            scalar_lanes(x, v, far, log_sigmoid_f32)
        }
    }
}

impl SliceKernel<f32> for LogSigmoid {
    fn map(&self, x: &[f32], out: &mut [MaybeUninit<f32>]) {
        self.0.vectorize(Each16 { simd: self.0, f: *self, x, out })
    }
    fn map_in_place(&self, x: &mut [f32]) {
        self.0.vectorize(Each16InPlace { simd: self.0, f: *self, x })
    }
}

/// The element kernel of log_sigmoid (the lanes `LogSigmoid` leaves out).
fn log_sigmoid_f32(x: f32) -> f32 {
    x.v_log_sigmoid()
}

/// softplus's backward, `g` where βx > threshold, else g sigmoid(βx) (the element kernel's
/// formula, sigmoid from `vecmath_avx512`); with β = -1 and no threshold, log_sigmoid's.
#[derive(Clone, Copy)]
pub struct SoftplusGrad {
    pub beta: f32,
    pub threshold: f32,
}

impl ZipLanes for SoftplusGrad {
    #[inline(always)]
    fn lanes(self, simd: V4, g: __m512, x: __m512) -> __m512 {
        let f = simd.avx512f;
        let z = f._mm512_mul_ps(x, f._mm512_set1_ps(self.beta));
        let slope = f._mm512_mul_ps(g, sigmoid16(simd, z));
        let linear = f._mm512_cmp_ps_mask::<_CMP_GT_OQ>(z, f._mm512_set1_ps(self.threshold));
        f._mm512_mask_blend_ps(linear, slope, g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::vecmath_avx512::tests::{grid, run, worst_inside};
    use crate::cpu::vecmath_avx512::Sigmoid;

    fn softplus_f32(x: f32, beta: f32, threshold: f32) -> f32 {
        if x * beta > threshold {
            x
        } else {
            (x * beta).v_log1p_exp() / beta
        }
    }

    /// Within 0.55 units of log1p(exp(x)) in float64 over the grid (0.534 at worst, where the
    /// result is e^x itself: `vecmath_avx512`'s exp, within 0.547; the float64-lane scalar kernel
    /// 0.51, PyTorch 2.15's 1.50), and the scalar kernel's bits below the floor.
    #[test]
    fn softplus_within_its_bound() {
        let Some(simd) = crate::cpu::simd::avx512() else { return eprintln!("no AVX-512: skipped") };
        let x = grid();
        let got = run(&Softplus { simd, beta: 1.0, threshold: 20.0 }, &x);
        let exact = |x: f64| if x > 20.0 { x } else { x.max(0.0) + (-x.abs()).exp().ln_1p() };
        let (e, at) = worst_inside("softplus", &x, &got, exact, |x| x >= SOFTPLUS_FLOOR, |x| softplus_f32(x, 1.0, 20.0));
        assert!(e <= 0.55, "softplus: {e} ulp at {at:e}");
        for v in [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 20.0, 20.000002, -64.0, -63.99, 1e-30, -1e-30] {
            let (got, want) = (run(&Softplus { simd, beta: 1.0, threshold: 20.0 }, &[v])[0], softplus_f32(v, 1.0, 20.0));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()) || (got - want).abs() <= want.abs() * 1.2e-7,
                "softplus({v:e}): {got:e}, want {want:e}"
            );
        }
    }

    /// Another β and threshold: the element kernel's formula, within one rounding of the division.
    #[test]
    fn softplus_with_beta_follows_the_element_kernel() {
        let Some(simd) = crate::cpu::simd::avx512() else { return eprintln!("no AVX-512: skipped") };
        let (beta, threshold) = (2.5f32, 7.0f32);
        let x: Vec<f32> = (-4000..4000).map(|i| i as f32 * 0.0137).chain([f32::INFINITY, f32::NEG_INFINITY, -100.0]).collect();
        let got = run(&Softplus { simd, beta, threshold }, &x);
        for (&x, &y) in x.iter().zip(&got) {
            let want = softplus_f32(x, beta, threshold);
            assert!(y == want || (y - want).abs() <= want.abs() * 2.4e-7, "softplus({x:e}; beta {beta}): {y:e}, want {want:e}");
        }
    }

    /// log_sigmoid: within 0.55 units of min(x, 0) - log1p(exp(-|x|)) in float64 (softplus's
    /// bound), the scalar kernel's bits past 64 and at -inf.
    #[test]
    fn log_sigmoid_within_its_bound() {
        let Some(simd) = crate::cpu::simd::avx512() else { return eprintln!("no AVX-512: skipped") };
        let x = grid();
        let got = run(&LogSigmoid(simd), &x);
        let exact = |x: f64| x.min(0.0) - (-x.abs()).exp().ln_1p();
        let (e, at) = worst_inside("log_sigmoid", &x, &got, exact, |x| x <= -SOFTPLUS_FLOOR && x > f32::NEG_INFINITY, log_sigmoid_f32);
        assert!(e <= 0.55, "log_sigmoid: {e} ulp at {at:e}");
    }

    #[test]
    fn softplus_grad_is_g_sigmoid_or_g() {
        let Some(simd) = crate::cpu::simd::avx512() else { return eprintln!("no AVX-512: skipped") };
        let (beta, threshold) = (1.5f32, 10.0f32);
        let x: Vec<f32> = (-3000..3000).map(|i| i as f32 * 0.031).chain([f32::INFINITY, f32::NEG_INFINITY, f32::NAN]).collect();
        let g: Vec<f32> = (0..x.len()).map(|i| 0.5 + (i % 5) as f32 * 0.25).collect();
        let mut out = vec![MaybeUninit::uninit(); x.len()];
        SoftplusGrad { beta, threshold }.zip_into(simd, &g, &x, &mut out);
        // g s with s `Sigmoid`'s float32 result for βx (its accuracy tested with it), bit for bit.
        let z: Vec<f32> = x.iter().map(|&x| x * beta).collect();
        let s = run(&Sigmoid(simd), &z);
        for (((&x, &g), o), (&z, &s)) in x.iter().zip(&g).zip(out).zip(z.iter().zip(&s)) {
            let got = unsafe { o.assume_init() };
            let want = if z > threshold { g } else { g * s };
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "softplus'({x}): {got}, want {want}");
        }
    }
}
