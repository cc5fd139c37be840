//! Elementwise functions of one tensor, with PyTorch's dtype rules (integer inputs of float-only
//! functions become float32).

use crate::autograd::{record, GradMode, Op};
use crate::dtype::{DType, DEFAULT_FLOAT};
use crate::error::{Error, Result};
use crate::ops::unary::unary_op_table;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

use crate::ops::unary::UnaryOp;

impl Tensor {
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.unary_raw(op)?
        };
        let (input, output) = op.backward_reads();
        let (save_in, save_out): (&[usize], &[usize]) = (if input { &[0] } else { &[] }, if output { &[0] } else { &[] });
        record(Op::Unary(op), &[self], &[&out], save_in, save_out);
        Ok(out)
    }

    /// `self.X_()`: the op written over self.
    pub fn unary_(&self, op: UnaryOp) -> Result<()> {
        if self.unary_in_memory(op)? {
            return Ok(());
        }
        self.assign_result_(&self.unary(op)?)
    }

    /// `unary_` in one pass over self's memory, where self is a dense float view the backend
    /// maps in place and autograd's record of it needs no copy: untracked, or tracked with a
    /// formula that reads at most the result (relu_, sigmoid_, tanh_, exp_, and leaky_relu_ and
    /// the elu family, which keep it: the result then is self at its new version) on a tensor
    /// that views no other. False, self untouched, where it
    /// does not apply; the caller then computes out of place and writes back, as before.
    fn unary_in_memory(&self, op: UnaryOp) -> Result<bool> {
        if !matches!(self.dtype(), DType::F32 | DType::F64) || self.layout().dense_run().is_none() {
            return Ok(false);
        }
        let tracked = self.check_inplace(self)?;
        let (reads_input, reads_output) = op.backward_reads();
        // leaky_relu_ and the elu family keep their result, their formula then reading it.
        let keeps_result = op.inplace_keeps_result();
        if tracked && ((reads_input && !keeps_result) || self.view_base().is_some_and(|b| b.shares_storage(self))) {
            return Ok(false);
        }
        {
            let _raw = GradMode::disabled();
            if !self.backend().unary_inplace(self.array(), op)? {
                return Ok(false);
            }
        }
        if tracked {
            // The node's edge is read from self before self takes the node as its grad_fn.
            record(Op::Unary(op), &[self], &[self], &[], if reads_output || keeps_result { &[0] } else { &[] });
        }
        Ok(true)
    }

    fn unary_raw(&self, op: UnaryOp) -> Result<Tensor> {
        let dtype = self.dtype();
        crate::tensor::check_alloc(self.shape(), dtype)?;
        if !dtype.is_floating_point() {
            // Ops with parameters that keep integers say how, in tensor ops (threshold, hardtanh).
            if let Some(integers) = integer_form(op, self) {
                return integers;
            }
        }
        match op {
            UnaryOp::Neg if dtype == DType::Bool => {
                return Err(Error::NotImplemented(
                    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into(),
                ))
            }
            UnaryOp::Abs | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc if dtype == DType::Bool => {
                let kernel = match op {
                    UnaryOp::Abs => "abs_cpu",
                    UnaryOp::Floor => "floor_vml_cpu",
                    UnaryOp::Ceil => "ceil_vml_cpu",
                    UnaryOp::Round => "round_vml_cpu",
                    _ => "trunc_vml_cpu",
                };
                return Err(Error::NotImplemented(format!("\"{kernel}\" not implemented for 'Bool'")));
            }
            UnaryOp::Relu if dtype == DType::Bool => {
                return Err(Error::NotImplemented("Boolean inputs not supported for relu".into()))
            }
            // Float-only kernels in PyTorch (the other float functions take integers as floats).
            UnaryOp::Gelu | UnaryOp::GeluTanh | UnaryOp::Silu if !dtype.is_floating_point() => {
                return refuse_integers(self, if op == UnaryOp::Silu { "silu_cpu" } else { "GeluKernelImpl" })
            }
            UnaryOp::BitwiseNot if dtype.is_floating_point() => {
                return Err(Error::Runtime(format!(
                    "\"bitwise_not_cpu\" not implemented for '{}'",
                    dtype.title_name()
                )))
            }
            // Float functions of integers compute in the default float dtype.
            _ if op != UnaryOp::LogicalNot && !dtype.is_floating_point() && !op.keeps_integers() => {
                return self.to_dtype(DEFAULT_FLOAT)?.unary(op)
            }
            _ => {}
        }
        let x = self.array();
        let order = crate::result_layout::result_order(self.shape(), &[x.layout()]);
        let out = crate::result_layout::compute_in_order(order, self.shape(), &[x], |xs, _| self.backend().unary(&xs[0], op))?;
        Ok(Tensor::from_array(out))
    }
}

/// An `ints:` rule of the table: `float` (compute in the default float dtype) or the op in
/// tensor ops.
macro_rules! integer_rule {
    ($t:ident; float) => {
        None
    };
    ($t:ident; |$x:ident| $e:expr) => {
        Some((|| -> Result<Tensor> {
            let $x = $t;
            Ok($e)
        })())
    };
}

/// `integer_form(op, x)`: the op on an integer or bool tensor where it keeps the dtype (an op
/// with parameters declared with `ints: [|x| ...]` in `ops/unary.rs`); None where integers
/// compute in the default float dtype.
macro_rules! define_integer_forms {
    (plain {$($V:ident {
        name: $name:literal, node: $node:literal, ints: $ints:literal, reads: ($ri:literal, $ro:literal), wgpu: $code:tt,
        py: [$($py:ident),*], inplace: [$($ip:ident),*],
        cpu: |$cx:ident| $cpu:expr,
        grad: |$g:ident, $x:ident, $y:ident| $grad:expr,
    })*}
    with_params {$($PV:ident { $($p:ident = $default:expr),* } {
        name: $pname:literal, node: $pnode:literal, reads: ($pri:literal, $pro:literal), wgpu: $pcode:literal,
        py: $ppy:ident, in_place: $keeps:ident, ints: [$($pints:tt)*],
        cpu: |$pcx:ident| $pcpu:expr,
        grad: |$pg:ident, $px:ident, $py_:ident, $from_result:ident| $pgrad:expr,
    })*}) => {
        fn integer_form(op: UnaryOp, x: &Tensor) -> Option<Result<Tensor>> {
            match op {
                $(UnaryOp::$PV { $($p),* } => {
                    $(let _ = $p;)*
                    integer_rule!(x; $($pints)*)
                })*
                _ => None,
            }
        }
    };
}
unary_op_table!(define_integer_forms);

/// PyTorch's refusal of integer and bool inputs by a float-only kernel named `kernel`
/// (`"leaky_relu_cpu" not implemented for 'Long'`).
fn refuse_integers(x: &Tensor, kernel: &str) -> Result<Tensor> {
    Err(Error::NotImplemented(format!("\"{kernel}\" not implemented for '{}'", x.dtype().title_name())))
}

/// PyTorch's refusal of a bool input where integers are computed as they are.
fn refuse_bool(x: &Tensor, message: &str) -> Result<()> {
    if x.dtype() == DType::Bool {
        return Err(Error::NotImplemented(message.into()));
    }
    Ok(())
}
