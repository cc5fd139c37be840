//! The affine maps of `torch.nn.functional`: `linear` (PyTorch's steps, so the graph has its
//! nodes: one addmm for a matrix and, flattened and viewed back under `UnsafeViewBackward0`, for
//! a contiguous batch) and `bilinear` (one trilinear product under `TrilinearBackward0`).

use crate::autograd::named;
use crate::error::{Error, Result};
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp as B, Scalar, Tensor};

fn sizes(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&n| n as i64).collect()
}

/// `F.linear(input, weight, bias)`: `input @ weight.T + bias`.
pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let one = Scalar::Int(1);
    if let Some(b) = bias.filter(|_| weight.ndim() == 2 && input.ndim() > 0) {
        if input.ndim() == 2 {
            return b.addmm(input, &weight.t()?, one, one);
        }
        if input.is_contiguous() && (input.ndim() == 3 || b.ndim() == 1) {
            let (batch, features) = input.shape().split_at(input.ndim() - 1);
            let rows: usize = batch.iter().product();
            let out = b.addmm(&input.reshape(&[rows as i64, features[0] as i64])?, &weight.t()?, one, one)?;
            let mut shape = sizes(batch);
            shape.push(out.shape()[1] as i64);
            return named("UnsafeViewBackward0", &[&out], || out.view(&shape));
        }
    }
    let out = input.matmul(&weight.t()?)?;
    if let Some(b) = bias {
        out.binary_(B::Add, Arg::T(b))?;
    }
    Ok(out)
}

/// `F.bilinear(input1, input2, weight, bias)`: `out[..., o] = x1[..., i] weight[o, i, j] x2[..., j]
/// + bias[o]` over the inputs' common batch dims.
pub fn bilinear(input1: &Tensor, input2: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    if input1.ndim() != input2.ndim() {
        return Err(Error::Runtime(format!("bilinear(): input dimensions do not match: got {} and {}", input1.ndim(), input2.ndim())));
    }
    for i in 0..input1.ndim().saturating_sub(1) {
        let (a, b) = (input1.shape()[i], input2.shape()[i]);
        if a != b {
            return Err(Error::Runtime(format!("bilinear(): input batch dimensions do not match at dim {i}: got {a} and {b}")));
        }
    }
    let expected = [weight.size(1)?, weight.size(2)?];
    for (k, (t, want)) in [input1, input2].into_iter().zip(expected).enumerate() {
        let got = t.size(-1)?;
        if got != want {
            return Err(Error::Runtime(format!(
                "bilinear(): input{} size does not match weight size: got {got} but expected {want}",
                k + 1
            )));
        }
    }
    let rows1 = input1.reshape(&[-1, expected[0] as i64])?;
    let rows2 = input2.reshape(&[-1, expected[1] as i64])?;
    let out = named("TrilinearBackward0", &[&rows1, weight, &rows2], || {
        Tensor::einsum("bi,oij,bj->bo", &[rows1.clone(), weight.clone(), rows2.clone()])
    })?;
    let mut shape = sizes(&input1.shape()[..input1.ndim() - 1]);
    shape.push(weight.shape()[0] as i64);
    let out = out.view(&shape)?;
    match bias {
        Some(b) => out.binary(B::Add, b),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::test_support::leaf;

    #[test]
    fn affine_maps_have_pytorchs_nodes_and_gradients() -> Result<()> {
        let x = leaf((0..6).map(f64::from).collect(), &[1, 3, 2])?;
        let w = leaf(vec![1.0, 2.0], &[1, 2])?;
        let b = leaf(vec![0.5], &[1])?;
        let y = linear(&x, &w, Some(&b))?;
        assert_eq!(y.shape(), &[1, 3, 1]);
        assert_eq!(y.to_vec::<f64>()?, [2.5, 8.5, 14.5]);
        assert_eq!(y.grad_fn().expect("recorded").name(), "UnsafeViewBackward0");
        let g = crate::autograd::grad(&[y.sum(None, false)?], &[None], &[w.clone(), b.clone()], false, false, false)?;
        assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?, [6.0, 9.0]);
        assert_eq!(g[1].as_ref().expect("a gradient").to_vec::<f64>()?, [3.0]);

        let x1 = leaf(vec![1.0, 2.0], &[1, 2])?;
        let x2 = leaf(vec![3.0], &[1, 1])?;
        let w = leaf(vec![1.0, -1.0], &[1, 2, 1])?;
        let z = bilinear(&x1, &x2, &w, None)?;
        assert_eq!(z.to_vec::<f64>()?, [-3.0]);
        assert_eq!(z.grad_fn().expect("recorded").name(), "ViewBackward0");
        let trilinear = z.grad_fn().expect("recorded").next_edges()[0].as_ref().expect("an edge").node.clone();
        assert_eq!(trilinear.name(), "TrilinearBackward0");
        let g = crate::autograd::grad(&[z.sum(None, false)?], &[None], std::slice::from_ref(&w), false, false, false)?;
        assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?, [3.0, 6.0]);
        let err = bilinear(&x1, &Tensor::from_vec(vec![1.0f64; 2], &[2, 1])?, &w, None).expect_err("refused");
        assert_eq!(err.to_string(), "bilinear(): input batch dimensions do not match at dim 0: got 1 and 2");
        Ok(())
    }
}
