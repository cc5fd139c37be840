//! clamp and its one-sided forms (clamp_min, clamp_max) with PyTorch's overloads: number
//! bounds (their result dtype, saturation and range errors) or tensor bounds (broadcast and
//! promoted), under PyTorch's node names.

use crate::autograd::composite::{composite, composite_optional};
use crate::dtype::{result_type, DType, Operand};
use crate::error::{Error, Result};
use crate::tensor::arith::Arg;
use crate::tensor::scalar_check::int_range;
use crate::tensor::{BinaryOp, Scalar, Tensor};

impl Tensor {
    /// `clamp(min, max)`: each bound absent, a number or a tensor. All-number bounds are one
    /// ClampBackward1 node; a tensor bound makes it ClampBackward0, whose inputs list both
    /// bounds (None for one absent or given as a number), as PyTorch's overloads do.
    pub fn clamp(&self, min: Option<Arg>, max: Option<Arg>) -> Result<Tensor> {
        let number = |b: Option<Arg>| match b {
            Some(Arg::S(s)) => Ok(Some(s)),
            Some(Arg::T(_)) => Err(()),
            None => Ok(None),
        };
        if let (Ok(lo), Ok(hi)) = (number(min), number(max)) {
            let r = self.clamp_scalar(lo, hi)?;
            return Ok(one(composite("ClampBackward1", &[self], vec![r])));
        }
        let mut r = self.clone();
        if let Some(lo) = min {
            r = crate::tensor::arith::binary(Arg::T(&r), lo, BinaryOp::Maximum)?;
        }
        if let Some(hi) = max {
            r = crate::tensor::arith::binary(Arg::T(&r), hi, BinaryOp::Minimum)?;
        }
        fn tensor<'a>(b: Option<Arg<'a>>) -> Option<&'a Tensor> {
            match b {
                Some(Arg::T(t)) => Some(t),
                _ => None,
            }
        }
        Ok(one(composite_optional("ClampBackward0", &[Some(self), tensor(min), tensor(max)], vec![r])))
    }

    /// `clamp_min(min)`: `clamp(min, None)` under ClampMinBackward0.
    pub fn clamp_min(&self, min: Arg) -> Result<Tensor> {
        let r = self.clamp(Some(min), None)?;
        Ok(one(composite("ClampMinBackward0", &[self], vec![r])))
    }

    /// `clamp_max(max)`: `clamp(None, max)` under ClampMaxBackward0.
    pub fn clamp_max(&self, max: Arg) -> Result<Tensor> {
        let r = self.clamp(None, Some(max))?;
        Ok(one(composite("ClampMaxBackward0", &[self], vec![r])))
    }

    /// `clamp(min, max)` with scalar bounds; NaN stays NaN. No node of its own: `clamp` names it.
    pub fn clamp_scalar(&self, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
        if min.is_none() && max.is_none() {
            return Err(Error::Runtime("torch.clamp: At least one of 'min' or 'max' must not be None".into()));
        }
        let mut ops = vec![Operand::Tensor(self.dtype())];
        ops.extend(min.iter().chain(max.iter()).map(|s| Operand::Scalar(s.category())));
        let dtype = result_type(&ops);
        // An integer bound beyond the dtype's range on its own side clamps nothing: it saturates
        // rather than wraps (int8 clamp(max=1000) keeps every value). One beyond the other side
        // would clamp everything to a value the dtype lacks: PyTorch refuses it.
        let saturate = |s: Scalar, which: &str| -> Result<Scalar> {
            match s {
                Scalar::Int(i) if !dtype.is_floating_point() && dtype != DType::Bool => {
                    let (lo, hi) = int_range(dtype);
                    if (which == "min" && i > hi) || (which == "max" && i < lo) {
                        return Err(Error::Runtime(format!(
                            "Clamp {which} value {i} is outside the representable range of {}",
                            dtype.title_name()
                        )));
                    }
                    Ok(Scalar::Int(i.clamp(lo, hi)))
                }
                s => Ok(s),
            }
        };
        let min = min.map(|s| saturate(s, "min")).transpose()?;
        let max = max.map(|s| saturate(s, "max")).transpose()?;
        let x = self.to_dtype(dtype)?;
        let clamped = {
            let _raw = crate::autograd::GradMode::disabled();
            let mut t = x.clone();
            if let Some(lo) = min {
                t = t.binary_scalar(BinaryOp::Maximum, lo, false)?;
            }
            if let Some(hi) = max {
                t = t.binary_scalar(BinaryOp::Minimum, hi, false)?;
            }
            t
        };
        if !(crate::autograd::is_grad_enabled() && x.requires_grad()) {
            return Ok(clamped);
        }
        // PyTorch's clamp passes the gradient strictly inside the bounds only: none at a bound,
        // none where the input is NaN. The values are the clamped ones everywhere else.
        let mut out = x.clone();
        for (bound, inside) in [(min, BinaryOp::Gt), (max, BinaryOp::Lt)] {
            if let Some(b) = bound {
                let keep = x.binary_scalar(inside, b, false)?;
                out = Tensor::where_(&keep, Arg::T(&out), Arg::T(&clamped))?;
            }
        }
        Ok(out)
    }
}

