//! Floating-point classification and repair: isnan, isinf, isposinf, isneginf, isfinite and
//! nan_to_num, with PyTorch's rules for integer and bool inputs (never NaN nor infinite) and
//! its per-dtype defaults. (isclose is a composite op: `src/ops/composite.rs`.)

use crate::autograd::GradMode;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor, UnaryOp};

/// Which values `Tensor::classify` marks true (declared with the unary ops, for the backends).
pub use crate::ops::unary::FloatClass;

/// The largest finite value of a floating dtype (nan_to_num's default for +inf).
fn finite_max(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => half::f16::MAX.to_f64(),
        DType::BF16 => half::bf16::MAX.to_f64(),
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

impl Tensor {
    /// A bool tensor marking the elements of class `class`. Integer and bool tensors hold no
    /// NaN or infinity: all false, or all true for `Finite`.
    pub fn classify(&self, class: FloatClass) -> Result<Tensor> {
        let _raw = GradMode::disabled();
        let dtype = self.dtype();
        if !dtype.is_floating_point() {
            let all = class == FloatClass::Finite;
            return Tensor::full_on(self.shape(), Scalar::Bool(all), DType::Bool, self.device());
        }
        crate::tensor::check_alloc(self.shape(), DType::Bool)?;
        // In the input's memory order, as every elementwise result (`result_layout`).
        let x = self.array();
        let order = crate::result_layout::result_order(self.shape(), &[x.layout()]);
        let mut declined = false;
        let marks = crate::result_layout::compute_in_order(order, self.shape(), &[x], |xs, _| {
            self.backend().classify(&xs[0], class)?.ok_or_else(|| {
                declined = true;
                crate::error::Error::NotImplemented("classify".into())
            })
        });
        if !declined {
            return Ok(Tensor::from_array(marks?));
        }
        // Through the device's comparisons: NaN is the one value unequal to itself.
        let inf = Scalar::Float(f64::INFINITY);
        match class {
            FloatClass::Nan => self.binary(BinaryOp::Ne, self),
            FloatClass::PosInf => self.binary_scalar(BinaryOp::Eq, inf, false),
            FloatClass::NegInf => self.binary_scalar(BinaryOp::Eq, Scalar::Float(f64::NEG_INFINITY), false),
            FloatClass::Inf => self.unary(UnaryOp::Abs)?.binary_scalar(BinaryOp::Eq, inf, false),
            FloatClass::Finite => self.unary(UnaryOp::Abs)?.binary_scalar(BinaryOp::Lt, inf, false),
        }
    }

    /// `nan_to_num(nan, posinf, neginf)`: NaN becomes `nan` (0 by default), +inf `posinf` and
    /// -inf `neginf` (by default the dtype's largest and lowest finite values). Integer and bool
    /// tensors come back as a copy. The gradient passes where the input was finite.
    pub fn nan_to_num(&self, nan: Option<f64>, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        let dtype = self.dtype();
        if !dtype.is_floating_point() {
            return self.copy_as(dtype);
        }
        crate::autograd::named("NanToNumBackward0", &[self], || {
            let mut out = self.clone();
            let replace = |out: &Tensor, class: FloatClass, value: f64| -> Result<Tensor> {
                let mask = self.classify(class)?;
                Tensor::where_(&mask, Arg::S(Scalar::Float(value)), Arg::T(out))
            };
            out = replace(&out, FloatClass::Nan, nan.unwrap_or(0.0))?;
            out = replace(&out, FloatClass::PosInf, posinf.unwrap_or(finite_max(dtype)))?;
            out = replace(&out, FloatClass::NegInf, neginf.unwrap_or(-finite_max(dtype)))?;
            out.to_dtype(dtype)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_of_special_values() {
        let t = Tensor::from_vec(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, 1.5], &[5]).unwrap();
        let get = |c| t.classify(c).unwrap().to_vec::<bool>().unwrap();
        assert_eq!(get(FloatClass::Nan), [true, false, false, false, false]);
        assert_eq!(get(FloatClass::Inf), [false, true, true, false, false]);
        assert_eq!(get(FloatClass::Finite), [false, false, false, true, true]);
        let n = t.nan_to_num(None, None, Some(-7.0)).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(n, [0.0, f32::MAX, -7.0, 0.0, 1.5]);
    }
}
