//! The pieces `vecmath` and `vecmath_trig` share: Horner's rule, rounding to an integer
//! without a conversion instruction, and π and π/2 in two words for the reflections.

pub(crate) const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
pub(crate) const PIO2_LO: f64 = 6.123233995736766e-17;
pub(crate) const PI_HI: f64 = std::f64::consts::PI;
pub(crate) const PI_LO: f64 = 1.2246467991473532e-16;

/// 1.5 * 2^52: adding it rounds a float64 below 2^51 to an integer held in the low mantissa bits.
pub(crate) const SHIFTER: f64 = 6755399441055744.0;

/// `c[0] + c[1] x + ...` by Horner's rule with fused multiply-adds.
#[inline(always)]
pub(crate) fn poly(x: f64, c: &[f64]) -> f64 {
    let mut p = c[c.len() - 1];
    for &k in c[..c.len() - 1].iter().rev() {
        p = p.mul_add(x, k);
    }
    p
}

/// `x` rounded to the nearest integer (ties to even), as the integer held in an i64; |x| < 2^51.
#[inline(always)]
pub(crate) fn int_bits(x: f64) -> i64 {
    ((x + SHIFTER).to_bits() as i64).wrapping_sub(SHIFTER.to_bits() as i64)
}

/// π/2 - v and π - v with π's second word (atan2's and acos's reflections).
#[inline(always)]
pub(crate) fn pio2_minus(v: f64) -> f64 {
    PIO2_HI - (v - PIO2_LO)
}
#[inline(always)]
pub(crate) fn pi_minus(v: f64) -> f64 {
    PI_HI - (v - PI_LO)
}
