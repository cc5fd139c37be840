//! clamp and its one-sided forms (clamp_min, clamp_max) with PyTorch's overloads: number
//! bounds (their result dtype, saturation and range errors) or tensor bounds (broadcast and
//! promoted), under PyTorch's node names.

use crate::autograd::composite::{composite, composite_optional};
use crate::autograd::{record_named, Op};
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
        self.clamp_values(self, min, max)
    }

    /// `clamp_(min, max)`: `clamp` written over self.
    pub fn clamp_(&self, min: Option<Arg>, max: Option<Arg>) -> Result<()> {
        if self.clamp_in_memory(min, max)? {
            return Ok(());
        }
        let values = self.before_write(&[min, max])?;
        self.assign_result_(&self.clamp_values(&values, min, max)?)
    }

    /// `clamp_` with number bounds in one pass over self's memory, where nothing records it and
    /// self is a dense float32 / float64 view on the CPU (number bounds keep its dtype): as
    /// `p.clamp_(-c, c)` on weights under `no_grad`. False, self untouched, elsewhere.
    fn clamp_in_memory(&self, min: Option<Arg>, max: Option<Arg>) -> Result<bool> {
        let number = |b: Option<Arg>| match b {
            Some(Arg::S(s)) => Some(Some(s.to_f64())),
            Some(Arg::T(_)) => None,
            None => Some(None),
        };
        let (Some(lo), Some(hi)) = (number(min), number(max)) else { return Ok(false) };
        if (lo.is_none() && hi.is_none()) || !self.device().is_cpu() || !matches!(self.dtype(), DType::F32 | DType::F64) {
            return Ok(false);
        }
        if self.layout().has_internal_overlap() || self.check_inplace(self)? {
            return Ok(false);
        }
        crate::cpu::clamp::clamp_numbers_inplace(self.array(), lo, hi)
    }

    /// `clamp_min(min)`: `clamp(min, None)` under PyTorch's overload's node: ClampMinBackward0
    /// for a number, ClampMinBackward1 (listing the bound, which gets its gradient) for a tensor.
    pub fn clamp_min(&self, min: Arg) -> Result<Tensor> {
        if let Arg::S(s) = min {
            return self.clamp_scalar_named(Some(s), None, "ClampMinBackward0");
        }
        let r = self.clamp(Some(min), None)?;
        Ok(one_sided("ClampMin", self, min, r))
    }

    /// `clamp_min_(min)`: `clamp_min` written over self.
    pub fn clamp_min_(&self, min: Arg) -> Result<()> {
        if let Arg::S(s) = min {
            return self.assign_result_(&self.clamp_scalar_named(Some(s), None, "ClampMinBackward0")?);
        }
        let values = self.before_write(&[Some(min)])?;
        let r = self.clamp_values(&values, Some(min), None)?;
        self.assign_result_(&one_sided("ClampMin", self, min, r))
    }

    /// `clamp_max(max)`: `clamp(None, max)` under ClampMaxBackward0 for a number,
    /// ClampMaxBackward1 (listing the bound) for a tensor.
    pub fn clamp_max(&self, max: Arg) -> Result<Tensor> {
        if let Arg::S(s) = max {
            return self.clamp_scalar_named(None, Some(s), "ClampMaxBackward0");
        }
        let r = self.clamp(None, Some(max))?;
        Ok(one_sided("ClampMax", self, max, r))
    }

    /// `clamp_max_(max)`: `clamp_max` written over self.
    pub fn clamp_max_(&self, max: Arg) -> Result<()> {
        if let Arg::S(s) = max {
            return self.assign_result_(&self.clamp_scalar_named(None, Some(s), "ClampMaxBackward0")?);
        }
        let values = self.before_write(&[Some(max)])?;
        let r = self.clamp_values(&values, None, Some(max))?;
        self.assign_result_(&one_sided("ClampMax", self, max, r))
    }

    /// What an in-place clamp computes from: the gradients of tensor bounds read self's values
    /// (maximum and minimum keep their inputs), which the write is about to replace, so while
    /// a gradient is recorded that is a copy of self, as PyTorch keeps the original self. Number
    /// bounds keep no values of self: self itself, no copy.
    fn before_write(&self, bounds: &[Option<Arg>]) -> Result<Tensor> {
        let tensor_bounds: Vec<&Tensor> = bounds.iter().filter_map(|b| if let Some(Arg::T(t)) = b { Some(*t) } else { None }).collect();
        let recorded = crate::autograd::is_grad_enabled() && (self.requires_grad() || tensor_bounds.iter().any(|b| b.requires_grad()));
        if tensor_bounds.is_empty() || !recorded {
            return Ok(self.clone());
        }
        self.copy_as(self.dtype())
    }

    /// `clamp` computed from `values` (self, or the copy of it an in-place clamp reads) under a
    /// node listing self.
    fn clamp_values(&self, values: &Tensor, min: Option<Arg>, max: Option<Arg>) -> Result<Tensor> {
        let number = |b: Option<Arg>| match b {
            Some(Arg::S(s)) => Ok(Some(s)),
            Some(Arg::T(_)) => Err(()),
            None => Ok(None),
        };
        let (lo, hi) = (number(min), number(max));
        if let (Ok(lo), Ok(hi)) = (lo, hi) {
            // Number bounds keep no values of self: `values` is self here.
            return values.clamp_scalar(lo, hi);
        }
        // PyTorch has no overload taking a number and a tensor of elements (a zero-dim tensor
        // passes for a number there, and gives the same values either way here).
        let has_dims = |b: Option<Arg>| matches!(b, Some(Arg::T(t)) if t.ndim() > 0);
        if (matches!(lo, Ok(Some(_))) && has_dims(max)) || (matches!(hi, Ok(Some(_))) && has_dims(min)) {
            return Err(Error::Type(
                "clamp() received an invalid combination of arguments: min and max must both be numbers or both be tensors".into(),
            ));
        }
        let mut r = values.clone();
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

    /// `clamp(min, max)` with scalar bounds; NaN stays NaN. Its node is ClampBackward1.
    pub fn clamp_scalar(&self, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
        self.clamp_scalar_named(min, max, "ClampBackward1")
    }

    /// `clamp_scalar` under the node `name` (PyTorch's node of the overload called).
    fn clamp_scalar_named(&self, min: Option<Scalar>, max: Option<Scalar>, name: &str) -> Result<Tensor> {
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
        if x.device().is_cpu() && matches!(dtype, DType::F32 | DType::F64) {
            // One pass for the values, one masked pass for the gradient (`clamp_grad`).
            let (lo, hi) = (min.map(|s| s.to_f64()), max.map(|s| s.to_f64()));
            let out = Tensor::from_array(crate::cpu::clamp::clamp_numbers(x.array(), lo, hi)?);
            record_named(Some(name), Op::Clamp { min: lo, max: hi }, &[&x], &[&out], &[0], &[]);
            return Ok(out);
        }
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
        Ok(one(composite(name, &[self], vec![out])))
    }
}

