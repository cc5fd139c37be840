//! Op declarations: each op is written down once here, and the enum, dispatch, gradient, device
//! op code and Python bindings are generated from that one declaration (see `docs/ADDING_AN_OP.md`).

pub mod composite;
pub mod nn;
pub mod unary;

use crate::error::Result;
use crate::tensor::{BinaryOp, Scalar, Tensor, UnaryOp};

/// Small tensor-op helpers for writing gradient formulas.
pub(crate) mod grad {
    use super::*;

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
}
