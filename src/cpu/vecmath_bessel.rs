//! Branch-free float32 kernels of the Bessel family (J0, J1, Y0, Y1, K0, K1, I0, I1 and the scaled
//! K and I):
//! float64 arithmetic on piecewise polynomial fits (`bessel_tables`, printed by
//! tools/fit_bessel.py), relative error near 1e-13 before the one rounding to float32, so that
//! the loops vectorise (`simd::map_slice`). float64 keeps `bessel`'s series and quadrature.
//!
//! - Below 8, J and Y come from three or four polynomial pieces, all evaluated and one selected
//!   by comparisons (a table indexed per element is a gather, and LLVM left such loops scalar:
//!   J0 took 38 ms a million, 4 ms now); where a piece holds a zero z the fit is of
//!   f(x) / (x - z), multiplied back by x - z with z in two words, so the result keeps its
//!   relative digits next to the zero. Y near 0 splits off its logarithm.
//! - From 8 on, Hankel's form sqrt(2/(πx)) (P cos χ - Q sin χ) with fitted P and Q; sin x and
//!   cos x come from `vecmath_trig`'s reduction of a float32 argument (the exact one, or the
//!   cheap one when `SMALL`: the caller saw no |x| above `SMALL_ARGUMENT`) and Taylor
//!   polynomials to float64's precision (the phase's absolute error sets the error near zeros).
//! - K splits off its logarithm up to 2, and above fits sqrt(x) e^x K(x) in u = 2/x.
//! - Airy's Ai (its float64 form is in `bessel`) from intervals of width 1/2 on [-10, 1) as J's,
//!   above from a fit of Ai(x) e^ζ x^(1/4) in u = x^(-3/2); below -10 the float64 expansion.
//! - I up to 2 is K's series partner (I0 and I1/x in x^2); above, sqrt(x) e^-x I(x) is fitted in
//!   u = 2/x, two pieces, both evaluated as J's are (`special_f32_tables`, tools/fit_special_f32.py).

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_PI};

use crate::cpu::bessel::{
    airy_ai, bessel_j0, bessel_j1, bessel_k0, bessel_k0e, bessel_k1, bessel_k1e, bessel_y0, bessel_y1, i0e_64, i1e_64,
};
use crate::cpu::bessel_tables::*;
use crate::cpu::special::{i0_64, i1_64};
use crate::cpu::special_f32_tables::{AIRY_FAR, AIRY_NEAR, I0_FAR, I1_FAR};
use crate::cpu::vecmath::{exp, log};
use crate::cpu::vecmath_core::{int_bits, poly};
use crate::cpu::vecmath_trig::reduce;
use crate::dtype::{DType, Element};

/// Where Hankel's form takes over from the interval tables.
const FAR: f64 = 8.0;

// Taylor coefficients of (sin r - r)/r^3 and (cos r - 1)/r^2 in z = r^2 up to r^21 and r^22:
// the first omitted terms are below 1e-22 on |r| <= π/4.
const SIN_TAYLOR: [f64; 10] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362880.0,
    -1.0 / 39916800.0,
    1.0 / 6227020800.0,
    -1.0 / 1307674368000.0,
    1.0 / 355687428096000.0,
    -1.0 / 121645100408832000.0,
    1.0 / 51090942171709440000.0,
];
const COS_TAYLOR: [f64; 11] = [
    -1.0 / 2.0,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40320.0,
    -1.0 / 3628800.0,
    1.0 / 479001600.0,
    -1.0 / 87178291200.0,
    1.0 / 20922789888000.0,
    -1.0 / 6402373705728000.0,
    1.0 / 2432902008176640000.0,
    -1.0 / 1124000727777607680000.0,
];

/// `(sin x, cos x)` of a float32 value to float64's absolute precision.
#[inline(always)]
fn sin_cos<const SMALL: bool>(x: f64) -> (f64, f64) {
    let (r, q) = reduce::<SMALL>(x);
    let z = r * r;
    let s = (r * z).mul_add(poly(z, &SIN_TAYLOR), r);
    let c = z.mul_add(poly(z, &COS_TAYLOR), 1.0);
    // x = r + q π/2: rotate by q quadrants.
    let (s, c) = if q & 1 == 1 { (c, -s) } else { (s, c) };
    if q & 2 == 2 {
        (-s, -c)
    } else {
        (s, c)
    }
}

