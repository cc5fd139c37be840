//! `torch.nn.functional.embedding`: rows of a weight looked up by index, under PyTorch's node
//! (`EmbeddingBackward0`, listing the weight), with PyTorch's `padding_idx` (that row takes no
//! gradient) and `max_norm` (the looked-up rows are rescaled in place first) semantics.

use std::collections::BTreeSet;

use crate::autograd::{named, GradMode};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::arith::Arg;
use crate::tensor::index::TensorIndex;
use crate::tensor::{BinaryOp as B, Scalar, Tensor, UnaryOp as U};

/// `max_norm` and `norm_type` of `F.embedding`: looked-up rows whose `norm_type`-norm exceeds
/// `max_norm` are scaled down to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaxNorm {
    pub max_norm: f64,
    pub norm_type: f64,
}

/// `F.embedding(input, weight, padding_idx, max_norm, ...)`: `weight[input]`, of shape
/// `input.shape + (embedding_dim,)`. A negative `padding_idx` counts from the end.
pub fn embedding(
    input: &Tensor,
    weight: &Tensor,
    padding_idx: Option<i64>,
    max_norm: Option<MaxNorm>,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> Result<Tensor> {
    if weight.ndim() != 2 {
        return Err(Error::Runtime("'weight' must be 2-D".into()));
    }
    let rows = weight.shape()[0] as i64;
    let padding_idx = match padding_idx {
        Some(p) if p >= rows || p < -rows => return Err(Error::Assertion("Padding_idx must be within num_embeddings".into())),
        Some(p) => Some(p.rem_euclid(rows)),
        None => None,
    };
    if scale_grad_by_freq || sparse {
        return Err(Error::NotImplemented("embedding: scale_grad_by_freq and sparse gradients are not supported".into()));
    }
    let flat = input.reshape(&[-1])?;
    if let Some(m) = max_norm {
        renorm_rows(weight, &flat, m)?;
    }
    named("EmbeddingBackward0", &[weight], || {
        let mut shape: Vec<i64> = input.shape().iter().map(|&n| n as i64).collect();
        shape.push(weight.shape()[1] as i64);
        let out = weight.index_select(0, &flat)?.reshape(&shape)?;
        match padding_idx {
            // The padding row takes no gradient: its lookups are cut from the graph.
            Some(p) if out.requires_grad() => {
                let at_padding = input.binary_scalar(B::Eq, Scalar::Int(p), false)?.unsqueeze(-1)?;
                Tensor::where_(&at_padding, Arg::T(&out.detach()), Arg::T(&out))
            }
            _ => Ok(out),
        }
    })
}

/// Rescales in place, without recording, each row of `weight` that `indices` looks up and whose
/// norm exceeds the maximum, to `max_norm / (norm + 1e-7)` of itself (as PyTorch does).
fn renorm_rows(weight: &Tensor, indices: &Tensor, m: MaxNorm) -> Result<()> {
    let _raw = GradMode::disabled();
    let rows: BTreeSet<i64> = indices.to_dtype(DType::I64)?.to_vec::<i64>()?.into_iter().collect();
    if rows.is_empty() {
        return Ok(());
    }
    let n = rows.len();
    let idx = Tensor::from_vec(rows.into_iter().collect(), &[n])?.to_device(weight.device())?;
    let selected = weight.index_select(0, &idx)?;
    let norms = selected.norm(m.norm_type, Some(&[1]), true)?;
    // `max_norm / t` as Python's reflected division computes it: reciprocal(t) * max_norm.
    let shrink = norms.binary_scalar(B::Add, Scalar::Float(1e-7), false)?.unary(U::Reciprocal)?.binary_scalar(
        B::Mul,
        Scalar::Float(m.max_norm),
        false,
    )?;
    let too_long = norms.binary_scalar(B::Gt, Scalar::Float(m.max_norm), false)?;
    let scale = Tensor::where_(&too_long, Arg::T(&shrink), Arg::S(Scalar::Float(1.0)))?;
    weight.index_put(&[TensorIndex::Tensor(idx)], Arg::T(&selected.binary(B::Mul, &scale)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_has_pytorchs_node_padding_and_max_norm() -> Result<()> {
        let w = Tensor::from_vec(vec![3.0f64, 4.0, 1.0, 0.0, 0.0, 2.0], &[3, 2])?;
        w.set_requires_grad(true)?;
        let idx = Tensor::from_vec(vec![0i64, 2, 2, 1], &[2, 2])?;
        let out = embedding(&idx, &w, Some(-1), None, false, false)?;
        assert_eq!(out.shape(), &[2, 2, 2]);
        assert_eq!(out.to_vec::<f64>()?, [3.0, 4.0, 0.0, 2.0, 0.0, 2.0, 1.0, 0.0]);
        let node = out.grad_fn().expect("recorded");
        assert_eq!((node.name().as_str(), node.next_edges().len()), ("EmbeddingBackward0", 1));
        let g = crate::autograd::grad(&[out.sum(None, false)?], &[None], std::slice::from_ref(&w), false, false, false)?;
        // row 2 is the padding row: no gradient
        assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?, [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]);

        let w = Tensor::from_vec(vec![3.0f64, 4.0, 1.0, 0.0], &[2, 2])?;
        embedding(&Tensor::from_vec(vec![0i64], &[1])?, &w, None, Some(MaxNorm { max_norm: 1.0, norm_type: 2.0 }), false, false)?;
        let renormed = w.to_vec::<f64>()?;
        assert!((renormed[0] - 0.6).abs() < 1e-7 && (renormed[1] - 0.8).abs() < 1e-7 && renormed[2..] == [1.0, 0.0]);
        let err = embedding(&Tensor::from_vec(vec![0i64], &[1])?, &w, Some(2), None, false, false).expect_err("refused");
        assert_eq!(err.to_string(), "Padding_idx must be within num_embeddings");
        Ok(())
    }
}
