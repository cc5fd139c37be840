//! The CPU's elementwise ops of two arrays (arithmetic, comparisons, logical and bitwise ops)
//! and `where`, on operands the tensor layer has broadcast and whose dtypes it has decided.

use std::borrow::Cow;

use crate::backend::{Array, Backend, Operand};
use crate::cpu::elementwise::{map2, map3};
use crate::cpu::num::Arith;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::binary::BinaryOp;
use crate::with_arith_dtype;

use super::Cpu;

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
            Cpu.copy_as(&a.with_layout(compact), dtype)?
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
    let result = with_arith_dtype!(kernel_dtype, T => {
        ta.with_slice::<T, _>(op.name(), |sa, la| tb.with_slice::<T, _>(op.name(), |sb, lb| {
            macro_rules! arith { ($f:expr) => { Array::from_vec(map2(sa, la, sb, lb, $f)?, shape) } }
            macro_rules! compare { ($f:expr) => { Array::from_vec::<bool>(map2(sa, la, sb, lb, $f)?, shape) } }
            match op {
                BinaryOp::Add => arith!(|x: T, y: T| x.add(y)),
                BinaryOp::Sub => arith!(|x: T, y: T| x.sub(y)),
                BinaryOp::Mul => arith!(|x: T, y: T| x.mul(y)),
                BinaryOp::Div => arith!(|x: T, y: T| x.div(y)),
                BinaryOp::FloorDiv => arith!(|x: T, y: T| x.floor_div(y)),
                BinaryOp::Rem => arith!(|x: T, y: T| x.rem(y)),
                BinaryOp::Fmod => arith!(|x: T, y: T| x.fmod(y)),
                BinaryOp::Pow => arith!(|x: T, y: T| Arith::pow(x, y)),
                BinaryOp::Maximum => arith!(|x: T, y: T| x.max_nan(y)),
                BinaryOp::Minimum => arith!(|x: T, y: T| x.min_nan(y)),
                BinaryOp::Atan2 => arith!(|x: T, y: T| T::from_f64(x.to_f64().atan2(y.to_f64()))),
                BinaryOp::Eq => compare!(|x: T, y: T| x == y),
                BinaryOp::Ne => compare!(|x: T, y: T| x != y),
                BinaryOp::Lt => compare!(|x: T, y: T| x < y),
                BinaryOp::Le => compare!(|x: T, y: T| x <= y),
                BinaryOp::Gt => compare!(|x: T, y: T| x > y),
                BinaryOp::Ge => compare!(|x: T, y: T| x >= y),
                BinaryOp::LogicalAnd => compare!(|x: T, y: T| x.is_nonzero() && y.is_nonzero()),
                BinaryOp::LogicalOr => compare!(|x: T, y: T| x.is_nonzero() || y.is_nonzero()),
                BinaryOp::LogicalXor => compare!(|x: T, y: T| x.is_nonzero() != y.is_nonzero()),
                BinaryOp::BitAnd => arith!(|x: T, y: T| T::from_i64(x.to_i64() & y.to_i64())),
                BinaryOp::BitOr => arith!(|x: T, y: T| T::from_i64(x.to_i64() | y.to_i64())),
                BinaryOp::BitXor => arith!(|x: T, y: T| T::from_i64(x.to_i64() ^ y.to_i64())),
                // `threshold_backward`: zero where the output is <= 0, so a NaN output passes the gradient.
                BinaryOp::ReluGrad => arith!(|x: T, y: T| if y <= T::zero() { T::zero() } else { x }),
            }
        }))??
    })?;
    if result.dtype() == out {
        return Ok(result);
    }
    Cpu.copy_as(&result, out)
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