/// `(J_n(a), Y_n(a))` for a >= 8 by Hankel's form with the fitted P and x Q.
#[inline(always)]
fn hankel<const SMALL: bool>(a: f64, p: &[f64], q: &[f64], order_one: bool) -> (f64, f64) {
    let inv = 1.0 / a;
    let t = (128.0 * inv).mul_add(inv, -1.0);
    let pv = poly(t, p);
    let qv = poly(t, q) * inv;
    let (s, c) = sin_cos::<SMALL>(a);
    // cos χ and sin χ for χ = a - π/4 (order 0) or a - 3π/4 (order 1).
    let (cos_chi, sin_chi) = if order_one { (s - c, -(s + c)) } else { (c + s, s - c) };
    let amp = (FRAC_2_PI * inv).sqrt() * FRAC_1_SQRT_2;
    (amp * pv.mul_add(cos_chi, -(qv * sin_chi)), amp * pv.mul_add(sin_chi, qv * cos_chi))
}

/// A function on [0, 8) from its pieces, rows [lo, mid, 1/half-width, z_hi, z_lo, has_zero,
/// coefficients...] (see the module's note): every row's polynomial is evaluated (the rows are
/// constants, so the loop unrolls and each has its own length) and the last piece whose lo is
/// at most `a` selected. Values at a >= 8, below the first lo or NaN are the caller's to discard.
#[inline(always)]
fn near(rows: &[&[f64]], a: f64) -> f64 {
    let mut v = 0.0;
    for row in rows {
        let p = poly((a - row[1]) * row[2], &row[6..]);
        let p = if row[5] != 0.0 { ((a - row[3]) - row[4]) * p } else { p };
        if a >= row[0] {
            v = p;
        }
    }
    v
}

/// Where every float32 |x| is below this, J0 is its interval pieces (`j0_f32_near`), Hankel's
/// form (a division, a square root, sin and cos) is not needed, and I0, I1 and the scaled I are
/// their series (`i_f32_near`).
pub const J0_NEAR_LIMIT: f32 = FAR as f32;
pub const I_NEAR_LIMIT: f32 = 2.0;

/// `j0_f32(x)` for |x| < `J0_NEAR_LIMIT`: the same bits (the piece `j0_f32` selects there).
#[inline(always)]
pub fn j0_f32_near(x: f64) -> f64 {
    near(&J0_NEAR, x.abs())
}

/// J0 of a float32 value (even; NaN at ±inf, as PyTorch's); `SMALL`: see the module's note.
#[inline(always)]
pub fn j0_f32<const SMALL: bool>(x: f64) -> f64 {
    let a = x.abs();
    let v = near(&J0_NEAR, a);
    let far = hankel::<SMALL>(a, &P0_FAR, &Q0_FAR, false).0;
    if a < FAR {
        v
    } else if a < f64::INFINITY {
        far
    } else {
        f64::NAN
    }
}

