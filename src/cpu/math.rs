//! Scalar math for the float kernels, written so that loops over it vectorise (no library calls
//! on the hot paths of f32) and with the same results whatever the instruction set.

/// `exp` for f32 without a library call: range reduction to `r` in [-ln2/2, ln2/2], a degree-7
/// polynomial, then scaling by 2^n through the exponent bits. Within 2 ulp over the whole range.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // Below -104 the result is 0. Those lanes compute at 0 instead and are zeroed at the end:
    // computing their tiny value would take a microcode assist on Intel for every element,
    // which made masked softmax and causal attention (half their scores -inf) several times
    // slower. Comparisons rather than `max`/`min`: a NaN fails them and flows into the result;
    // above the clamp the scaling overflows to inf by itself.
    let dead = x < -104.0;
    let xc = if dead { 0.0 } else { x };
    let xc = if xc > 88.8 { 88.8 } else { xc };
    let (p, ni) = exp_f32_reduced(xc);
    // 2^n in two factors so that results in the subnormal range stay exact.
    let h = ni >> 1;
    let s1 = f32::from_bits(((h + 127) as u32) << 23);
    let s2 = f32::from_bits(((ni - h + 127) as u32) << 23);
    // p * s1 is exact; the one rounding is in `* s2`, subnormal results included.
    let v = p * s1 * s2;
    if dead {
        0.0
    } else {
        v
    }
}

/// `exp(x) = p * 2^n` for `x` in [-104, 88.8]: `(p, n)`, `p` in [0.7, 1.42] (exp_f32's core).
#[inline(always)]
fn exp_f32_reduced(x: f32) -> (f32, i32) {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding 1.5 * 2^23 rounds to the nearest integer (ties to even) and leaves that integer in
    // the low mantissa bits: no float-to-int conversion, so the loop vectorises.
    const SHIFTER: f32 = 12_582_912.0;
    let shifted = x * LOG2E + SHIFTER;
    let n = shifted - SHIFTER;
    let ni = (shifted.to_bits() as i32).wrapping_sub(0x4B40_0000);
    // Fused multiply-adds: half the instructions of separate multiplies and adds, and one
    // rounding each, so every instruction set that has FMA gives the same bits.
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, x));
    let mut p = 1.984_127e-4f32;
    for c in [1.388_889_3e-3, 8.333_452e-3, 4.166_666_8e-2, 1.666_666_7e-1, 0.5, 1.0, 1.0] {
        p = p.mul_add(r, c);
    }
    (p, ni)
}

/// `exp(x)` for `x` in [-87, 0], where every result is a normal float and none overflows (a
/// softmax row's scores less their maximum, when they span under 87): `exp_f32`'s bits there,
/// without its clamps, dead-lane masks and two-factor scaling (a third of its instructions).
#[inline(always)]
pub fn exp_f32_normal(x: f32) -> f32 {
    let (p, ni) = exp_f32_reduced(x);
    p * f32::from_bits(((ni + 127) as u32) << 23)
}

/// Floating-point math used by the unary kernels, for f32 and f64.
pub trait FloatMath: crate::cpu::num::Arith + Copy {
    fn exp_(self) -> Self;
    fn from(v: f64) -> Self;
    fn f(self) -> f64;
    fn erf_(self) -> Self;
}

impl FloatMath for f32 {
    #[inline(always)]
    fn exp_(self) -> Self {
        exp_f32(self)
    }
    #[inline(always)]
    fn from(v: f64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn f(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn erf_(self) -> Self {
        crate::cpu::vecmath::erf::<true>(self as f64) as f32
    }
}

impl FloatMath for f64 {
    #[inline(always)]
    fn exp_(self) -> Self {
        self.exp()
    }
    #[inline(always)]
    fn from(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn f(self) -> f64 {
        self
    }
    #[inline(always)]
    fn erf_(self) -> Self {
        libm::erf(self)
    }
}

/// `clamp(t, 0, 6)`, NaN kept (hardsigmoid's and hardswish's inner clamp).
#[inline(always)]
pub fn relu6<T: FloatMath + PartialOrd>(t: T) -> T {
    let (zero, six) = (<T as FloatMath>::from(0.0), <T as FloatMath>::from(6.0));
    if t < zero {
        zero
    } else if t > six {
        six
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::exp_f32;

    #[test]
    fn exp_matches_libm() {
        let mut x = -110.0f32;
        while x < 90.0 {
            let want = (x as f64).exp();
            let got = exp_f32(x) as f64;
            if want.is_finite() && want > 1e-37 && want < 3e38 {
                assert!(((got - want) / want).abs() < 3e-7, "x={x} got={got} want={want}");
            }
            x += 0.0137;
        }
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
    }

    /// The subnormal results stay (the one rounding at the end) and below -104 every result is
    /// 0, as rounding exp there gives.
    #[test]
    fn exp_underflow() {
        for x in [-87.5f32, -90.0, -95.25, -100.0, -103.0, -103.27893] {
            let want = (x as f64).exp();
            let got = exp_f32(x) as f64;
            assert!((got - want).abs() <= 2.0 * f32::from_bits(1) as f64, "x={x} got={got:e} want={want:e}");
            assert!(got > 0.0, "x={x}");
        }
        for x in [-104.0001f32, -105.0, -1e30, f32::MIN] {
            assert_eq!(exp_f32(x), 0.0, "x={x}");
        }
    }
}
