//! Dropout (`torch.nn.functional.dropout`, `dropout1d/2d/3d`): elements, or whole channels, zeroed
//! with probability `p` in training and the rest scaled by `1 / (1 - p)`, through one mask drawn
//! from the default generator. Recorded as its parts (PyTorch's `MulBackward0`).

use crate::error::{python_float, Error, Result};
use crate::random::Generator;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp as B, Scalar, Tensor};

fn check_p(p: f64) -> Result<()> {
    // A NaN passes, as it does PyTorch's `p < 0.0 or p > 1.0`.
    if !(0.0..=1.0).contains(&p) && !p.is_nan() {
        return Err(Error::Value(format!("dropout probability has to be between 0 and 1, but got {}", python_float(p))));
    }
    Ok(())
}

/// `input` times the mask of shape `mask_shape` (broadcast over the rest), written into
/// `input` when `inplace`.
fn apply_mask(input: &Tensor, mask_shape: &[usize], p: f64, inplace: bool) -> Result<Tensor> {
    let out = if p == 1.0 {
        input.binary_scalar(B::Mul, Scalar::Float(0.0), false)?
    } else {
        let dtype = input.dtype();
        if !dtype.is_floating_point() {
            return Err(Error::Runtime(format!("result type Float can't be cast to the desired output type {}", dtype.title_name())));
        }
        let draws = draws_like(input, mask_shape)?;
        let keep = draws.binary_scalar(B::Ge, Scalar::Float(p), false)?;
        // The mask holds 0 or the scale in the input's dtype: one kernel after the comparison.
        let scale = Tensor::scalar_tensor(Scalar::Float(1.0 / (1.0 - p)), dtype)?.to_device(input.device())?;
        input.binary(B::Mul, &Tensor::where_(&keep, Arg::T(&scale), Arg::S(Scalar::Float(0.0)))?)?
    };
    if !inplace {
        return Ok(out);
    }
    input.assign_result_(&out)?;
    Ok(input.clone())
}

/// Uniform draws of `mask_shape` on `input`'s device; an elementwise mask is laid out in
/// `input`'s memory order (PyTorch's `empty_like(input).bernoulli_()`), so that the product
/// streams through both storages instead of reading one across its rows.
fn draws_like(input: &Tensor, mask_shape: &[usize]) -> Result<Tensor> {
    let generator = Generator::default_generator();
    let order = if mask_shape == input.shape() { crate::result_layout::preserved_order(input.layout()) } else { None };
    let draws = match order {
        None => Tensor::rand_uniform(mask_shape, 0.0, 1.0, input.dtype(), generator)?,
        Some(order) => {
            let permuted: Vec<usize> = order.perm.iter().map(|&d| mask_shape[d]).collect();
            let back: Vec<i64> = order.inverse_perm().into_iter().map(|d| d as i64).collect();
            Tensor::rand_uniform(&permuted, 0.0, 1.0, input.dtype(), generator)?.permute(&back)?
        }
    };
    draws.to_device(input.device())
}

/// `F.dropout(input, p, training, inplace)`: `input` itself outside training or for `p` 0.
pub fn dropout(input: &Tensor, p: f64, training: bool, inplace: bool) -> Result<Tensor> {
    check_p(p)?;
    if !training || p == 0.0 {
        return Ok(input.clone());
    }
    apply_mask(input, input.shape(), p, inplace)
}

/// `F.dropout{spatial}d` (`name` for errors): one draw per (sample, channel) of an input with
/// `spatial` dims after them (the sample dim optional), broadcast over those dims.
pub fn feature_dropout(input: &Tensor, p: f64, training: bool, inplace: bool, spatial: usize, name: &str) -> Result<Tensor> {
    check_p(p)?;
    if input.ndim() != spatial + 1 && input.ndim() != spatial + 2 {
        return Err(Error::Runtime(format!(
            "{name}: Expected {}D or {}D input, but received a {}D input",
            spatial + 1,
            spatial + 2,
            input.ndim()
        )));
    }
    if !training || p == 0.0 {
        return Ok(input.clone());
    }
    let lead = input.ndim() - spatial;
    let mut mask_shape = input.shape()[..lead].to_vec();
    mask_shape.resize(input.ndim(), 1);
    apply_mask(input, &mask_shape, p, inplace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn dropout_scales_what_it_keeps_and_refuses_bad_p() -> Result<()> {
        let x = Tensor::ones(&[1000], DType::F32)?;
        x.set_requires_grad(true)?;
        let y = dropout(&x, 0.25, true, false)?;
        assert_eq!(y.grad_fn().expect("recorded").name(), "MulBackward0");
        let v = y.to_vec::<f32>()?;
        assert!(v.iter().all(|&e| e == 0.0 || (e - 4.0 / 3.0).abs() < 1e-6));
        let kept = v.iter().filter(|&&e| e != 0.0).count();
        assert!((650..850).contains(&kept), "{kept} of 1000 kept at p = 0.25");
        assert!(dropout(&x, 0.5, false, false)?.same(&x));
        let err = dropout(&x, 1.5, true, false).expect_err("refused");
        assert_eq!(err.to_string(), "dropout probability has to be between 0 and 1, but got 1.5");
        let channels = feature_dropout(&Tensor::ones(&[2, 50, 3], DType::F32)?, 0.5, true, false, 1, "dropout1d")?.to_vec::<f32>()?;
        assert!(channels.chunks(3).all(|c| c[0] == c[1] && c[1] == c[2]), "one draw per channel");
        Ok(())
    }
}
