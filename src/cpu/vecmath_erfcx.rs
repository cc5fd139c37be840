//! Float32 erfcx and log_ndtr on float64 lanes, branch-free for the vectorised unary loops
//! (`vecmath`'s rules). Float64 keeps `special_fns`' scalar kernels. Both come from erfc's
//! float64 fit above 1, erfc(a) = exp(-a^2) t P(t) with t = 2 / (2 + a) (`vecmath::ERFC_LONG`),
//! whose t P(t) is erfcx(a) itself, and Laplace's asymptotic series past the fit's end.

use crate::cpu::special_fns::{erfcx64, log_ndtr64};
use crate::cpu::vecmath::{erf, erfc, exp, log, log1p, ERFC_LONG};
use crate::cpu::vecmath_core::poly;
use crate::dtype::{DType, Element};

/// Where ERFC_LONG's fit ends.
const FIT_END: f64 = 27.3;
/// (-1)^k (2k - 1)!! for k = 0..=5: erfcx(a) = 1 / (a sqrt(pi)) sum c_k / (2a^2)^k, whose first
/// omitted term is below 1e-17 from 27.3 on.
const LAPLACE: [f64; 6] = [1.0, -1.0, 3.0, -15.0, 105.0, -945.0];
const FRAC_1_SQRT_PI: f64 = 0.5641895835477563;

/// erfcx(a) for a >= 1 (t P(t) to 27.3, Laplace's series beyond; 0 at inf).
#[inline(always)]
fn erfcx_large(a: f64) -> f64 {
    let ac = if a > FIT_END { FIT_END } else { a };
    let t = 2.0 / (2.0 + ac);
    let fit = t * poly(t, &ERFC_LONG);
    let af = if a > FIT_END { a } else { FIT_END };
    let r = 1.0 / af;
    let far = FRAC_1_SQRT_PI * r * poly(0.5 * r * r, &LAPLACE);
    if a > FIT_END {
        far
    } else {
        fit
    }
}

/// exp(x^2) with x^2's rounding error carried: exp(hi) (1 + lo) (a product, so that an infinite
/// exp(hi) stays inf).
#[inline(always)]
fn exp_square(x: f64) -> f64 {
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    exp::<false>(hi) * (1.0 + lo)
}

/// `erfcx(x) = exp(x^2) erfc(x)` of a float32 value: exp(x^2) (1 - erf(x)) below 1 in size,
/// `erfcx_large` from 1 on, and 2 exp(x^2) - erfcx(-x) from -1 down (inf where exp(x^2) is).
#[inline(always)]
pub fn erfcx_f32(x: f64) -> f64 {
    let a = x.abs();
    let large = erfcx_large(a);
    let e = exp_square(if a < 27.0 { x } else { 27.0 });
    let near = e * (1.0 - erf::<false>(if a < 1.0 { x } else { 0.0 }));
    if a < 1.0 {
        near
    } else if x > 0.0 {
        large
    } else if x > -27.0 {
        e.mul_add(2.0, -large)
    } else if !x.is_nan() {
        f64::INFINITY
    } else {
        x
    }
}

/// `log_ndtr(x) = log(Phi(x))`, Phi(x) = erfc(-x / sqrt 2) / 2, of a float32 value: above 0,
/// log1p(-erfc(x / sqrt 2) / 2) (0 past erfc's underflow, as the exact value rounds); from 0
/// down, log(erfcx(u) / 2) - x^2 / 2 with u = -x / sqrt 2, which keeps its digits to -inf.
#[inline(always)]
pub fn log_ndtr_f32(x: f64) -> f64 {
    let u = x * -std::f64::consts::FRAC_1_SQRT_2;
    let a = u.abs();
    let below = (1.0 - erf::<false>(if a < 1.0 { a } else { 0.0 })) * exp_square(if a < 1.0 { a } else { 0.0 });
    let ex = if a < 1.0 { below } else { erfcx_large(a) };
    let left = log::<false>(0.5 * ex) - 0.5 * x * x;
    let right = log1p::<false>(-0.5 * erfc::<false>(-u));
    if x > 0.0 {
        right
    } else {
        left
    }
}

/// erfcx of a float32 or float64 element (the op table's kernel is generic over the element):
/// float64 keeps `erfcx64`.
#[inline(always)]
pub fn erfcx_elem<T: Element>(x: T) -> T {
    if T::DTYPE == DType::F32 {
        T::from_f64(erfcx_f32(x.to_f64()))
    } else {
        T::from_f64(erfcx64(x.to_f64()))
    }
}

/// log_ndtr of a float32 or float64 element: float64 keeps `log_ndtr64`.
#[inline(always)]
pub fn log_ndtr_elem<T: Element>(x: T) -> T {
    if T::DTYPE == DType::F32 {
        T::from_f64(log_ndtr_f32(x.to_f64()))
    } else {
        T::from_f64(log_ndtr64(x.to_f64()))
    }
}
