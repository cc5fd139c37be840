//! The CPU's elementwise ops of two arrays (arithmetic, comparisons, logical and bitwise ops)
//! and `where`, on operands the tensor layer has broadcast and whose dtypes it has decided.

use std::borrow::Cow;

use crate::backend::{Array, Operand};
use crate::cpu::binary_math::{copysign_elem, hypot_elem};
use crate::cpu::cast::copy_as;
#[cfg(target_arch = "x86_64")]
use crate::cpu::elementwise::map2_f32_slices;
use crate::cpu::elementwise::{map2, map3, update};
use crate::cpu::num::Arith;
use crate::cpu::simd::fold_slice;
use crate::cpu::special_fns::{
    chebyshev, hermite_h, hermite_he, igamma_for, igammac_for, laguerre_l, legendre_p, shifted_chebyshev, zeta64,
};
use crate::cpu::vecmath::atan2_elem;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::binary::{binary_op_table, BinaryOp};
use crate::with_arith_dtype;

/// An operand as an array of `dtype` viewed at `shape`: the operand itself where it already is
/// one (the common case, borrowed: a small op must not pay for layout copies). A broadcast array
/// is converted before it is broadcast again (its zero-stride dims collapsed), so a conversion
/// never copies more than the operand holds.
fn operand_as<'a>(x: &Operand<'a>, dtype: DType, shape: &[usize]) -> Result<Cow<'a, Array>> {
    let a = match *x {
        Operand::Array(a) if a.dtype() == dtype && a.shape() == shape => return Ok(Cow::Borrowed(a)),
        Operand::Array(a) if a.dtype() == dtype => return Ok(Cow::Owned(a.broadcast_to(shape))),
        Operand::Scalar(s) => crate::with_dtype!(dtype, T => Array::from_vec(vec![s.to_element::<T>()], &[]))?,
        Operand::Array(a) => {
            let l = a.layout();
            let compact = Layout {
                shape: l.shape.iter().zip(&l.strides).map(|(&n, &s)| if s == 0 { n.min(1) } else { n }).collect(),
                strides: l.strides.clone(),
                offset: l.offset,
            };
            copy_as(&a.with_layout(compact), dtype)?
        }
    };
    Ok(Cow::Owned(a.broadcast_to(shape)))
}