/// The one output of a composite node.
fn one(mut outputs: Vec<Tensor>) -> Tensor {
    outputs.pop().expect("one output in, one out")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(values: Vec<f64>) -> Tensor {
        let n = values.len();
        let t = Tensor::from_vec(values, &[n]).unwrap();
        t.set_requires_grad(true).unwrap();
        t
    }

    #[test]
    fn number_and_tensor_bounds_take_pytorchs_overloads() {
        let x = leaf(vec![-2.0, 0.5, 3.0]);
        let by_numbers = x.clamp(Some(Arg::S(Scalar::Int(-1))), Some(Arg::S(Scalar::Int(1)))).unwrap();
        assert_eq!(by_numbers.to_vec::<f64>().unwrap(), [-1.0, 0.5, 1.0]);
        assert_eq!(by_numbers.grad_fn().unwrap().name(), "ClampBackward1");
        let hi = Tensor::from_vec(vec![0.0f64, 0.0, 5.0], &[3]).unwrap();
        let by_tensor = x.clamp(None, Some(Arg::T(&hi))).unwrap();
        assert_eq!(by_tensor.to_vec::<f64>().unwrap(), [-2.0, 0.0, 3.0]);
        assert_eq!(by_tensor.grad_fn().unwrap().name(), "ClampBackward0");
        assert_eq!(x.clamp_min(Arg::S(Scalar::Float(0.0))).unwrap().grad_fn().unwrap().name(), "ClampMinBackward0");
        assert_eq!(x.clamp_max(Arg::T(&hi)).unwrap().grad_fn().unwrap().name(), "ClampMaxBackward0");
    }

    #[test]
    fn no_bound_is_pytorchs_error() {
        let e = leaf(vec![1.0]).clamp(None, None).unwrap_err();
        assert_eq!(e.to_string(), "torch.clamp: At least one of 'min' or 'max' must not be None");
    }

    #[test]
    fn rounded_division_and_whole_tensor_extrema() {
        use crate::tensor::arith::{div_rounded, RoundingMode};
        let a = Tensor::from_vec(vec![-7i64, 7], &[2]).unwrap();
        let trunc = div_rounded(&a, Arg::S(Scalar::Int(2)), RoundingMode::Trunc).unwrap();
        assert_eq!(trunc.to_vec::<i64>().unwrap(), [-3, 3]);
        let floor = div_rounded(&a, Arg::S(Scalar::Int(2)), RoundingMode::Floor).unwrap();
        assert_eq!(floor.to_vec::<i64>().unwrap(), [-4, 3]);
        assert!(RoundingMode::parse("round").unwrap_err().to_string().contains("but found 'round'"));
        let x = leaf(vec![1.0, 4.0, 2.0]);
        let m = x.extremum_all(true).unwrap();
        assert_eq!(m.to_vec::<f64>().unwrap(), [4.0]);
        assert_eq!(m.grad_fn().unwrap().name(), "MaxBackward1");
        let empty = Tensor::from_vec(Vec::<f64>::new(), &[0]).unwrap();
        assert!(empty.extremum_all(false).unwrap_err().to_string().starts_with("min(): Expected reduction dim"));
    }
}
