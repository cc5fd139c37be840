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

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Relu,
    Floor,
    Ceil,
    Round,
    Trunc,
    LogicalNot,
    BitwiseNot,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Sigmoid,
    Gelu,
    GeluTanh,
    Silu,
    Erf,
    Reciprocal,
    Softplus {
        beta: f64,
        threshold: f64,
    },
    LeakyRelu {
        slope: f64,
    },
    Elu {
        alpha: f64,
    },
    /// `x ** exponent` for a Python-number exponent.
    PowScalar(f64),
}

impl UnaryOp {
    /// PyTorch's name of the op, for errors.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Sign => "sign",
            Relu => "relu",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            LogicalNot => "logical_not",
            BitwiseNot => "bitwise_not",
            Exp => "exp",
            Exp2 => "exp2",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Expm1 => "expm1",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            Gelu | GeluTanh => "gelu",
            Silu => "silu",
            Erf => "erf",
            Reciprocal => "reciprocal",
            Softplus { .. } => "softplus",
            LeakyRelu { .. } => "leaky_relu",
            Elu { .. } => "elu",
            PowScalar(_) => "pow",
        }
    }

    /// Which of (input, output) the backward formula reads, so that only those are saved: an
    /// op that needs its output alone keeps working when its input is overwritten in place.
    pub(crate) fn backward_reads(self) -> (bool, bool) {
        use UnaryOp::*;
        match self {
            Neg | Sign | Floor | Ceil | Round | Trunc | LogicalNot | BitwiseNot => (false, false),
            Relu | Exp | Exp2 | Expm1 | Sqrt | Rsqrt | Tan | Tanh | Sigmoid | Reciprocal => (false, true),
            _ => (true, false),
        }
    }

    /// Ops that keep integer dtypes (everything else computes in floating point).
    fn keeps_integers(self) -> bool {
        use UnaryOp::*;
        matches!(self, Neg | Abs | Sign | Relu | Floor | Ceil | Round | Trunc | BitwiseNot)
    }
}

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
            UnaryOp::LogicalNot if !self.device().is_cpu() => return crate::wgpu::unary(self, op),
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
            return crate::wgpu::unary(self, op);
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
    ($T:ty, $pi:expr) => {
        impl FloatOps for $T {
            fn apply(op: UnaryOp, s: &[$T], l: &crate::layout::Layout) -> Result<Vec<$T>> {
                type T = $T;
                let sigmoid = |x: T| 1.0 / (1.0 + (-x).exp_());
                match op {
                    UnaryOp::Neg => map1(s, l, |x: T| -x),
                    UnaryOp::Abs => map1(s, l, |x: T| x.abs()),
                    UnaryOp::Sign => map1(s, l, |x: T| Arith::sign(x)),
                    UnaryOp::Relu => map1(s, l, |x: T| if x > 0.0 || x != x { x } else { 0.0 }),
                    UnaryOp::Floor => map1(s, l, |x: T| x.floor()),
                    UnaryOp::Ceil => map1(s, l, |x: T| x.ceil()),
                    UnaryOp::Round => map1(s, l, |x: T| x.round_ties_even()),
                    UnaryOp::Trunc => map1(s, l, |x: T| x.trunc()),
                    UnaryOp::Exp => map1(s, l, |x: T| x.exp_()),
                    UnaryOp::Exp2 => map1(s, l, |x: T| x.exp2()),
                    UnaryOp::Log => map1(s, l, |x: T| x.ln()),
                    UnaryOp::Log2 => map1(s, l, |x: T| x.log2()),
                    UnaryOp::Log10 => map1(s, l, |x: T| x.log10()),
                    UnaryOp::Log1p => map1(s, l, |x: T| x.ln_1p()),
                    UnaryOp::Expm1 => map1(s, l, |x: T| x.exp_m1()),
                    UnaryOp::Sqrt => map1(s, l, |x: T| x.sqrt()),
                    UnaryOp::Rsqrt => map1(s, l, |x: T| 1.0 / x.sqrt()),
                    UnaryOp::Sin => map1(s, l, |x: T| x.sin()),
                    UnaryOp::Cos => map1(s, l, |x: T| x.cos()),
                    UnaryOp::Tan => map1(s, l, |x: T| x.tan()),
                    UnaryOp::Asin => map1(s, l, |x: T| x.asin()),
                    UnaryOp::Acos => map1(s, l, |x: T| x.acos()),
                    UnaryOp::Atan => map1(s, l, |x: T| x.atan()),
                    UnaryOp::Sinh => map1(s, l, |x: T| x.sinh()),
                    UnaryOp::Cosh => map1(s, l, |x: T| x.cosh()),
                    UnaryOp::Tanh => map1(s, l, |x: T| x.tanh()),
                    UnaryOp::Sigmoid => map1(s, l, sigmoid),
                    UnaryOp::Silu => map1(s, l, |x: T| x * sigmoid(x)),
                    UnaryOp::Erf => map1(s, l, |x: T| x.erf_()),
                    UnaryOp::Gelu => map1(s, l, |x: T| 0.5 * x * (1.0 + (x * std::f64::consts::FRAC_1_SQRT_2 as T).erf_())),
                    UnaryOp::GeluTanh => {
                        let k = (2.0 / $pi as f64).sqrt() as T;
                        map1(s, l, move |x: T| 0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh()))
                    }
                    UnaryOp::Reciprocal => map1(s, l, |x: T| 1.0 / x),
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
                }
            }
        }
    };
}
float_ops!(f32, std::f64::consts::PI);
float_ops!(f64, std::f64::consts::PI);
