//! `torch.nn.functional.pairwise_distance`: the p-norm of `x1 - x2 + eps` over the last dim, under
//! PyTorch's node (`NormBackward1`, whose input is the shifted difference).

use crate::autograd::named;
use crate::error::Result;
use crate::tensor::arith::binary_scalar_overload;
use crate::tensor::{BinaryOp as B, Scalar, Tensor};

/// `F.pairwise_distance(x1, x2, p, eps, keepdim)`: `eps` keeps the norm's gradient finite where
/// the two vectors are equal.
pub fn pairwise_distance(x1: &Tensor, x2: &Tensor, p: f64, eps: f64, keepdim: bool) -> Result<Tensor> {
    // The shift is PyTorch's `add(Scalar)` (AddBackward1, listing the difference only).
    let diff = binary_scalar_overload(&x1.binary(B::Sub, x2)?, Scalar::Float(eps), B::Add)?;
    named("NormBackward1", &[&diff], || diff.norm(p, Some(&[-1]), keepdim))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_has_pytorchs_node_and_gradient() -> Result<()> {
        let a = Tensor::from_vec(vec![3.0f64, 0.0, 0.0, 1.0], &[2, 2])?;
        a.set_requires_grad(true)?;
        let b = Tensor::from_vec(vec![0.0f64, -4.0, 0.0, 1.0], &[2, 2])?;
        let d = pairwise_distance(&a, &b, 2.0, 0.0, false)?;
        assert_eq!(d.to_vec::<f64>()?, [5.0, 0.0]);
        let node = d.grad_fn().expect("recorded");
        assert_eq!(node.name(), "NormBackward1");
        let g = crate::autograd::grad(&[d.sum(None, false)?], &[None], std::slice::from_ref(&a), false, false, false)?;
        let g = g[0].as_ref().expect("a gradient").to_vec::<f64>()?;
        // (a - b) / |a - b| for the first row; the second's norm is 0, whose subgradient is 0
        let want = [0.6, 0.8, 0.0, 0.0];
        assert!(g.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-15), "{g:?}");
        Ok(())
    }
}
