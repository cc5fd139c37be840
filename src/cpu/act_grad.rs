//! Fused activation gradients: `g * f'(v)` (v the saved input, or the result where the in-place
//! form kept it) in one vectorised pass over float32 or float64 operands, instead of the chain
//! of tensor ops (each a pass and an allocation) of the formulas in `ops/unary.rs`, which still
//! serve create_graph, the other devices and dtypes. Operands laid out densely in another order
//! (a transposed input) are walked in the saved tensor's storage order, and the gradient comes
//! back in that layout, so the view's backward hands a contiguous gradient to its base.

use std::mem::MaybeUninit;

use crate::backend::Array;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;

use super::buffer::written_output;
use super::elementwise::map1;
use super::parallel::for_each_chunk_weighted;
use super::simd::zip_slices;
use super::vecmath::{exp, gelu_slope, sigmoid, tanh};
#[cfg(target_arch = "x86_64")]
use super::vecmath_avx512::ZipLanes;
use super::vecmath_f32;

const SQRT_2_OVER_PI: f64 = 0.7978845608028654; // sqrt(2/pi)

/// Which derivative multiplies the incoming gradient (the parameters as the ops take them).
#[derive(Clone, Copy, Debug)]
pub enum ActGrad {
    /// `g` where the value lies strictly inside the bounds (an absent one admits everything,
    /// infinities included), else zero; a NaN value counts as inside when `nan_inside`
    /// (hardtanh's rule) and outside otherwise (clamp's). A NaN bound admits nothing.
    Bounded { lo: Option<f64>, hi: Option<f64>, nan_inside: bool },
    /// `g / 6` strictly inside (-3, 3), else zero (NaN included).
    Hardsigmoid,
    /// 0 up to -3, `g (x/3 + 1/2)` below 3, `g` from 3 up and at NaN.
    Hardswish,
    /// `g s (1 + x (1 - s))`, s = sigmoid(x).
    Silu,
    /// `g` where `x beta > threshold`, else `g sigmoid(x beta)`.
    Softplus { beta: f64, threshold: f64 },
    /// `g` where the value (input or result: one sign) is positive, else `g slope`.
    LeakyRelu { slope: f64 },
    /// The elu family `scale (x > 0 ? x : alpha expm1(x input_scale))`: from the input, or from
    /// the result (`from_result`, where `alpha exp(x input_scale) = y / scale + alpha`).
    Elu { alpha: f64, scale: f64, input_scale: f64, from_result: bool },
    /// `g sigmoid(-x)`.
    LogSigmoid,
    /// gelu's, of the erf form or (`tanh`) of the tanh form.
    Gelu { tanh: bool },
    /// `g (1 - y²)` from tanh's result y.
    Tanh,
    /// `g (1 - y) y` from sigmoid's result y (PyTorch's order).
    Sigmoid,
    /// `g / (x scale + shift)`: the log family's (log 1, 0; log2 ln2, 0; log10 ln10, 0; log1p 1, 1).
    Reciprocal { scale: f64, shift: f64 },
}

/// The tanh form's slope: (1 + t)/2 + x (1 - t²) u'/2 with t = tanh(u), u = √(2/π)(x + 0.044715 x³).
#[inline(always)]
fn gelu_tanh_slope<const L: bool>(x: f64) -> f64 {
    let x2 = x * x;
    let t = tanh::<L>(SQRT_2_OVER_PI * x.mul_add(0.044715 * x2, x));
    let du = SQRT_2_OVER_PI * (3.0 * 0.044715f64).mul_add(x2, 1.0);
    0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du
}

