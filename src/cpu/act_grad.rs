//! Fused gradients of the activations whose derivative is a formula of several transcendental
//! terms (gelu, exact and tanh forms): `g * f'(x)` in one pass over float32 or float64 operands
//! instead of the dozen tensor ops (each a pass and an allocation) of the formula in
//! `ops/unary.rs`, which still serves create_graph and the other devices and dtypes.

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::Result;

use super::buffer::filled;
use super::cast::dense_slice;
use super::vecmath::{erfc, exp, tanh};

const FRAC_1_SQRT_2PI: f64 = 0.3989422804014327; // 1/sqrt(2 pi)
const SQRT_2_OVER_PI: f64 = 0.7978845608028654; // sqrt(2/pi)

/// gelu'(x) = Φ(x) + x φ(x) (Φ as erfc(-x/√2)/2, keeping the left tail's digits).
#[inline(always)]
fn gelu_slope<const L: bool>(x: f64) -> f64 {
    0.5 * erfc::<L>(-x * std::f64::consts::FRAC_1_SQRT_2) + x * FRAC_1_SQRT_2PI * exp::<L>(-0.5 * x * x)
}

/// The tanh form's slope: (1 + t)/2 + x (1 - t²) u'/2 with t = tanh(u), u = √(2/π)(x + 0.044715 x³).
#[inline(always)]
fn gelu_tanh_slope<const L: bool>(x: f64) -> f64 {
    let x2 = x * x;
    let t = tanh::<L>(SQRT_2_OVER_PI * x.mul_add(0.044715 * x2, x));
    let du = SQRT_2_OVER_PI * (3.0 * 0.044715f64).mul_add(x2, 1.0);
    0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du
}

/// `g * gelu'(x)` (`approximate_tanh`: of the tanh form) for float32 or float64 operands of one
/// dtype and shape; None for anything else (the caller takes the tensor-op formula).
pub fn gelu_backward(g: &Array, x: &Array, approximate_tanh: bool) -> Result<Option<Array>> {
    if g.dtype() != x.dtype() || g.shape() != x.shape() || !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(None);
    }
    macro_rules! run {
        ($t:ty, $l:literal) => {{
            let out = dense_slice::<$t, _>(g, "gelu_backward", |gs| {
                dense_slice::<$t, _>(x, "gelu_backward", |xs| -> Result<Vec<$t>> {
                    let mut out = filled(xs.len(), 0 as $t)?;
                    super::parallel::for_each_chunk_weighted(&mut out, 1, 16, |start, o| {
                        let (gs, xs) = (&gs[start..][..o.len()], &xs[start..][..o.len()]);
                        super::simd::vectorized(
                            #[inline(always)]
                            || {
                                if approximate_tanh {
                                    for ((o, &g), &x) in o.iter_mut().zip(gs).zip(xs) {
                                        *o = (g as f64 * gelu_tanh_slope::<$l>(x as f64)) as $t;
                                    }
                                } else {
                                    for ((o, &g), &x) in o.iter_mut().zip(gs).zip(xs) {
                                        *o = (g as f64 * gelu_slope::<$l>(x as f64)) as $t;
                                    }
                                }
                            },
                        )
                    });
                    Ok(out)
                })
            })???;
            Array::from_vec(out, x.shape())?
        }};
    }
    Ok(Some(match x.dtype() {
        DType::F64 => run!(f64, false),
        _ => run!(f32, true),
    }))
}
