//! Elementwise functions of one tensor, with PyTorch's dtype rules (integer inputs of float-only
//! functions become float32).

use crate::autograd::{record, GradMode, Op};
use crate::cpu::elementwise::map1;
use crate::cpu::math::FloatMath;
use crate::cpu::num::Arith;
use crate::dtype::{DType, Element, DEFAULT_FLOAT};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::with_arith_dtype;

use crate::ops::unary::RegisteredFloat;
pub use crate::ops::unary::UnaryOp;

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

    fn unary_raw(&self, op: UnaryOp) -> Result<Tensor> {
        let dtype = self.dtype();
        crate::tensor::check_alloc(self.shape(), dtype)?;
        match op {
            UnaryOp::LogicalNot if !self.device().is_cpu() => return Ok(Tensor::from_array(self.backend().unary(self.array(), op)?)),
            UnaryOp::LogicalNot => {
                let b = self.to_dtype(DType::Bool)?;
                return b.with_slice::<bool, _>("logical_not", |s, l| Tensor::from_vec(map1(s, l, |x: bool| !x)?, l.shape.as_slice()))?;
            }
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
            UnaryOp::BitwiseNot if dtype.is_floating_point() => {
                return Err(Error::Runtime(format!(
                    "\"bitwise_not_cpu\" not implemented for '{}'",
                    crate::tensor::arith::title_name(dtype)
                )))
            }
            _ => {}
        }
        if !self.device().is_cpu() {
            if !dtype.is_floating_point() && !op.keeps_integers() {
                return self.to_dtype(DEFAULT_FLOAT)?.unary(op);
            }
            return Ok(Tensor::from_array(self.backend().unary(self.array(), op)?));
        }
        if let (DType::F16, UnaryOp::PowScalar(e)) = (dtype, op) {
            if e.abs() == 0.5 {
                // Float16 is the one dtype whose x ** ±0.5 PyTorch leaves to C's pow.
                let x = self.to_dtype(DType::F32)?;
                let y = x.with_slice::<f32, _>("pow", |s, l| Tensor::from_vec(map1(s, l, |v: f32| v.powf(e as f32))?, &l.shape))??;
                return y.to_dtype(dtype);
            }
        }
        if dtype.is_half() {
            // 16-bit floats compute through f32 and round back once.
            return self.to_dtype(DType::F32)?.unary(op)?.to_dtype(dtype);
        }
        if !dtype.is_floating_point() {
            if op.keeps_integers() {
                return self.integer_unary(op);
            }
            return self.to_dtype(DEFAULT_FLOAT)?.unary(op);
        }
        match dtype {
            DType::F32 => self.float_unary::<f32>(op),
            _ => self.float_unary::<f64>(op),
        }
    }

    fn integer_unary(&self, op: UnaryOp) -> Result<Tensor> {
        with_arith_dtype!(self.dtype(), T => self.with_slice::<T, _>(op.name(), |s, l| {
            let data = match op {
                UnaryOp::Neg => map1(s, l, |x: T| x.neg()),
                UnaryOp::Abs => map1(s, l, |x: T| Arith::abs(x)),
                UnaryOp::Sign => map1(s, l, |x: T| x.sign()),
                UnaryOp::Relu => map1(s, l, |x: T| x.max_nan(T::default())),
                UnaryOp::BitwiseNot if T::DTYPE == DType::Bool => map1(s, l, |x: T| T::from_i64((!x.is_nonzero()) as i64)),
                UnaryOp::BitwiseNot => map1(s, l, |x: T| T::from_i64(!x.to_i64())),
                _ => map1(s, l, |x: T| x), // rounding an integer is the identity
            }?;
            Tensor::from_vec(data, &l.shape)
        })?)
    }

    fn float_unary<T: FloatMath + FloatOps>(&self, op: UnaryOp) -> Result<Tensor> {
        self.with_slice::<T, _>(op.name(), |s, l| Tensor::from_vec(T::apply(op, s, l)?, &l.shape))?
    }
}

/// The per-type body of the float kernels; a macro writes it once for f32 and f64.
pub trait FloatOps: Sized {
    fn apply(op: UnaryOp, s: &[Self], l: &crate::layout::Layout) -> Result<Vec<Self>>;
}

macro_rules! float_ops {
    ($T:ty) => {
        impl FloatOps for $T {
            fn apply(op: UnaryOp, s: &[$T], l: &crate::layout::Layout) -> Result<Vec<$T>> {
                type T = $T;
                match op {
                    UnaryOp::Softplus { beta, threshold } => {
                        let (b, th) = (beta as T, threshold as T);
                        map1(s, l, move |x: T| if x * b > th { x } else { (x * b).exp().ln_1p() / b })
                    }
                    UnaryOp::LeakyRelu { slope } => {
                        let k = slope as T;
                        map1(s, l, move |x: T| if x > 0.0 { x } else { x * k })
                    }
                    UnaryOp::Elu { alpha } => {
                        let a = alpha as T;
                        map1(s, l, move |x: T| if x > 0.0 { x } else { a * x.exp_m1() })
                    }
                    UnaryOp::PowScalar(e) => {
                        let et = e as T;
                        // PyTorch takes x ** 0.5 as sqrt and x ** -0.5 as rsqrt, so that
                        // (-inf) ** 0.5 is NaN and (-0.0) ** 0.5 is -0.0 (C's pow says inf, +0).
                        if e == 0.5 {
                            map1(s, l, |x: T| x.sqrt())
                        } else if e == -0.5 {
                            map1(s, l, |x: T| 1.0 / x.sqrt())
                        } else if e == 2.0 {
                            map1(s, l, |x: T| x * x)
                        } else if e == e.trunc() && e.abs() < 64.0 {
                            let n = e as i32;
                            map1(s, l, move |x: T| x.powi(n))
                        } else {
                            map1(s, l, move |x: T| x.powf(et))
                        }
                    }
                    UnaryOp::LogicalNot | UnaryOp::BitwiseNot => unreachable!("handled before dispatch"),
                    // Every other op is declared in `crate::ops::unary`, its kernel with it.
                    _ => <T as RegisteredFloat>::apply_registered(op, s, l),
                }
            }
        }
    };
}
float_ops!(f32);
float_ops!(f64);