/// `g * f'(v)` for `kind`, where `g` and `v` are float32 or float64 arrays of one dtype and
/// shape; None for anything else (the caller takes the tensor-op formula).
pub fn activation_backward(g: &Array, v: &Array, kind: ActGrad) -> Result<Option<Array>> {
    if g.dtype() != v.dtype() || g.shape() != v.shape() {
        return Ok(None);
    }
    #[cfg(target_arch = "x86_64")]
    if let (DType::F32, ActGrad::Gelu { tanh: false }, Some(simd)) = (v.dtype(), kind, super::simd::avx512()) {
        let kernel = super::vecmath_avx512_gelu::GeluGrad;
        return Ok(Some(zip_grad_with(g, v, 4, move |g: &[f32], x: &[f32], out: &mut [MaybeUninit<f32>]| {
            kernel.zip_into(simd, g, x, out)
        })?));
    }
    #[cfg(target_arch = "x86_64")]
    if let (DType::F32, ActGrad::Silu, Some(simd)) = (v.dtype(), kind, super::simd::avx512()) {
        let kernel = super::vecmath_avx512::SiluGrad;
        return Ok(Some(zip_grad_with(g, v, 8, move |g: &[f32], x: &[f32], out: &mut [MaybeUninit<f32>]| {
            kernel.zip_into(simd, g, x, out)
        })?));
    }
    #[cfg(target_arch = "x86_64")]
    if let (DType::F32, Some(simd)) = (v.dtype(), super::simd::avx512()) {
        use super::vecmath_avx512_softplus::SoftplusGrad;
        // log_sigmoid's g sigmoid(-x) is softplus's with β = -1 and no threshold.
        let kernel = match kind {
            ActGrad::Softplus { beta, threshold } => Some(SoftplusGrad { beta: beta as f32, threshold: threshold as f32 }),
            ActGrad::LogSigmoid => Some(SoftplusGrad { beta: -1.0, threshold: f32::INFINITY }),
            _ => None,
        };
        if let Some(kernel) = kernel {
            return Ok(Some(zip_grad_with(g, v, 8, move |g: &[f32], x: &[f32], out: &mut [MaybeUninit<f32>]| {
                kernel.zip_into(simd, g, x, out)
            })?));
        }
    }
    Ok(match v.dtype() {
        DType::F32 => Some(run_f32(g, v, kind)?),
        DType::F64 => Some(run_f64(g, v, kind)?),
        _ => None,
    })
}