/// `a op b` computed in `compute` (16-bit floats in float32) and given as `out`.
// The generic comparisons below also run for bool elements, where clippy would rewrite them.
#[allow(clippy::bool_comparison)]
pub fn binary(op: BinaryOp, a: Operand<'_>, b: Operand<'_>, shape: &[usize], compute: DType, out: DType) -> Result<Array> {
    let kernel_dtype = if compute.is_half() { DType::F32 } else { compute };
    let (ta, tb) = (operand_as(&a, kernel_dtype, shape)?, operand_as(&b, kernel_dtype, shape)?);
    #[cfg(target_arch = "x86_64")]
    if let (BinaryOp::Pow, DType::F32, Some(simd)) = (op, kernel_dtype, crate::cpu::simd::avx512()) {
        use crate::cpu::vecmath_avx512::ZipLanes;
        let pow = crate::cpu::vecmath_avx512_pow::Pow;
        let v = ta.with_slice::<f32, _>("pow", |sa, la| {
            tb.with_slice::<f32, _>("pow", |sb, lb| map2_f32_slices(sa, la, sb, lb, |x, y, o| pow.zip_into(simd, x, y, o)))
        })???;
        return finish(Array::from_vec(v, shape)?, out);
    }
    let result = with_arith_dtype!(kernel_dtype, T => {
        ta.with_slice::<T, _>(op.name(), |sa, la| tb.with_slice::<T, _>(op.name(), |sb, lb| {
            // The quotient ops try their vectorised forms first (`Arith::fmod_quick`).
            let quick = match op {
                BinaryOp::Fmod => Some(map2(sa, la, sb, lb, #[inline(always)] |x: T, y: T| x.fmod_quick(y))?),
                BinaryOp::Rem => Some(map2(sa, la, sb, lb, #[inline(always)] |x: T, y: T| x.rem_quick(y))?),
                BinaryOp::FloorDiv => Some(map2(sa, la, sb, lb, #[inline(always)] |x: T, y: T| x.floor_div_quick(y))?),
                _ => None,
            };
            if let Some(v) = quick.filter(|v| !may_hold_nan(v)) {
                return Array::from_vec(v, shape);
            }
            // The kernel of every declared op (`ops/binary.rs`), by the class of its result.
            macro_rules! kernels {
                ($($(#[$doc:meta])* $V:ident {
                    name: $name:literal, node: $node:literal, class: $class:ident, wgpu: ($wf:expr, $wi:expr),
                    py: [$($py:ident $py_inplace:ident),*], other: $other:ident,
                    cpu: |$x:ident, $y:ident| $cpu:expr,
                    grad: |$g:ident, $a:ident, $b:ident, $need:ident| $grad:expr,
                })*) => {
                    match op {
                        // `inline(always)`: see `registered_float` in `cpu/unary.rs`.
                        $(BinaryOp::$V => kernels!(@$class #[inline(always)] |$x: T, $y: T| $cpu),)*
                    }
                };
                (@Arith $f:expr) => { Array::from_vec(map2(sa, la, sb, lb, $f)?, shape) };
                (@Bitwise $f:expr) => { Array::from_vec(map2(sa, la, sb, lb, $f)?, shape) };
                (@Compare $f:expr) => { Array::from_vec::<bool>(map2(sa, la, sb, lb, $f)?, shape) };
                (@Logical $f:expr) => { Array::from_vec::<bool>(map2(sa, la, sb, lb, $f)?, shape) };
            }
            binary_op_table!(kernels)
        }))??
    })?;
    finish(result, out)
}

/// `result` as the `out` dtype.
fn finish(result: Array, out: DType) -> Result<Array> {
    if result.dtype() == out {
        return Ok(result);
    }
    copy_as(&result, out)
}

/// Whether `v` may hold a NaN: true where it holds a NaN or an infinity. One pass of a sum of
/// `x - x` (0 for a finite x, NaN for NaN and infinities), which vectorises as a sum does; a
/// fold of `is_nan` flags compiled to a chain of mask operations, 38% of remainder's time. The
/// quick quotient kernels mark their fallbacks with NaN and give no infinity from finite
/// operands, so an infinity only costs the exact pass, which gives the same results.
fn may_hold_nan<T: Element + Arith>(v: &[T]) -> bool {
    fold_slice::<T, T, 32>(v, T::zero(), &|a, x| a.add(x.sub(x)), &|a, b| a.add(b)).is_nan()
}

/// `cond ? a : b` as a new array of `shape` and `dtype`; the condition is read as truth values.
pub fn where_(cond: &Array, a: Operand<'_>, b: Operand<'_>, shape: &[usize], dtype: DType) -> Result<Array> {
    let (ta, tb) = (operand_as(&a, dtype, shape)?, operand_as(&b, dtype, shape)?);
    let c = operand_as(&Operand::Array(cond), DType::Bool, shape)?;
    crate::with_dtype!(dtype, T => {
        c.with_slice::<bool, _>("where", |sc, lc| ta.with_slice::<T, _>("where", |sa, la| tb.with_slice::<T, _>("where", |sb, lb| {
            Array::from_vec(map3(sc, lc, sa, la, sb, lb, |c: bool, x: T, y: T| if c { x } else { y })?, shape)
        })))???
    })
}

/// `dst op= other` written straight into dst's memory, for the float arithmetic that in-place
/// ops run most (add_, sub_, mul_, div_ on float32/float64): `other` is of dst's dtype and shape
/// (broadcast strides allowed) or a number, and shares no memory with dst. False, untouched,
/// for anything else: the caller then computes out of place and copies.
pub fn binary_inplace(op: BinaryOp, dst: &Array, other: Operand<'_>) -> Result<bool> {
    fn run<T: Element + std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T> + std::ops::Div<Output = T>>(
        op: BinaryOp,
        dst: &Array,
        other: &Operand<'_>,
    ) -> Result<bool> {
        let src = operand_as(other, T::DTYPE, dst.shape())?;
        src.with_slice::<T, _>(op.name(), |s, sl| {
            dst.with_slice_mut::<T, _>(op.name(), |d, dl| match op {
                BinaryOp::Add => update(d, dl, s, sl, |a, b| a + b),
                BinaryOp::Sub => update(d, dl, s, sl, |a, b| a - b),
                BinaryOp::Mul => update(d, dl, s, sl, |a, b| a * b),
                _ => update(d, dl, s, sl, |a, b| a / b),
            })
        })??;
        Ok(true)
    }
    if !matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div) || dst.layout().has_internal_overlap() {
        return Ok(false);
    }
    match dst.dtype() {
        DType::F32 => run::<f32>(op, dst, &other),
        DType::F64 => run::<f64>(op, dst, &other),
        _ => Ok(false),
    }
}
