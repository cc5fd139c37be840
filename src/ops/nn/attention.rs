//! `torch.nn.functional.scaled_dot_product_attention`: `softmax(q kᵀ · scale + mask) v`, under
//! PyTorch's CPU node (`ScaledDotProductFlashAttentionForCpuBackward0`) where PyTorch has one
//! (without dropout); written in tensor ops, so its gradient, to any order, is the recorded body's.

use crate::autograd::{keep_buffers, named, record, GradMode, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::attention_dims::AttnDims;
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

/// PyTorch's name of its fused CPU attention node, which both the fused kernel and the composed
/// body record under.
const NODE: &str = "ScaledDotProductFlashAttentionForCpuBackward0";

/// `F.scaled_dot_product_attention(query, key, value, ...)` over `(..., L, E)` queries and
/// `(..., S, E)` / `(..., S, Ev)` keys and values.
pub fn scaled_dot_product_attention(query: &Tensor, key: &Tensor, value: &Tensor, args: &Attention) -> Result<Tensor> {
    if args.dropout_p > 0.0 {
        // Dropout needs the weights themselves: composed (PyTorch's CPU kernel has no dropout either).
        return attention(query, key, value, args);
    }
    // PyTorch's CPU kernel is one node over 4-D inputs; 3-D ones are batched once and squeezed back.
    if query.ndim() == 3 && key.ndim() == 3 && value.ndim() == 3 {
        let out = scaled_dot_product_attention(&query.unsqueeze(0)?, &key.unsqueeze(0)?, &value.unsqueeze(0)?, args)?;
        return out.squeeze_dims(&[0]);
    }
    if let Some(out) = fused(query, key, value, args)? {
        return Ok(out);
    }
    let mut inputs = vec![query, key, value];
    inputs.extend(args.attn_mask.filter(|m| m.requires_grad()));
    named(NODE, &inputs, || attention(query, key, value, args))
}

/// The fused kernel's attention (see `cpu::attention`), where the backend has one and the
/// operands are what it takes: float32 / float64 of one dtype and device, 4-D or more with the
/// same leading dims (the heads of the key and value dividing the query's under `enable_gqa`),
/// and a mask that broadcasts to the scores. None otherwise: the caller composes the attention
/// (which also raises PyTorch's errors for operands that do not fit).
fn fused(query: &Tensor, key: &Tensor, value: &Tensor, args: &Attention) -> Result<Option<Tensor>> {
    let n = query.ndim();
    let dtype = query.dtype();
    let device = query.device();
    let same = |t: &Tensor| t.ndim() == n && t.dtype() == dtype && t.device() == device;
    if n < 4 || !same(key) || !same(value) || !matches!(dtype, DType::F32 | DType::F64) || (args.is_causal && args.attn_mask.is_some()) {
        return Ok(None);
    }
    let (qs, ks, vs) = (query.shape(), key.shape(), value.shape());
    let (lead, heads, kv_heads) = (&qs[..n - 3], qs[n - 3], ks[n - 3]);
    if &ks[..n - 3] != lead || &vs[..n - 3] != lead || vs[n - 3] != kv_heads {
        return Ok(None);
    }
    let group = match (heads, kv_heads) {
        (h, kv) if h == kv => 1,
        (h, kv) if args.enable_gqa && kv > 0 && h % kv == 0 => h / kv,
        _ => return Ok(None),
    };
    let (l, e, s, ev) = (qs[n - 2], qs[n - 1], ks[n - 2], vs[n - 1]);
    if ks[n - 1] != e || vs[n - 2] != s {
        return Ok(None);
    }
    let _raw = GradMode::disabled();
    // The mask as added to the scores, viewed (not copied) at the scores' shape.
    let mask = match args.attn_mask {
        None => None,
        Some(m) if m.device() != device => return Ok(None),
        Some(m) => {
            let additive = match m.dtype() {
                DType::Bool => Tensor::where_(m, Arg::S(Scalar::Float(0.0)), Arg::S(Scalar::Float(f64::NEG_INFINITY)))?.to_dtype(dtype)?,
                d if d == dtype => m.detach(),
                _ => return Ok(None),
            };
            let scores: Vec<i64> = qs[..n - 1].iter().chain([&s]).map(|&d| d as i64).collect();
            match additive.expand(&scores) {
                Ok(view) => Some(view),
                Err(_) => return Ok(None),
            }
        }
    };
    let dims = AttnDims {
        batch: qs[..n - 2].iter().product(),
        heads,
        group,
        l,
        s,
        e,
        ev,
        scale: args.scale.unwrap_or_else(|| 1.0 / (e as f64).sqrt()),
        causal: args.is_causal,
    };
    let Some((out, lse)) = query.backend().attention(query.array(), key.array(), value.array(), mask.as_ref().map(Tensor::array), &dims)?
    else {
        return Ok(None);
    };
    let out_shape: Vec<i64> = qs[..n - 1].iter().chain([&ev]).map(|&d| d as i64).collect();
    let out = Tensor::from_array(out).reshape(&out_shape)?;
    drop(_raw);
    let mut inputs = vec![query, key, value];
    inputs.extend(args.attn_mask.filter(|m| m.requires_grad()));
    // Saved: the inputs and the output, and as buffers each row's logsumexp and the additive
    // mask (a view of the caller's): no L x S tensor beyond a mask the caller gave.
    record(Op::Attention { dims }, &inputs, &[&out], &[0, 1, 2, 3], &[0]);
    keep_buffers(&out, [Some(Tensor::from_array(lse)), mask].into_iter().flatten().collect());
    Ok(Some(out))
}

/// The gradients of the fused attention's inputs `(q, k, v)` and of its scores (for a mask
/// input, which the caller sums to its shape) from the output gradient `g`:
/// the fused backward kernel (probabilities recomputed per tile from `lse`), or, under
/// `create_graph` or where the backend has no kernel, tensor ops over the recomputed weights
/// (a graph of their own, for higher-order gradients). `mask` is the additive mask viewed at the
/// scores' shape, `mask_input` the float mask input that wants its gradient (with its history,
/// for higher-order gradients).
pub(crate) fn attention_backward(
    (q, k, v): (&Tensor, &Tensor, &Tensor),
    mask: Option<&Tensor>,
    mask_input: Option<&Tensor>,
    (out, lse, g): (&Tensor, &Tensor, &Tensor),
    dims: &AttnDims,
) -> Result<[Option<Tensor>; 4]> {
    let shape_of = |t: &Tensor| t.shape().iter().map(|&d| d as i64).collect::<Vec<_>>();
    // The scores' gradient, for the caller to sum to the mask's shape.
    let mask_grad = |ds: Tensor| -> Result<Option<Tensor>> { Ok(mask_input.map(|_| ds)) };
    if !crate::autograd::is_grad_enabled() {
        let kernel = q.backend().attention_backward(
            q.array(),
            k.array(),
            v.array(),
            mask.map(Tensor::array),
            (out.array(), lse.array(), g.array()),
            dims,
            mask_input.is_some(),
        )?;
        if let Some((dq, dk, dv, ds)) = kernel {
            let ds = ds.map(|ds| Tensor::from_array(ds).reshape(&shape_of(mask.expect("a mask wants its gradient")))).transpose()?;
            return Ok([
                Some(Tensor::from_array(dq).reshape(&shape_of(q))?),
                Some(Tensor::from_array(dk).reshape(&shape_of(k))?),
                Some(Tensor::from_array(dv).reshape(&shape_of(v))?),
                ds.map(mask_grad).transpose()?.flatten(),
            ]);
        }
    }
    let args = Attention {
        attn_mask: mask_input.or(mask),
        is_causal: dims.causal,
        scale: Some(dims.scale),
        enable_gqa: dims.group > 1,
        dropout_p: 0.0,
    };
    let heads = dims.heads as i64;
    let (kr, vr) = if dims.group > 1 { (repeat_heads(k, dims.heads)?, repeat_heads(v, dims.heads)?) } else { (k.clone(), v.clone()) };
    let p = weights(&scores(q, &kr, &args)?, mask.is_some())?;
    let dv = p.transpose(-2, -1)?.matmul(g)?;
    let dp = g.matmul(&vr.transpose(-2, -1)?)?;
    let row = dp.binary(B::Mul, &p)?.sum(Some(&[-1]), true)?;
    let ds = p.binary(B::Mul, &dp.binary(B::Sub, &row)?)?;
    let scale = Scalar::Float(dims.scale);
    let dq = ds.matmul(&kr)?.binary_scalar(B::Mul, scale, false)?;
    let dk = ds.transpose(-2, -1)?.matmul(q)?.binary_scalar(B::Mul, scale, false)?;
    // The query heads of a group add their key and value gradients.
    let grouped = |t: Tensor, like: &Tensor| -> Result<Tensor> {
        if dims.group == 1 {
            return Ok(t);
        }
        let mut split = shape_of(&t);
        let at = split.len() - 3;
        split.splice(at..at + 1, [heads / dims.group as i64, dims.group as i64]);
        t.reshape(&split)?.sum(Some(&[at as i64 + 1]), false)?.reshape(&shape_of(like))
    };
    Ok([Some(dq), Some(grouped(dk, k)?), Some(grouped(dv, v)?), mask_grad(ds)?])
}

/// The attention itself, recorded as its parts.
fn attention(query: &Tensor, key: &Tensor, value: &Tensor, args: &Attention) -> Result<Tensor> {
    let (key, value) = if args.enable_gqa && key.ndim() >= 3 && key.size(-3)? != query.size(-3)? {
        let heads = query.size(-3)?;
        if heads % key.size(-3)? != 0 || heads % value.size(-3)? != 0 {
            return Err(Error::Runtime("Number of heads in key and value must divide the number of heads in query".into()));
        }
        (repeat_heads(key, heads)?, repeat_heads(value, heads)?)
    } else {
        (key.clone(), value.clone())
    };
    let mut weights = weights(&scores(query, &key, args)?, args.attn_mask.is_some())?;
    if args.dropout_p > 0.0 {
        weights = dropout(&weights, args.dropout_p, true, false)?;
    }
    weights.matmul(&value)
}

/// `q kᵀ · scale`, masked (`key` already has the query's heads).
fn scores(query: &Tensor, key: &Tensor, args: &Attention) -> Result<Tensor> {
    let (l, s) = (query.size(-2)?, key.size(-2)?);
    let scale = match args.scale {
        Some(scale) => scale,
        None => 1.0 / (query.size(-1)? as f64).sqrt(),
    };
    let scores = query.matmul(&key.transpose(-2, -1)?)?.binary_scalar(B::Mul, Scalar::Float(scale), false)?;
    let minus_inf = Arg::S(Scalar::Float(f64::NEG_INFINITY));
    Ok(match args.attn_mask {
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
    })
}

/// The softmax of the scores; with a mask, rows it hides entirely weigh nothing (zeros, and no
/// gradient), as PyTorch's `_safe_softmax` gives them, rather than the NaN of a plain softmax.
fn weights(scores: &Tensor, masked: bool) -> Result<Tensor> {
    if !masked {
        return scores.softmax(-1);
    }
    let hidden = {
        let _raw = GradMode::disabled();
        let top = scores.reduce(crate::ops::reduce::ReduceOp::Max, Some(&[-1]), true)?;
        top.binary_scalar(B::Eq, Scalar::Float(f64::NEG_INFINITY), false)?
    };
    let zero = || Arg::S(Scalar::Float(0.0));
    scores.masked_fill(&hidden, zero())?.softmax(-1)?.masked_fill(&hidden, zero())
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
