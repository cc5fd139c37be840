//! Float32 transcendental functions on float32 lanes (issue 23 item 2): exp and the activations
//! made of it (sigmoid, silu, gelu's tanh form). `vecmath` computes float32 in float64 lanes
//! (half as many per vector, 0.50 ulp); these keep float32 lanes and carry the few bits that
//! float32 arithmetic would lose in a second word, so exp stays within 0.55 ulp (PyTorch 2.15's
//! own float32 exp: 0.57 on tests/fixtures/vecmath_f32grid.json's grid).
//!
//! Like `vecmath`, every function is branch-free (each `if` picks between computed values, which
//! LLVM turns into selects), so the unary kernels' loops vectorise inside pulp's dispatch: 16
//! lanes on AVX-512, 8 on AVX2.

/// 1.5 * 2^23: adding it rounds a float32 below 2^22 to an integer held in the low mantissa bits.
const SHIFTER: f32 = 12582912.0;
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two words: the first has 16 significant bits, so n * LN2_HI is exact for |n| < 2^8.
const LN2_HI: f32 = 0.693_145_75; // 0.693145751953125 exactly
const LN2_LO: f32 = 1.4286068e-6;
/// 2^-64: scales 2^(k + 64) down to a subnormal 2^k exactly.
const TWO_M64: f32 = 5.421011e-20;
/// 1/k! for k = 3..=8: exp's Taylor series past r^2/2 on |r| <= ln2/2 (r^9/9! < 2^-31).
const EXP_TAIL: [f32; 6] = [1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0];

/// `c[0] + c[1] x + ...` by Horner's rule with fused multiply-adds.
#[inline(always)]
fn poly(x: f32, c: &[f32]) -> f32 {
    let mut p = c[c.len() - 1];
    for &k in c[..c.len() - 1].iter().rev() {
        p = p.mul_add(x, k);
    }
    p
}

/// 2^k for an integer `k` in [-126, 127] (the bits of the float).
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// `exp(x)`, within 0.55 ulp everywhere, subnormal results included.
///
/// x = n ln2 + r + rl with |r| <= ln2/2 and rl the rounding error of r, exp(x) = 2^n P with
/// P = exp(r) (1 + rl) = hi + tail: hi = 1 + r rounded, everything else (1 + r's rounding error,
/// r^2/2 with r^2's own error, the series from r^3, rl) summed into the small tail, so only the
/// last addition rounds at P's scale. A subnormal result would round twice (P, then P 2^n), so
/// there hi is first rounded onto the subnormal grid (exact in 2^n) and the remainder added with
/// the one final rounding of a fused multiply-add.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    // Comparisons rather than min/max: a NaN fails both and is put back at the end.
    let xc = if x < -104.0 { -104.0 } else { x };
    let xc = if xc > 89.0 { 89.0 } else { xc };
    let t = xc.mul_add(LOG2E, SHIFTER);
    let n = t - SHIFTER;
    let r1 = (-n).mul_add(LN2_HI, xc); // exact
    let r = (-n).mul_add(LN2_LO, r1);
    let rl = (-n).mul_add(LN2_LO, r1 - r);
    let hi = 1.0 + r;
    let lo = (1.0 - hi) + r;
    let r2 = r * r;
    let r2l = r.mul_add(r, -r2);
    // exp(r) rl ~ (1 + r + r^2/2) rl.
    let small = (r2 * r).mul_add(poly(r, &EXP_TAIL), 0.5f32.mul_add(r2l, rl.mul_add(0.5f32.mul_add(r2, hi), lo)));
    let tail = 0.5f32.mul_add(r2, small);
    let i = (t.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32); // n, in [-150, 129]
                                                                         // 2^n in two factors, so that neither overflows nor underflows.
    let h = i >> 1;
    let normal = (hi + tail) * pow2(h) * pow2(i - h);
    // Subnormal (and the smallest normal) results: P/2 2^k with k = n + 1 in [-149, -125];
    // g is hi/2 rounded to multiples of 2^(-149 - k), by adding 1.5 2^(-126 - k). Other lanes
    // take k = 0, which keeps them clear of subnormal arithmetic (microcode-slow on x86: with
    // k = -125 there, exp over [-10, 10] ran 6x slower).
    let k = if i < -125 { i + 1 } else { 0 };
    let sk = pow2(k + 64) * TWO_M64;
    let c = f32::from_bits(pow2(-126 - k).to_bits() | 0x0040_0000);
    let hh = 0.5 * hi;
    let g = (hh + c) - c;
    let sub = 0.5f32.mul_add(tail, hh - g).mul_add(sk, g * sk);
    let v = if i < -125 { sub } else { normal };
    if x.is_nan() {
        x
    } else {
        v
    }
}