/// J1 of a float32 value (odd).
#[inline(always)]
pub fn j1_f32<const SMALL: bool>(x: f64) -> f64 {
    let a = x.abs();
    let v = near(&J1_NEAR, a);
    let far = hankel::<SMALL>(a, &P1_FAR, &Q1_FAR, true).0;
    let r = if a < FAR {
        v
    } else if a < f64::INFINITY {
        far
    } else {
        f64::NAN
    };
    // -0.0 and the negative subnormals keep their sign (-0.0), as PyTorch's.
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// Y0 of a float32 value: -inf at 0, NaN below 0 and at inf.
#[inline(always)]
pub fn y0_f32<const SMALL: bool>(x: f64) -> f64 {
    let s = (8.0 * x).mul_add(x, -1.0);
    let small = (FRAC_2_PI * log::<false>(x)).mul_add(poly(s, &J0_SMALL), poly(s, &Y0_SMALL));
    let v = near(&Y0_NEAR, x);
    let far = hankel::<SMALL>(x, &P0_FAR, &Q0_FAR, false).1;
    y_special(
        x,
        if x < 0.5 {
            small
        } else if x < FAR {
            v
        } else {
            far
        },
    )
}

/// Y1 of a float32 value: -inf at 0, NaN below 0 and at inf.
#[inline(always)]
pub fn y1_f32<const SMALL: bool>(x: f64) -> f64 {
    let s = (0.5 * x).mul_add(x, -1.0);
    let small = x.mul_add((FRAC_2_PI * log::<false>(x)).mul_add(poly(s, &J1_SMALL), poly(s, &Y1_SMALL)), -FRAC_2_PI / x);
    let v = near(&Y1_NEAR, x);
    let far = hankel::<SMALL>(x, &P1_FAR, &Q1_FAR, true).1;
    y_special(
        x,
        if x < 2.0 {
            small
        } else if x < FAR {
            v
        } else {
            far
        },
    )
}

/// Y's special values around `v`, its value at a positive finite x.
#[inline(always)]
fn y_special(x: f64, v: f64) -> f64 {
    if x > 0.0 && x < f64::INFINITY {
        v
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        f64::NAN
    }
}

/// `K_n(x)` of a float32 value, scaled by `e^x` when `SCALED`: inf at 0, 0 at inf, NaN below 0.
#[inline(always)]
fn k_f32<const ONE: bool, const SCALED: bool>(x: f64) -> f64 {
    // Up to 2: K0 = B0(s) - ln(x) I0(x), K1 = 1/x + x (ln(x) I1(x)/x + B1(s)).
    let s = (0.5 * x).mul_add(x, -1.0);
    let lg = log::<false>(x);
    let small = if ONE {
        x.mul_add(lg.mul_add(poly(s, &I1_SMALL), poly(s, &K1_SMALL)), 1.0 / x)
    } else {
        (-lg).mul_add(poly(s, &I0_SMALL), poly(s, &K0_SMALL))
    };
    // Above: sqrt(x) e^x K(x) in u = 2/x, two pieces.
    let u = 2.0 / x;
    let fi = (u * 2.0).floor().min(1.0);
    let i = (int_bits(fi) & 1) as usize;
    let t = 4.0f64.mul_add(u, -2.0f64.mul_add(fi, 1.0));
    let g = if ONE { poly(t, &K1_FAR[i]) } else { poly(t, &K0_FAR[i]) } / x.sqrt();
    let v = if SCALED {
        if x <= 2.0 {
            small * exp::<false>(x)
        } else {
            g
        }
    } else if x <= 2.0 {
        small
    } else {
        // e^-x in two halves, so that the product underflows only where K does.
        let half = exp::<false>(-0.5 * x);
        half * (half * g)
    };
    if x > 0.0 && x < f64::INFINITY {
        v
    } else if x == 0.0 {
        f64::INFINITY
    } else if x == f64::INFINITY {
        0.0
    } else {
        f64::NAN
    }
}

/// `I_n(x)` (n = 0, 1) of a float32 value, scaled by `e^-|x|` when `SCALED`: I1 odd (+0.0 at
/// -0.0, as PyTorch's), I0 even; NaN (I, as PyTorch's and the float64 kernels) or 0 (scaled) at ±inf.
#[inline(always)]
pub(crate) fn i_f32<const ONE: bool, const SCALED: bool>(x: f64) -> f64 {
    let a = x.abs();
    let small = i_series::<ONE>(a);
    // Above: sqrt(x) e^-x I(x) in u = 2/x, two pieces, both evaluated and one selected (a row
    // indexed per element is a gather: the scaled kernels' loops were left scalar, 10 ms a
    // million). At a = 0 u is inf, the second piece is selected and discarded.
    let u = 2.0 / a;
    let rows = if ONE { &I1_FAR } else { &I0_FAR };
    let g0 = poly(4.0f64.mul_add(u, -1.0), rows[0]);
    let g1 = poly(4.0f64.mul_add(u, -3.0), rows[1]);
    let g = if u < 0.5 { g0 } else { g1 } / a.sqrt();
    let v = if SCALED {
        if a <= 2.0 {
            small * exp::<false>(-a)
        } else {
            g
        }
    } else if a <= 2.0 {
        small
    } else {
        // Overflows (to inf) only where float32's I does, near 89, long before float64's exp.
        g * exp::<false>(a)
    };
    let v = if a == f64::INFINITY {
        if SCALED {
            0.0
        } else {
            f64::NAN
        }
    } else {
        v
    };
    if ONE && x < 0.0 {
        -v
    } else {
        v
    }
}

/// Up to 2: I0 and I1 (of a = |x|) from their series' fits in s = a^2/2 - 1.
#[inline(always)]
fn i_series<const ONE: bool>(a: f64) -> f64 {
    let s = (0.5 * a).mul_add(a, -1.0);
    if ONE {
        a * poly(s, &I1_SMALL)
    } else {
        poly(s, &I0_SMALL)
    }
}

/// `i_f32::<ONE, SCALED>(x)` for |x| <= `I_NEAR_LIMIT`: the same bits (the series `i_f32` selects
/// there) without the far pieces' division, square root and two polynomials.
#[inline(always)]
pub fn i_f32_near<const ONE: bool, const SCALED: bool>(x: f64) -> f64 {
    let a = x.abs();
    let small = i_series::<ONE>(a);
    let v = if SCALED { small * exp::<false>(-a) } else { small };
    if ONE && x < 0.0 {
        -v
    } else {
        v
    }
}

/// Airy's Ai of a float32 value. Not branch-free: below -10 (and at NaN and ±inf) it calls the
/// float64 expansion, so the loop stays scalar (a tenth of the float64 series' time).
#[inline(always)]
pub fn airy_ai_f32(x: f64) -> f64 {
    if !(-10.0..f64::INFINITY).contains(&x) {
        return airy_ai(x);
    }
    if x < 1.0 {
        // Intervals of width 1/2 from -10 (`near`'s form; 4x + 39 - 2i is exact).
        let fi = ((x + 10.0) * 2.0).floor().min(21.0);
        let row = &AIRY_NEAR[fi as usize];
        let p = poly(4.0f64.mul_add(x, 2.0f64.mul_add(-fi, 39.0)), &row[3..]);
        if row[2] != 0.0 {
            ((x - row[0]) - row[1]) * p
        } else {
            p
        }
    } else {
        // e^-ζ underflows to 0 beyond float32's range (ζ > 104) and the product with it.
        let sx = x.sqrt();
        let u = 1.0 / (x * sx);
        let fi = (u * 8.0).floor().min(7.0);
        let p = poly(16.0f64.mul_add(u, -2.0f64.mul_add(fi, 1.0)), &AIRY_FAR[fi as usize]);
        p * exp::<false>(-(2.0 / 3.0) * x * sx) / sx.sqrt()
    }
}

/// The op table's kernels: the float32 paths above, `bessel`'s float64 functions otherwise.
macro_rules! elem_kernels {
    ($($name:ident: $f32:expr, $f64:ident;)*) => {$(
        #[inline(always)]
        pub fn $name<T: Element>(x: T) -> T {
            if T::DTYPE == DType::F32 {
                T::from_f64($f32(x.to_f64()))
            } else {
                T::from_f64($f64(x.to_f64()))
            }
        }
    )*};
}
elem_kernels! {
    j0_elem: j0_f32::<false>, bessel_j0;
    j1_elem: j1_f32::<false>, bessel_j1;
    y0_elem: y0_f32::<false>, bessel_y0;
    y1_elem: y1_f32::<false>, bessel_y1;
    k0_elem: k_f32::<false, false>, bessel_k0;
    k1_elem: k_f32::<true, false>, bessel_k1;
    k0e_elem: k_f32::<false, true>, bessel_k0e;
    k1e_elem: k_f32::<true, true>, bessel_k1e;
    i0_elem: i_f32::<false, false>, i0_64;
    i1_elem: i_f32::<true, false>, i1_64;
    i0e_elem: i_f32::<false, true>, i0e_64;
    i1e_elem: i_f32::<true, true>, i1e_64;
    airy_ai_elem: airy_ai_f32, airy_ai;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The float32 kernels against the float64 functions (accurate to ~1e-14) on a grid that
    /// crosses every piece: relative error below 1e-12 where the value is not tiny.
    #[test]
    fn float32_paths_match_float64() {
        type Pair = (fn(f64) -> f64, fn(f64) -> f64, f64);
        let pairs: [Pair; 17] = [
            (j0_f32::<false>, bessel_j0, -60.0),
            (j1_f32::<false>, bessel_j1, -60.0),
            (y0_f32::<false>, bessel_y0, 1e-3),
            (y1_f32::<false>, bessel_y1, 1e-3),
            (k_f32::<false, false>, bessel_k0, 1e-3),
            (k_f32::<true, false>, bessel_k1, 1e-3),
            (k_f32::<false, true>, bessel_k0e, 1e-3),
            (k_f32::<true, true>, bessel_k1e, 1e-3),
            (i_f32::<false, false>, i0_64, -60.0),
            (i_f32::<true, false>, i1_64, -60.0),
            (i_f32::<false, true>, i0e_64, -60.0),
            (i_f32::<true, true>, i1e_64, -60.0),
            (airy_ai_f32, airy_ai, -60.0),
            (j0_f32::<true>, bessel_j0, -60.0),
            (j1_f32::<true>, bessel_j1, -60.0),
            (y0_f32::<true>, bessel_y0, 1e-3),
            (y1_f32::<true>, bessel_y1, 1e-3),
        ];
        for (k, (fast, slow, lo)) in pairs.into_iter().enumerate() {
            let mut x = lo;
            while x < 60.0 {
                let x32 = x as f32 as f64;
                let (a, b) = (fast(x32), slow(x32));
                // Absolute next to the zeros of J, Y and Ai (below 0), relative elsewhere.
                let tol = 1e-12 * b.abs() + if !(4..12).contains(&k) && (k != 12 || x < 0.0) { 1e-15 } else { 0.0 };
                assert!((a - b).abs() <= tol, "{k} at {x32}: {a} vs {b}");
                x += 0.0173;
            }
        }
        assert!(j0_f32::<false>(f64::INFINITY).is_nan() && j1_f32::<false>(f64::NAN).is_nan());
        assert!(j0_f32::<true>(f64::INFINITY).is_nan() && j1_f32::<true>(f64::NAN).is_nan());
        assert_eq!(y0_f32::<true>(0.0), f64::NEG_INFINITY);
        assert_eq!(y1_f32::<false>(0.0), f64::NEG_INFINITY);
        assert!(y0_f32::<true>(-1.0).is_nan() && y1_f32::<true>(f64::INFINITY).is_nan());
        assert_eq!(k_f32::<false, false>(0.0), f64::INFINITY);
        assert_eq!(k_f32::<true, true>(f64::INFINITY), 0.0);
        assert!(k_f32::<true, false>(-1.0).is_nan());
        assert_eq!(j1_f32::<true>(-2.0), -j1_f32::<true>(2.0));
        assert!(j1_f32::<false>(-0.0).is_sign_negative() && j1_f32::<true>(-0.0).is_sign_negative());
        assert!(i_f32::<false, false>(f64::INFINITY).is_nan() && i_f32::<true, false>(f64::NEG_INFINITY).is_nan());
        assert_eq!(i_f32::<false, true>(f64::NEG_INFINITY), 0.0);
        assert!(i_f32::<true, true>(-0.0).is_sign_positive() && i_f32::<true, false>(f64::NAN).is_nan());
        assert_eq!(i_f32::<false, false>(0.0) as f32, 1.0);
        assert!(airy_ai_f32(f64::INFINITY).is_nan() && airy_ai_f32(f64::NEG_INFINITY).is_nan());
        assert_eq!(airy_ai_f32(1e30), 0.0);
    }

    #[test]
    fn near_paths_give_the_general_bits() {
        // Every 97th float32 of either sign inside the limits (the split loops' fast kernels).
        let mut bits = 0u32;
        while bits < 0x4100_0000 {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let x64 = x as f64;
                assert_eq!(j0_f32_near(x64).to_bits(), j0_f32::<true>(x64).to_bits(), "{x}");
                if x.abs() <= I_NEAR_LIMIT {
                    assert_eq!(i_f32_near::<true, true>(x64).to_bits(), i_f32::<true, true>(x64).to_bits(), "{x}");
                }
            }
            bits += 97;
        }
    }
}