/// The gradient of a clamp with number bounds (`Op::Clamp`) for its input `x`: `g` where `x`
/// lies strictly inside the given bounds, else zero. Outside create_graph on the CPU one pass;
/// otherwise differentiable tensor ops (a mask and `where`).
pub(crate) fn clamp_grad(g: &Tensor, x: &Tensor, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
    let plain = !crate::autograd::is_grad_enabled() && g.device().is_cpu() && x.device().is_cpu();
    if plain && g.dtype() == x.dtype() && matches!(x.dtype(), DType::F32 | DType::F64) && g.shape() == x.shape() {
        return Ok(Tensor::from_array(crate::cpu::clamp::clamp_grad(g.array(), x.array(), min, max)?));
    }
    let mut keep: Option<Tensor> = None;
    for (bound, inside) in [(min, BinaryOp::Gt), (max, BinaryOp::Lt)] {
        if let Some(b) = bound {
            let k = x.binary_scalar(inside, Scalar::Float(b), false)?;
            keep = Some(match keep {
                Some(m) => m.binary(BinaryOp::LogicalAnd, &k)?,
                None => k,
            });
        }
    }
    match keep {
        Some(k) => Tensor::where_(&k, Arg::T(g), Arg::S(Scalar::Float(0.0))),
        None => Ok(g.clone()),
    }
}

