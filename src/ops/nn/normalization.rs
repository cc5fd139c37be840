//! `torch.nn.functional.group_norm`: each sample's channels normalised per group, then the
//! per-channel affine map, under PyTorch's node (`NativeGroupNormBackward0`, with None edges for
//! an absent weight or bias). Written in tensor ops, so its gradient, to any order, is the
//! recorded body's.

use crate::autograd::composite::composite_optional;
use crate::error::{Error, Result};
use crate::tensor::{BinaryOp as B, Scalar, Tensor, UnaryOp as U};

/// `F.group_norm(input, num_groups, weight, bias, eps)` of an `(N, C, *)` input: the channels of
/// each sample in `num_groups` groups, each group scaled to zero mean and unit (biased) variance.
pub fn group_norm(input: &Tensor, num_groups: i64, weight: Option<&Tensor>, bias: Option<&Tensor>, eps: f64) -> Result<Tensor> {
    if input.ndim() < 2 {
        return Err(Error::Runtime(format!("Expected at least 2 dimensions for input tensor but received {}", input.ndim())));
    }
    if num_groups <= 0 {
        return Err(Error::Runtime(format!("Expected num groups to be greater than 0, got {num_groups}")));
    }
    let (n, c) = (input.shape()[0] as i64, input.shape()[1] as i64);
    if c % num_groups != 0 {
        return Err(Error::Runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {:?} and num_groups={num_groups}",
            input.shape()
        )));
    }
    let grouped = input.reshape(&[n, num_groups, -1])?;
    let mean = grouped.mean(Some(&[-1]), true)?;
    let var = grouped.var(Some(&[-1]), 0.0, true)?;
    let shape: Vec<i64> = input.shape().iter().map(|&s| s as i64).collect();
    let inv_std = var.binary_scalar(B::Add, Scalar::Float(eps), false)?.unary(U::Rsqrt)?;
    let mut out = grouped.binary(B::Sub, &mean)?.binary(B::Mul, &inv_std)?.reshape(&shape)?;
    // weight and bias are per channel: (1, C, 1, ...)
    let mut channel_shape = vec![1, -1];
    channel_shape.resize(input.ndim(), 1);
    if let Some(w) = weight {
        out = out.binary(B::Mul, &w.reshape(&channel_shape)?)?;
    }
    if let Some(b) = bias {
        out = out.binary(B::Add, &b.reshape(&channel_shape)?)?;
    }
    Ok(composite_optional("NativeGroupNormBackward0", &[Some(input), weight, bias], vec![out]).remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_norm_has_pytorchs_node_edges_and_gradient() -> Result<()> {
        let x = Tensor::from_vec(vec![1.0f64, 3.0, 0.0, 4.0], &[1, 2, 2])?;
        x.set_requires_grad(true)?;
        let b = Tensor::from_vec(vec![0.5f64, -0.5], &[2])?;
        b.set_requires_grad(true)?;
        let y = group_norm(&x, 2, None, Some(&b), 0.0)?;
        assert_eq!(y.to_vec::<f64>()?, [-0.5, 1.5, -1.5, 0.5]);
        let node = y.grad_fn().expect("recorded");
        assert_eq!(node.name(), "NativeGroupNormBackward0");
        let edges: Vec<bool> = node.next_edges().iter().map(Option::is_some).collect();
        assert_eq!(edges, [true, false, true], "a None edge for the absent weight");
        // The normalised values sum to zero whatever x is: no gradient reaches x through a sum.
        let g = crate::autograd::grad(&[y.sum(None, false)?], &[None], &[x.clone(), b.clone()], false, false, false)?;
        assert!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?.iter().all(|v| v.abs() < 1e-12));
        assert_eq!(g[1].as_ref().expect("a gradient").to_vec::<f64>()?, [2.0, 2.0]);
        let err = group_norm(&x, 3, None, None, 1e-5).expect_err("refused");
        assert!(err.to_string().ends_with("input of shape [1, 2, 2] and num_groups=3"));
        Ok(())
    }
}