// Each arm is a closure over elements of one concrete type, passed by value down to the SIMD
// loop (`zip_slices`) and marked `inline(always)` so that it inlines there (gelu's, left to the
// inliner, stayed a call compiled for the baseline instruction set, with fma a library call:
// gelu fwd+bwd at 1M float32 took 145 ms, not 6); branches are selects between values already
// computed, so the loops vectorise. Parameters are rounded to the element type where PyTorch's
// kernels compute in it. Sigmoid and exp are the element type's (`$sig`, `$exp`: float32 on
// float32 lanes, as the unary kernels); gelu's terms are computed on float64 lanes (`L`:
// float32's shorter polynomials).
macro_rules! kernels {
    ($name:ident, $t:ty, $l:literal, $sig:path, $exp:path) => {
        fn $name(g: &Array, v: &Array, kind: ActGrad) -> Result<Array> {
            let c = |p: f64| p as $t;
            match kind {
                ActGrad::Bounded { lo, hi, nan_inside } => {
                    let (any_lo, any_hi) = (lo.is_none(), hi.is_none());
                    let (lo, hi) = (c(lo.unwrap_or(0.0)), c(hi.unwrap_or(0.0)));
                    // `|` and `&`, not `||` and `&&`: no branches.
                    if nan_inside {
                        zip_grad(
                            g,
                            v,
                            1,
                            #[inline(always)]
                            move |g: $t, x: $t| if (!any_lo & (x <= lo)) | (!any_hi & (x >= hi)) { 0.0 } else { g },
                        )
                    } else {
                        zip_grad(
                            g,
                            v,
                            1,
                            #[inline(always)]
                            move |g: $t, x: $t| if (any_lo | (x > lo)) & (any_hi | (x < hi)) { g } else { 0.0 },
                        )
                    }
                }
                ActGrad::Hardsigmoid => {
                    let sixth = c(1.0 / 6.0);
                    zip_grad(
                        g,
                        v,
                        1,
                        #[inline(always)]
                        move |g: $t, x: $t| if (x > -3.0) & (x < 3.0) { g * sixth } else { 0.0 },
                    )
                }
                ActGrad::Hardswish => zip_grad(
                    g,
                    v,
                    1,
                    #[inline(always)]
                    |g: $t, x: $t| {
                        let inner = if x < 3.0 { g * (x / 3.0 + 0.5) } else { g };
                        if x <= -3.0 {
                            0.0
                        } else {
                            inner
                        }
                    },
                ),
                ActGrad::Silu => zip_grad(
                    g,
                    v,
                    8,
                    #[inline(always)]
                    |g: $t, x: $t| {
                        let s = $sig(x);
                        g * (s * x.mul_add(1.0 - s, 1.0))
                    },
                ),
                ActGrad::Softplus { beta, threshold } => {
                    let (beta, threshold) = (c(beta), c(threshold));
                    zip_grad(
                        g,
                        v,
                        8,
                        #[inline(always)]
                        move |g: $t, x: $t| {
                            let bx = x * beta;
                            let slope = g * $sig(bx);
                            if bx > threshold {
                                g
                            } else {
                                slope
                            }
                        },
                    )
                }
                ActGrad::LeakyRelu { slope } => {
                    let slope = c(slope);
                    zip_grad(
                        g,
                        v,
                        1,
                        #[inline(always)]
                        move |g: $t, x: $t| if x > 0.0 { g } else { g * slope },
                    )
                }
                ActGrad::Elu { alpha, scale, input_scale, from_result: true } => {
                    let (shift, input_scale, scale) = (c(alpha * scale), c(input_scale), c(scale));
                    zip_grad(
                        g,
                        v,
                        1,
                        #[inline(always)]
                        move |g: $t, y: $t| g * if y <= 0.0 { (y + shift) * input_scale } else { scale },
                    )
                }
                ActGrad::Elu { alpha, scale, input_scale, from_result: false } => {
                    // x * input_scale rounded to the element type before exp, as PyTorch's
                    // float32 kernel does (far below zero the rounding moves exp by ~1e-6).
                    let (k, scale, input_scale) = (c(alpha * scale * input_scale), c(scale), c(input_scale));
                    zip_grad(
                        g,
                        v,
                        8,
                        #[inline(always)]
                        move |g: $t, x: $t| {
                            let neg = $exp(x * input_scale) * k;
                            g * if x <= 0.0 { neg } else { scale }
                        },
                    )
                }
                ActGrad::LogSigmoid => zip_grad(
                    g,
                    v,
                    8,
                    #[inline(always)]
                    |g: $t, x: $t| g * $sig(-x),
                ),
                ActGrad::Gelu { tanh: false } => zip_grad(
                    g,
                    v,
                    16,
                    #[inline(always)]
                    |g: $t, x: $t| (g as f64 * gelu_slope::<$l>(x as f64)) as $t,
                ),
                ActGrad::Gelu { tanh: true } => zip_grad(
                    g,
                    v,
                    16,
                    #[inline(always)]
                    |g: $t, x: $t| (g as f64 * gelu_tanh_slope::<$l>(x as f64)) as $t,
                ),
                // In the element type, rounded as the formulas' passes round (the same values).
                ActGrad::Tanh => zip_grad(
                    g,
                    v,
                    1,
                    #[inline(always)]
                    |g: $t, y: $t| g * (1.0 - y * y),
                ),
                ActGrad::Sigmoid => zip_grad(
                    g,
                    v,
                    1,
                    #[inline(always)]
                    |g: $t, y: $t| g * (1.0 - y) * y,
                ),
                ActGrad::Reciprocal { scale, shift } => {
                    let (scale, shift) = (c(scale), c(shift));
                    zip_grad(
                        g,
                        v,
                        2,
                        #[inline(always)]
                        move |g: $t, x: $t| g / (x * scale + shift),
                    )
                }
            }
        }
    };
}
kernels!(run_f32, f32, true, vecmath_f32::sigmoid, vecmath_f32::exp);
kernels!(run_f64, f64, false, sigmoid::<false>, exp::<false>);