/// `1 / (1 + exp(-x))`.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// `x sigmoid(x)`.
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    x / (1.0 + exp(-x))
}

/// `gelu(x, approximate='tanh') = x sigmoid(2u)`, u = sqrt(2/pi) (x + 0.044715 x^3).
#[inline(always)]
pub fn gelu_tanh(x: f32) -> f32 {
    const K: f32 = 0.797_884_6; // sqrt(2/pi)
    let u = K * x.mul_add(0.044715 * x * x, x);
    x / (1.0 + exp(-2.0 * u))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance of `got` from `want` in float32 ulps at `want` (as `vecmath`'s tests measure).
    fn ulps32(got: f32, want: f64) -> f64 {
        if want.is_nan() {
            return if got.is_nan() { 0.0 } else { f64::INFINITY };
        }
        let w = want as f32;
        if w.is_infinite() || got.is_infinite() {
            return if got == w { 0.0 } else { f64::INFINITY };
        }
        let e = (((want.abs().to_bits() >> 52) as i32) - 1023).max(-126);
        (got as f64 - want).abs() / 2f64.powi(e - 23)
    }

    fn worst(f: impl Fn(f32) -> f32, reference: impl Fn(f64) -> f64, xs: impl Iterator<Item = f32>) -> (f64, f32) {
        let mut w = (0.0f64, 0.0f32);
        for x in xs {
            let e = ulps32(f(x), reference(x as f64));
            if e.is_nan() || e > w.0 {
                w = (e, x);
            }
        }
        w
    }

    // PyTorch 2.15's float32 exp measures 0.570 ulp on the grid of tests/fixtures/vecmath_f32grid.json
    // and 0.557 over every float32 in [-104, -80] (subnormal results).
    const EXP_BOUND: f64 = 0.556;

    #[test]
    fn exp_within_pytorchs_error_over_a_dense_sweep() {
        // Every 211th float32 of both signs, and every float32 whose exp is subnormal.
        let sweep = (0..0x7F80_0000u32).step_by(211).flat_map(|b| [f32::from_bits(b), -f32::from_bits(b)]);
        let sub = (87.0f32.to_bits()..104.5f32.to_bits()).map(|b| -f32::from_bits(b));
        let (e, at) = worst(exp, f64::exp, sweep.chain(sub));
        eprintln!("exp f32 native: max {e:.4} ulp at {at:e}");
        assert!(e <= EXP_BOUND, "exp: {e} ulp at {at:e}");
    }

    #[test]
    fn exp_special_values() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert!(exp(f32::NAN).is_nan());
        assert_eq!(exp(89.0), f32::INFINITY);
        assert_eq!(exp(-103.5), 1e-45);
        assert_eq!(exp(-104.0), 0.0);
        assert_eq!(exp(1e-45), 1.0);
        assert_eq!(sigmoid(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid(f32::INFINITY), 1.0);
        assert_eq!(silu(f32::INFINITY), f32::INFINITY);
    }

    #[test]
    fn activations_within_a_few_ulp() {
        let sweep = || (0..0x7F80_0000u32).step_by(1021).flat_map(|b| [f32::from_bits(b), -f32::from_bits(b)]);
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let (e, at) = worst(sigmoid, sig, sweep());
        eprintln!("sigmoid f32 native: max {e:.4} ulp at {at:e}");
        assert!(e <= 1.6, "sigmoid: {e} ulp at {at:e}");
        let (e, at) = worst(silu, |x| x * sig(x), sweep());
        eprintln!("silu f32 native: max {e:.4} ulp at {at:e}");
        assert!(e <= 1.6, "silu: {e} ulp at {at:e}");
    }
}
