//! `torch.nn.functional.scaled_dot_product_attention`: `softmax(q kᵀ · scale + mask) v`, under
//! PyTorch's CPU node (`ScaledDotProductFlashAttentionForCpuBackward0`) where PyTorch has one
//! (without dropout); written in tensor ops, so its gradient, to any order, is the recorded body's.

use crate::autograd::named;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp as B, Scalar, Tensor, UnaryOp as U};

use super::dropout::dropout;

/// The optional arguments of `scaled_dot_product_attention`, PyTorch's defaults by `Default`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Attention<'a> {
    /// Added to the scores (a float mask) or selecting the positions that take part (a bool
    /// mask, True = attend).
    pub attn_mask: Option<&'a Tensor>,
    /// Dropout on the attention weights.
    pub dropout_p: f64,
    /// Each query attends to the keys at or before its position (no explicit mask then).
    pub is_causal: bool,
    /// The scores' scale; `1 / sqrt(E)` where not given.
    pub scale: Option<f64>,
    /// Grouped-query attention: key and value heads are repeated to the query's heads.
    pub enable_gqa: bool,
}

/// `F.scaled_dot_product_attention(query, key, value, ...)` over `(..., L, E)` queries and
/// `(..., S, E)` / `(..., S, Ev)` keys and values.
pub fn scaled_dot_product_attention(query: &Tensor, key: &Tensor, value: &Tensor, args: &Attention) -> Result<Tensor> {
    if args.dropout_p > 0.0 {
        return attention(query, key, value, args);
    }
    // PyTorch's CPU kernel is one node over 4-D inputs; 3-D ones are batched once and squeezed back.
    if query.ndim() == 3 && key.ndim() == 3 && value.ndim() == 3 {
        let out = scaled_dot_product_attention(&query.unsqueeze(0)?, &key.unsqueeze(0)?, &value.unsqueeze(0)?, args)?;
        return out.squeeze_dims(&[0]);
    }
    let mut inputs = vec![query, key, value];
    inputs.extend(args.attn_mask.filter(|m| m.requires_grad()));
    named("ScaledDotProductFlashAttentionForCpuBackward0", &inputs, || attention(query, key, value, args))
}

/// The attention itself, recorded as its parts.
fn attention(query: &Tensor, key: &Tensor, value: &Tensor, args: &Attention) -> Result<Tensor> {
    let (l, s) = (query.size(-2)?, key.size(-2)?);
    let scale = match args.scale {
        Some(scale) => scale,
        None => 1.0 / (query.size(-1)? as f64).sqrt(),
    };
    let (key, value) = if args.enable_gqa && key.ndim() >= 3 && key.size(-3)? != query.size(-3)? {
        let heads = query.size(-3)?;
        if heads % key.size(-3)? != 0 || heads % value.size(-3)? != 0 {
            return Err(Error::Runtime("Number of heads in key and value must divide the number of heads in query".into()));
        }
        (repeat_heads(key, heads)?, repeat_heads(value, heads)?)
    } else {
        (key.clone(), value.clone())
    };
    let scores = query.matmul(&key.transpose(-2, -1)?)?.binary_scalar(B::Mul, Scalar::Float(scale), false)?;
    let minus_inf = Arg::S(Scalar::Float(f64::NEG_INFINITY));
    let scores = match args.attn_mask {
        _ if args.is_causal => {
            if args.attn_mask.is_some() {
                return Err(Error::Runtime(
                    "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True".into(),
                ));
            }
            // A small (L, S) table, built where the values are not: on the host.
            let future = Tensor::ones(&[l, s], DType::Bool)?.triangle(0, false)?.unary(U::BitwiseNot)?.to_device(scores.device())?;
            scores.masked_fill(&future, minus_inf)?
        }
        Some(m) if m.dtype() == DType::Bool => scores.masked_fill(&m.unary(U::BitwiseNot)?, minus_inf)?,
        Some(m) => scores.binary(B::Add, m)?,
        None => scores,
    };
    let mut weights = scores.softmax(-1)?;
    if args.dropout_p > 0.0 {
        weights = dropout(&weights, args.dropout_p, true, false)?;
    }
    weights.matmul(&value)
}

/// `t` of shape `(..., H, S, E)` with each head repeated to `heads` heads in all (PyTorch's
/// `repeat_interleave` over dim -3).
fn repeat_heads(t: &Tensor, heads: usize) -> Result<Tensor> {
    let n = t.ndim();
    let repeats = heads / t.shape()[n - 3];
    let mut expanded: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    expanded.insert(n - 2, repeats as i64);
    let mut merged: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    merged[n - 3] = heads as i64;
    t.unsqueeze(-3)?.expand(&expanded)?.reshape(&merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_has_pytorchs_node_and_gradient() -> Result<()> {
        // One query against two keys with equal scores: the output is the mean of the values.
        let q = Tensor::from_vec(vec![0.0f64, 0.0], &[1, 1, 1, 2])?;
        let k = Tensor::from_vec(vec![1.0f64, 0.0, 0.0, 1.0], &[1, 1, 2, 2])?;
        let v = Tensor::from_vec(vec![2.0f64, 4.0, 6.0, 8.0], &[1, 1, 2, 2])?;
        for t in [&q, &k, &v] {
            t.set_requires_grad(true)?;
        }
        let out = scaled_dot_product_attention(&q, &k, &v, &Attention::default())?;
        assert_eq!(out.to_vec::<f64>()?, [4.0, 6.0]);
        let node = out.grad_fn().expect("recorded");
        assert_eq!((node.name().as_str(), node.next_edges().len()), ("ScaledDotProductFlashAttentionForCpuBackward0", 3));
        let g = crate::autograd::grad(&[out.sum(None, false)?], &[None], std::slice::from_ref(&v), false, false, false)?;
        assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?, [0.5, 0.5, 0.5, 0.5]);

        // causal: the first query sees only the first key
        let q2 = Tensor::from_vec(vec![0.0f64; 4], &[1, 1, 2, 2])?;
        let causal = scaled_dot_product_attention(&q2, &k, &v, &Attention { is_causal: true, ..Attention::default() })?;
        assert_eq!(causal.to_vec::<f64>()?, [2.0, 4.0, 4.0, 6.0]);
        // grouped-query: two query heads share one key/value head
        let q3 = Tensor::from_vec(vec![0.0f64; 4], &[1, 2, 1, 2])?;
        let grouped = scaled_dot_product_attention(&q3, &k, &v, &Attention { enable_gqa: true, ..Attention::default() })?;
        assert_eq!(grouped.to_vec::<f64>()?, [4.0, 6.0, 4.0, 6.0]);
        Ok(())
    }
}