/// `f(g, v)` elementwise (`weight`: its cost for splitting across threads). Where `v` covers a
/// run of storage densely (contiguous, or transposed), the pass walks that run in order, `g`
/// read in the same order (copied into it first unless it already is laid out so, a blocked
/// copy for a transpose), and the result takes `v`'s layout. Otherwise both are read row-major.
fn zip_grad<T: Element>(g: &Array, v: &Array, weight: usize, f: impl Fn(T, T) -> T + Sync + Copy) -> Result<Array> {
    zip_grad_with(g, v, weight, move |a: &[T], b: &[T], out: &mut [MaybeUninit<T>]| zip_slices(a, b, out, &f))
}

/// `zip_grad` with a kernel over runs of both operands rather than an elementwise function.
fn zip_grad_with<T: Element>(
    g: &Array,
    v: &Array,
    weight: usize,
    kernel: impl Fn(&[T], &[T], &mut [MaybeUninit<T>]) + Sync + Copy,
) -> Result<Array> {
    g.with_slice::<T, _>("activation_backward", |gs, gl| {
        v.with_slice::<T, _>("activation_backward", |vs, vl| {
            let n = vl.numel();
            if n == 0 {
                return Array::from_vec(Vec::<T>::new(), &vl.shape);
            }
            if let Some(order) = storage_order(vl) {
                // v's dims outermost first: v viewed so is contiguous, g viewed so walks its
                // elements in v's storage order.
                let permute = |l: &Layout| Layout {
                    shape: order.iter().map(|&d| l.shape[d]).collect(),
                    strides: order.iter().map(|&d| l.strides[d]).collect(),
                    offset: l.offset,
                };
                let (gp, start) = (permute(gl), vl.offset);
                let copied;
                let g_run = if gp.is_contiguous() {
                    &gs[gp.offset..gp.offset + n]
                } else {
                    copied = map1(gs, &gp, |x: T| x)?;
                    &copied[..]
                };
                let data = zip(g_run, &vs[start..start + n], weight, kernel)?;
                let layout = Layout { shape: vl.shape.clone(), strides: vl.strides.clone(), offset: 0 };
                return Ok(Array::from_vec(data, &[n])?.with_layout(layout));
            }
            // v strided with gaps or broadcast: both read row-major (blocked for transposes).
            let dense = |s: &[T], l: &Layout| -> Result<Vec<T>> { map1(s, l, |x: T| x) };
            let (gd, vd) = (dense(gs, gl)?, dense(vs, vl)?);
            Array::from_vec(zip(&gd, &vd, weight, kernel)?, &vl.shape)
        })?
    })?
}

/// `kernel` over two equal-length slices, split across threads.
fn zip<T: Element>(a: &[T], b: &[T], weight: usize, kernel: impl Fn(&[T], &[T], &mut [MaybeUninit<T>]) + Sync) -> Result<Vec<T>> {
    written_output(a.len(), |out| {
        for_each_chunk_weighted(out, 1, weight, |start, o| {
            let end = start + o.len();
            kernel(&a[start..end], &b[start..end], o)
        })
    })
}

/// Where a layout covers a run of storage exactly once with no gaps (its dims, in some order,
/// are those of a contiguous tensor): its dims ordered outermost (largest stride) first, so that
/// the layout permuted so is contiguous. Size-one dims, whose strides mean nothing, go first.
pub(crate) fn storage_order(l: &Layout) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..l.shape.len()).collect();
    order.sort_by_key(|&d| (l.shape[d] != 1, std::cmp::Reverse(l.strides[d])));
    let mut expected = 1usize;
    for &d in order.iter().rev() {
        if l.shape[d] == 1 {
            continue;
        }
        if l.strides[d] != expected {
            return None;
        }
        expected = expected.checked_mul(l.shape[d])?;
    }
    Some(order)
}
