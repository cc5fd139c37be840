//! Composite ops: ops PyTorch defines from others, each declared once in `composite_ops!` as a
//! body in tensor ops. The body runs under one node named like PyTorch's (`autograd::named`),
//! whose backward goes through the graph the body recorded: the gradient comes for free, and
//! every backend that has the body's ops has the op.
//!
//! An entry `name(a, b) => "NodeBackward0" { body }` gives `Tensor::name(&self, other)`, the
//! Python `Tensor.name` and `torch.name` (`src/python/composite.rs`, `_C._composite_ops()`).

use crate::error::Result;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp as B, Tensor, UnaryOp as U};

use super::grad::{f, muls};

/// Calls `$consumer! { entries }` with every declared composite op of two tensors.
macro_rules! composite_op_table {
    ($consumer:ident) => {
        $consumer! {
            /// `log(exp(a) + exp(b))`, as `max(a, b) + log1p(exp(-|a - b|))`; equal infinities give themselves.
            logaddexp(a, b) => "LogaddexpBackward0" {
                let m = a.binary(B::Maximum, b)?;
                let r = m.binary(B::Add, &a.binary(B::Sub, b)?.unary(U::Abs)?.unary(U::Neg)?.unary(U::Exp)?.unary(U::Log1p)?)?;
                same_infinity(a, b, &r)?
            }
            /// `log2(2^a + 2^b)`, as `max(a, b) + log1p(2^-|a - b|) / ln 2`.
            logaddexp2(a, b) => "Logaddexp2Backward0" {
                let m = a.binary(B::Maximum, b)?;
                let d = a.binary(B::Sub, b)?.unary(U::Abs)?.unary(U::Neg)?.unary(U::Exp2)?.unary(U::Log1p)?;
                let r = m.binary(B::Add, &muls(&d, std::f64::consts::LOG2_E)?)?;
                same_infinity(a, b, &r)?
            }
            /// `sqrt(a² + b²)`; infinite where either is (even against NaN).
            hypot(a, b) => "HypotBackward0" {
                let r = a.binary(B::Mul, a)?.binary(B::Add, &b.binary(B::Mul, b)?)?.unary(U::Sqrt)?;
                let inf = |t: &Tensor| t.unary(U::Abs)?.binary_scalar(B::Eq, f(f64::INFINITY), false);
                Tensor::where_(&inf(a)?.binary(B::LogicalOr, &inf(b)?)?, Arg::S(f(f64::INFINITY)), Arg::T(&r))?
            }
            /// `a * log(b)`, 0 where `a` is 0 and `b` is not NaN.
            xlogy(a, b) => "XlogyBackward0" {
                let r = a.binary(B::Mul, &b.unary(U::Log)?)?;
                let zero = a.binary_scalar(B::Eq, f(0.0), false)?.binary(B::LogicalAnd, &b.binary(B::Eq, b)?)?;
                Tensor::where_(&zero, Arg::S(f(0.0)), Arg::T(&r))?
            }
        }
    };
}
#[allow(unused_imports)] // used by the Python bindings (feature `python`)
pub(crate) use composite_op_table;

/// `r`, except `a` where `a` and `b` are the same infinity (whose difference is NaN).
fn same_infinity(a: &Tensor, b: &Tensor, r: &Tensor) -> Result<Tensor> {
    let inf = a.unary(U::Abs)?.binary_scalar(B::Eq, f(f64::INFINITY), false)?.binary(B::LogicalAnd, &a.binary(B::Eq, b)?)?;
    Tensor::where_(&inf, Arg::T(a), Arg::T(r))
}

macro_rules! define_composite_ops {
    ($($(#[$doc:meta])* $name:ident($a:ident, $b:ident) => $node:literal $body:block)*) => {
        impl Tensor {
            $(
                $(#[$doc])*
                pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
                    crate::autograd::named($node, &[self, other], || {
                        let ($a, $b) = (self, other);
                        Ok($body)
                    })
                }
            )*
        }

        /// The composite ops' names, bound as `Tensor.X` and `torch.X`.
        pub const PY_METHODS: &[&str] = &[$(stringify!($name),)*];
    };
}

composite_op_table!(define_composite_ops);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_composite_op_has_its_node_and_gradient() -> Result<()> {
        let a = Tensor::from_vec(vec![1.0f64, -2.0], &[2, 1])?;
        let b = Tensor::from_vec(vec![0.5f64, 3.0, -1.0], &[3])?;
        a.set_requires_grad(true)?;
        let y = a.logaddexp(&b)?;
        assert_eq!(y.shape(), &[2, 3]);
        assert_eq!(y.grad_fn().expect("recorded").name(), "LogaddexpBackward0");
        let g = crate::autograd::grad(&[y.sum(None, false)?], &[None], std::slice::from_ref(&a), false, false, false)?;
        // d/da log(e^a + e^b) = sigmoid(a - b), summed over b
        let got = g[0].as_ref().expect("a gradient").to_vec::<f64>()?;
        for (i, av) in [1.0f64, -2.0].iter().enumerate() {
            let want: f64 = [0.5f64, 3.0, -1.0].iter().map(|bv| 1.0 / (1.0 + (bv - av).exp())).sum();
            assert!((got[i] - want).abs() < 1e-14);
        }
        Ok(())
    }
}
