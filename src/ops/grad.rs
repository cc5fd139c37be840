//! Small tensor-op helpers for writing gradient formulas.

use crate::error::Result;
use crate::tensor::{BinaryOp, Scalar, Tensor, UnaryOp};

pub fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.binary(BinaryOp::Mul, b)
}

/// `a * s` for a number `s`.
pub fn muls(a: &Tensor, s: f64) -> Result<Tensor> {
    a.binary_scalar(BinaryOp::Mul, f(s), false)
}

/// `a + s` for a number `s`.
pub fn adds(a: &Tensor, s: f64) -> Result<Tensor> {
    a.binary_scalar(BinaryOp::Add, f(s), false)
}

/// `a op s` for a comparison `op` and a number `s` (a bool mask).
pub fn cmps(a: &Tensor, op: BinaryOp, s: f64) -> Result<Tensor> {
    a.binary_scalar(op, f(s), false)
}

/// `1 - a`.
pub fn one_minus(a: &Tensor) -> Result<Tensor> {
    Tensor::ones(&[], a.dtype())?.binary(BinaryOp::Sub, a)
}

pub fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.binary(BinaryOp::Div, b)
}

pub fn un(a: &Tensor, op: UnaryOp) -> Result<Tensor> {
    a.unary(op)
}

/// The gradients of `maximum(a, b)` (`max`) or `minimum(a, b)`: each side loses its share only
/// where the other strictly wins, and ties split it. A NaN compares as neither, so both sides of
/// a NaN get the gradient.
pub fn extremum_grads(g: &Tensor, a: &Tensor, b: &Tensor, max: bool) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let (a_loses, b_loses) = if max { (BinaryOp::Lt, BinaryOp::Gt) } else { (BinaryOp::Gt, BinaryOp::Lt) };
    let half_ties = muls(&a.binary(BinaryOp::Eq, b)?.to_dtype(g.dtype())?, 0.5)?;
    let one = Tensor::ones(&[], g.dtype())?;
    let share = |loses: BinaryOp| one.binary(BinaryOp::Sub, &a.binary(loses, b)?.to_dtype(g.dtype())?)?.binary(BinaryOp::Sub, &half_ties);
    Ok((Some(mul(g, &share(a_loses)?)?), Some(mul(g, &share(b_loses)?)?)))
}