/// `clamped` (clamp_min's or clamp_max's result) under the node of the bound's overload:
/// `{op}Backward0` over self for a number, `{op}Backward1` over self and the bound for a tensor.
fn one_sided(op: &str, input: &Tensor, bound: Arg, clamped: Tensor) -> Tensor {
    match bound {
        Arg::S(_) => one(composite(&format!("{op}Backward0"), &[input], vec![clamped])),
        Arg::T(b) => one(composite(&format!("{op}Backward1"), &[input, b], vec![clamped])),
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
        assert_eq!(x.clamp_max(Arg::S(Scalar::Float(0.0))).unwrap().grad_fn().unwrap().name(), "ClampMaxBackward0");
    }

    #[test]
    fn one_sided_tensor_bounds_are_the_tensor_overloads_and_get_gradients() {
        // PyTorch 2.15: x.clamp_min(lo) is ClampMinBackward1 over (x, lo); a tie splits the
        // gradient, a NaN passes it to both.
        let x = leaf(vec![-2.0, 0.5, 2.0, f64::NAN]);
        let bound = leaf(vec![0.5; 4]);
        let y = x.clamp_min(Arg::T(&bound)).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ClampMinBackward1");
        let inputs = [x.clone(), bound.clone()];
        let g = crate::autograd::grad(&[y.sum(None, false).unwrap()], &[None], &inputs, false, false, false).unwrap();
        let values = |i: usize| g[i].as_ref().expect("a gradient").to_vec::<f64>().unwrap();
        assert_eq!(values(0), [0.0, 0.5, 1.0, 1.0]);
        assert_eq!(values(1), [1.0, 0.5, 0.0, 1.0]);
        let y = x.clamp_max(Arg::T(&bound)).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ClampMaxBackward1");
    }

    #[test]
    fn in_place_tensor_bounds_keep_what_backward_reads() {
        // PyTorch 2.15: y = x * 1; y.clamp_(lo) then backward gives x and lo the gradients of
        // the out-of-place clamp, under ClampBackward0 listing y's MulBackward0.
        let x = leaf(vec![-2.0, 0.5, 2.0, f64::NAN]);
        let bound = leaf(vec![0.5; 4]);
        let y = x.binary_scalar(BinaryOp::Mul, Scalar::Int(1), false).unwrap();
        y.clamp_(Some(Arg::T(&bound)), None).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ClampBackward0");
        let inputs = [x.clone(), bound.clone()];
        let g = crate::autograd::grad(&[y.sum(None, false).unwrap()], &[None], &inputs, false, false, false).unwrap();
        let values = |i: usize| g[i].as_ref().expect("a gradient").to_vec::<f64>().unwrap();
        assert_eq!(values(0), [0.0, 0.5, 1.0, 1.0]);
        assert_eq!(values(1), [1.0, 0.5, 0.0, 1.0]);
        let z = x.binary_scalar(BinaryOp::Mul, Scalar::Int(1), false).unwrap();
        z.clamp_max_(Arg::T(&bound)).unwrap();
        assert_eq!(z.grad_fn().unwrap().name(), "ClampMaxBackward1");
        assert_eq!(z.to_vec::<f64>().unwrap()[..3], [-2.0, 0.5, 0.5]);
    }

    #[test]
    fn no_bound_is_pytorchs_error() {
        let e = leaf(vec![1.0]).clamp(None, None).unwrap_err();
        assert_eq!(e.to_string(), "torch.clamp: At least one of 'min' or 'max' must not be None");
    }

    #[test]
    fn a_number_with_a_tensor_of_elements_is_no_overload() {
        let x = leaf(vec![-2.0, 0.5, 2.0]);
        let hi = Tensor::from_vec(vec![1.0f64; 3], &[3]).unwrap();
        let e = x.clamp(Some(Arg::S(Scalar::Float(0.0))), Some(Arg::T(&hi))).unwrap_err();
        assert!(matches!(e, Error::Type(_)), "{e}");
        assert!(x.clamp(Some(Arg::T(&hi)), Some(Arg::S(Scalar::Float(2.0)))).is_err());
        // A zero-dim tensor stands for a number.
        let zero_dim = Tensor::from_vec(vec![1.0f64], &[]).unwrap();
        let y = x.clamp(Some(Arg::S(Scalar::Float(0.0))), Some(Arg::T(&zero_dim))).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), [0.0, 0.5, 1.0]);
    }
}
