//! Float32 asin, acos and atanh on float32 lanes (issue 23): twice the lanes of the float64 forms
//! (`vecmath_trig`, `vecmath`), within 0.62, 0.61 and 0.88 ulp (every 31st float32 in [-1, 1];
//! PyTorch 2.15's float32 on tests/fixtures/vecmath_f32grid.json's grid: 0.706, 0.776, 1.0).
//! Branch-free (selects only).
//!
//! Up to 1/2, asin(x) = x + x z P(z) with z = x^2 (the second term at most 5% of the first);
//! above, asin(a) = pi/2 - 2 asin(s) with s = sqrt((1 - a)/2) (1 - a exact) in two words, and
//! acos from the same parts. pi/2 and pi are subtracted in two words, so each result rounds once
//! but for the small terms. atanh is the same odd form up to 1/2 and log1p(2a / (1 - a)) / 2
//! above (1 - a exact there, the quotient's rounding moves the result by under 0.34 ulp).
#![allow(clippy::excessive_precision)]

use crate::cpu::vecmath_f32::poly;
use crate::cpu::vecmath_f32log::log1p_f32;

/// (asin(x)/x - 1)/z and (atanh(x)/x - 1)/z for z = x^2 <= 1/4 in powers of z, float32
/// coefficients of Chebyshev fits (relative error 1e-7; tools/fit_f32trig.py). Their rounding is
/// scaled by z P(z) < 0.05 (asin), < 0.1 (atanh).
pub(crate) const ASIN_P: [f32; 6] =
    [0.1666666567325592, 0.07500098645687103, 0.04459803178906441, 0.03111615590751171, 0.017077859491109848, 0.03380574658513069];
const ATANH_P: [f32; 6] =
    [0.3333333134651184, 0.2000049650669098, 0.14263242483139038, 0.11478225141763687, 0.06455003470182419, 0.15813754498958588];

/// pi/2 and pi in two float32 words.
pub(crate) const PIO2: (f32, f32) = (std::f32::consts::FRAC_PI_2, -4.371_139e-8);
pub(crate) const PI: (f32, f32) = (std::f32::consts::PI, -8.742_278e-8);

/// asin(s + sl) for 0 <= s <= 1/2 as h + l (sl below s's last bit, or 0).
#[inline(always)]
fn asin_core(s: f32, sl: f32) -> (f32, f32) {
    let z = s * s;
    let m = s * (z * poly(z, &ASIN_P));
    // Fast2Sum below: |m| < |s| / 20.
    let h = s + m;
    // asin'(s) sl = sl / sqrt(1 - z), to 1% of sl's size.
    (h, ((s - h) + m) + sl * 0.5f32.mul_add(z, 1.0))
}

/// asin's argument for |x| = a: a itself up to 1/2, above it s = sqrt((1 - a) / 2) in two
/// words (NaN above 1), and whether a is above 1/2. One `asin_core` then serves both pieces
/// (a select of its argument, not of two polynomials' results).
#[inline(always)]
fn core_argument(a: f32) -> (f32, f32, bool) {
    let w = (1.0 - a) * 0.5;
    let s = w.sqrt();
    // s's rounding, (w - s^2) / 2s (exact residual); nothing at s = 0.
    let sl = if s == 0.0 { 0.0 } else { (-s).mul_add(s, w) * (0.5 / s) };
    if a <= 0.5 {
        (a, 0.0, false)
    } else {
        (s, sl, true)
    }
}

/// c - (h + l) for c in two words, |h| <= |c| (Fast2Sum), rounded once but for l. With c = 0
/// it is -h - l exactly as that sum rounds (0 - h is exact, and so is the rest's first part).
#[inline(always)]
fn minus(c: (f32, f32), h: f32, l: f32) -> f32 {
    let hi = c.0 - h;
    hi + (((c.0 - hi) - h) + (c.1 - l))
}

/// `asin(x)`, odd: NaN outside [-1, 1] and at NaN. h + l up to 1/2, pi/2 - 2 (h + l) above.
#[inline(always)]
pub fn asin(x: f32) -> f32 {
    let (u, ul, far) = core_argument(x.abs());
    let (h, l) = asin_core(u, ul);
    let (c, k) = if far { (PIO2, 2.0) } else { ((0.0, 0.0), -1.0) };
    minus(c, k * h, k * l).copysign(x)
}

/// `acos(x)`: pi/2 - asin(x) up to 1/2, 2 asin(s) above, pi - 2 asin(s) below -1/2; each as
/// c - k (h + l) with the constant and the factor selected.
#[inline(always)]
pub fn acos(x: f32) -> f32 {
    let neg = x < 0.0;
    let (u, ul, far) = core_argument(x.abs());
    let (h, l) = asin_core(u, ul);
    let (c, k) = match (far, neg) {
        (false, false) => (PIO2, 1.0),
        (false, true) => (PIO2, -1.0),
        (true, false) => ((0.0, 0.0), -2.0),
        (true, true) => (PI, 2.0),
    };
    minus(c, k * h, k * l)
}

/// `atanh(x)`, odd: x + x z P(z) up to 1/2, log1p(2a / (1 - a)) / 2 above; +-inf at +-1, NaN
/// beyond (log1p of a quotient below -1) and at NaN.
#[inline(always)]
pub fn atanh(x: f32) -> f32 {
    let a = x.abs();
    let z = a * a;
    let near = a + a * (z * poly(z, &ATANH_P));
    let far = 0.5 * log1p_f32((2.0 * a) / (1.0 - a));
    (if a <= 0.5 { near } else { far }).copysign(x)
}
