//! The losses of `torch.nn.functional` beside nll_loss (`tensor::loss`): cross_entropy, mse, l1,
//! smooth_l1, huber, binary cross-entropy (of probabilities and of logits) and kl_div, with
//! PyTorch's checks and nodes (`MseLossBackward0`, `SmoothL1LossBackward0`, `HuberLossBackward0`,
//! `BinaryCrossEntropyBackward0`, `BinaryCrossEntropyWithLogitsBackward0` under `autograd::named`;
//! the others are recorded as their parts, as PyTorch composes them). Each is written in tensor
//! ops, so its gradient, to any order, is the recorded body's; the reduction is applied in one
//! place (`reduce`).

use crate::autograd::{named, GradMode};
use crate::cpu::fused_pointwise::Fused2;
use crate::error::{python_float, Error, Result};
use crate::ops::composite::functions::xlogy;
use crate::ops::grad::f;
use crate::ops::pointwise2::pointwise2;
use crate::ops::reduction::Reduction;
use crate::tensor::arith::{binary_scalar_overload, Arg};
use crate::tensor::{BinaryOp as B, ReduceOp, Scalar, Tensor, UnaryOp as U};

/// The elementwise `loss` reduced as `reduction` asks: as it is, its mean or its sum.
pub fn reduce(loss: &Tensor, reduction: Reduction) -> Result<Tensor> {
    match reduction {
        Reduction::None => Ok(loss.clone()),
        Reduction::Mean => loss.mean(None, false),
        Reduction::Sum => loss.sum(None, false),
    }
}

/// kl_div's `reduction`: one of the losses' reductions, or `batchmean` (the sum divided by the
/// batch size, KL divergence's own definition).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KlDivReduction {
    Batchmean,
    Other(Reduction),
}

impl KlDivReduction {
    pub fn parse(s: &str) -> Result<KlDivReduction> {
        if s == "batchmean" {
            return Ok(KlDivReduction::Batchmean);
        }
        Reduction::parse(s).map(KlDivReduction::Other)
    }
}

/// `input` and `target` expanded to their common shape (each only where it differs), as
/// `torch.broadcast_tensors` hands them to PyTorch's pointwise losses.
fn broadcast_pair(input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor)> {
    if input.shape() == target.shape() {
        return Ok((input.clone(), target.clone()));
    }
    let shape = crate::shape::broadcast_shapes(input.shape(), target.shape())?;
    let sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let expand = |t: &Tensor| if t.shape() == shape.as_slice() { Ok(t.clone()) } else { t.expand(&sizes) };
    Ok((expand(input)?, expand(target)?))
}

/// `t ** 2` as `Tensor.pow(2)` computes it: the float fast path where the dtype has one (not the
/// half types), else the integer power.
fn square(t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_floating_point() && !t.dtype().is_half() {
        t.unary(U::PowScalar(2.0))
    } else {
        t.binary_scalar(B::Pow, Scalar::Int(2), false)
    }
}

/// `1 - t`.
fn one_minus(t: &Tensor) -> Result<Tensor> {
    t.binary_scalar(B::Sub, Scalar::Int(1), true)
}

/// `loss * weight` where a weight is given.
fn weighted(loss: Tensor, weight: Option<&Tensor>) -> Result<Tensor> {
    match weight {
        Some(w) => loss.binary(B::Mul, w),
        None => Ok(loss),
    }
}

/// The node's inputs: the given tensors, then each optional one that is present.
fn inputs<'a>(given: &[&'a Tensor], optional: &[Option<&'a Tensor>]) -> Vec<&'a Tensor> {
    given.iter().copied().chain(optional.iter().flatten().copied()).collect()
}

/// A weight as PyTorch's loss nodes list it: only where it needs a gradient.
fn if_grad(weight: Option<&Tensor>) -> Option<&Tensor> {
    weight.filter(|w| w.requires_grad())
}

/// The unreduced `kind` of the broadcast operands as one CPU pass with a one-pass backward
/// (`ops::pointwise2`), where there is no weight; None where the composite form must run
/// (a weight, another device, dtypes or layouts the kernel does not take).
fn fused(x: &Tensor, y: &Tensor, kind: Fused2, weight: Option<&Tensor>) -> Result<Option<Tensor>> {
    if weight.is_some() {
        return Ok(None);
    }
    pointwise2(x, y, kind, None)
}

/// `F.mse_loss`: `(input - target)²` (times `weight` where given) over the broadcast operands.
pub fn mse_loss(input: &Tensor, target: &Tensor, weight: Option<&Tensor>, reduction: Reduction) -> Result<Tensor> {
    let (x, y) = broadcast_pair(input, target)?;
    named("MseLossBackward0", &inputs(&[&x, &y], &[weight]), || {
        let loss = match fused(&x, &y, Fused2::Mse, weight)? {
            Some(loss) => loss,
            None => weighted(square(&x.binary(B::Sub, &y)?)?, weight)?,
        };
        reduce(&loss, reduction)
    })
}

/// `F.l1_loss`: `|input - target|` (times `weight` where given), recorded as its parts.
pub fn l1_loss(input: &Tensor, target: &Tensor, weight: Option<&Tensor>, reduction: Reduction) -> Result<Tensor> {
    let loss = weighted(input.binary(B::Sub, target)?.unary(U::Abs)?, weight)?;
    reduce(&loss, reduction)
}

/// `F.smooth_l1_loss`: `0.5 d² / beta` where `d = |input - target| < beta`, else `d - 0.5 beta`;
/// `beta` 0 is the l1 loss.
pub fn smooth_l1_loss(input: &Tensor, target: &Tensor, reduction: Reduction, beta: f64) -> Result<Tensor> {
    let (x, y) = broadcast_pair(input, target)?;
    if beta < 0.0 {
        return Err(Error::Runtime("smooth_l1_loss does not support negative values for beta.".into()));
    }
    named("SmoothL1LossBackward0", &[&x, &y], || {
        // beta 0 is the l1 loss, recorded as its parts.
        if beta != 0.0 {
            if let Some(loss) = fused(&x, &y, Fused2::SmoothL1 { beta }, None)? {
                return reduce(&loss, reduction);
            }
        }
        let diff = x.binary(B::Sub, &y)?.unary(U::Abs)?;
        let loss = if beta == 0.0 {
            diff
        } else {
            let quadratic = square(&diff)?.binary_scalar(B::Mul, f(0.5 / beta), false)?;
            let linear = diff.binary_scalar(B::Sub, f(0.5 * beta), false)?;
            Tensor::where_(&diff.binary_scalar(B::Lt, f(beta), false)?, Arg::T(&quadratic), Arg::T(&linear))?
        };
        reduce(&loss, reduction)
    })
}

/// `F.huber_loss`: `0.5 d²` where `d = |input - target| < delta`, else `delta (d - 0.5 delta)`,
/// times `weight` where given.
pub fn huber_loss(input: &Tensor, target: &Tensor, reduction: Reduction, delta: f64, weight: Option<&Tensor>) -> Result<Tensor> {
    let (x, y) = broadcast_pair(input, target)?;
    if delta <= 0.0 {
        return Err(Error::Runtime("huber_loss does not support non-positive values for delta.".into()));
    }
    named("HuberLossBackward0", &inputs(&[&x, &y], &[weight]), || {
        if let Some(loss) = fused(&x, &y, Fused2::Huber { delta }, weight)? {
            return reduce(&loss, reduction);
        }
        let diff = x.binary(B::Sub, &y)?.unary(U::Abs)?;
        let quadratic = square(&diff)?.binary_scalar(B::Mul, f(0.5), false)?;
        let linear = diff.binary_scalar(B::Sub, f(0.5 * delta), false)?.binary_scalar(B::Mul, f(delta), false)?;
        let loss = Tensor::where_(&diff.binary_scalar(B::Lt, f(delta), false)?, Arg::T(&quadratic), Arg::T(&linear))?;
        reduce(&weighted(loss, weight)?, reduction)
    })
}

/// Fails as PyTorch does unless every element of `t` lies in [0, 1] (a NaN does not).
fn check_probabilities(t: &Tensor, what: &str) -> Result<()> {
    let inside = {
        let _raw = GradMode::disabled();
        let inside = t.binary_scalar(B::Ge, Scalar::Int(0), false)?.binary(B::BitAnd, &t.binary_scalar(B::Le, Scalar::Int(1), false)?)?;
        inside.reduce(ReduceOp::All, None, false)?.item()?
    };
    if inside != Scalar::Bool(true) {
        return Err(Error::Runtime(format!("all elements of {what} should be between 0 and 1")));
    }
    Ok(())
}

/// `F.binary_cross_entropy` of probabilities: `-(t log(x) + (1 - t) log(1 - x))`, each log
/// clamped at -100 (so that a confident wrong answer costs 100, not inf), times `weight` where
/// given. The node lists the weight only where it needs a gradient.
pub fn binary_cross_entropy(input: &Tensor, target: &Tensor, weight: Option<&Tensor>, reduction: Reduction) -> Result<Tensor> {
    if target.shape() != input.shape() {
        return Err(Error::Value(format!(
            "Using a target size (rstorch.Size({:?})) that is different to the input size (rstorch.Size({:?})) is deprecated. Please ensure they have the same size.",
            target.shape(),
            input.shape()
        )));
    }
    check_probabilities(input, "input")?;
    check_probabilities(target, "target")?;
    named("BinaryCrossEntropyBackward0", &inputs(&[input, target], &[if_grad(weight)]), || {
        let clamped_log = |t: &Tensor| t.unary(U::Log)?.clamp_scalar(Some(f(-100.0)), None);
        let hit = target.binary(B::Mul, &clamped_log(input)?)?;
        let miss = one_minus(target)?.binary(B::Mul, &clamped_log(&one_minus(input)?)?)?;
        let loss = hit.binary(B::Add, &miss)?.unary(U::Neg)?;
        reduce(&weighted(loss, weight)?, reduction)
    })
}

/// `F.binary_cross_entropy_with_logits`: `(1 - t) x + (1 + (p - 1) t) log(1 + e^-x)` with
/// `p = pos_weight` (1 where not given), times `weight` where given. The node lists each weight
/// only where it needs a gradient.
pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    pos_weight: Option<&Tensor>,
    reduction: Reduction,
) -> Result<Tensor> {
    if target.shape() != input.shape() {
        return Err(Error::Value(format!(
            "Target size (rstorch.Size({:?})) must be the same as input size (rstorch.Size({:?}))",
            target.shape(),
            input.shape()
        )));
    }
    named("BinaryCrossEntropyWithLogitsBackward0", &inputs(&[input, target], &[if_grad(weight), if_grad(pos_weight)]), || {
        if pos_weight.is_none() {
            if let Some(loss) = fused(input, target, Fused2::BceWithLogits, weight)? {
                return reduce(&loss, reduction);
            }
        }
        // log(1 + e^-x) = -log_sigmoid(x), as PyTorch composes it: no overflow either way, and
        // log_sigmoid's own gradient, sigmoid(-x), is whole at x = 0.
        let log_sigmoid = input.unary(U::LogSigmoid {})?;
        let negative_part = one_minus(target)?.binary(B::Mul, input)?;
        let positive_part = match pos_weight {
            Some(p) => {
                let coefficient = p.binary_scalar(B::Sub, Scalar::Int(1), false)?.binary(B::Mul, target)?;
                coefficient.binary_scalar(B::Add, Scalar::Int(1), true)?.binary(B::Mul, &log_sigmoid)?
            }
            None => log_sigmoid,
        };
        let loss = negative_part.binary(B::Sub, &positive_part)?;
        reduce(&weighted(loss, weight)?, reduction)
    })
}

/// `F.cross_entropy` of unnormalised scores `(C,)` or `(N, C, *)` against class indices (through
/// `nll_loss`, with `ignore_index` and class weights) or class probabilities of the input's shape;
/// `label_smoothing` mixes that much of the uniform distribution into the target. Recorded as its
/// parts, as PyTorch composes it.
pub fn cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
    label_smoothing: f64,
) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&label_smoothing) {
        return Err(Error::Runtime(format!("label_smoothing must be between 0.0 and 1.0. Got: {}", python_float(label_smoothing))));
    }
    let class_dim = if input.ndim() == 1 { 0 } else { 1 };
    let logp = input.log_softmax(class_dim as i64)?;
    let classes = input.shape()[class_dim];
    if target.dtype().is_floating_point() {
        return cross_entropy_soft(&logp, target, weight, reduction, label_smoothing, class_dim);
    }
    let nll = logp.nll_loss(target, weight, ignore_index, reduction)?;
    if label_smoothing == 0.0 {
        return Ok(nll);
    }
    // Smoothing spreads label_smoothing of the target mass uniformly over the classes.
    let smooth = match weight {
        Some(w) => logp.binary(B::Mul, &class_weight(w, &logp, class_dim)?)?,
        None => logp,
    };
    let dims = [class_dim as i64];
    let ignored = target.binary_scalar(B::Eq, Scalar::Int(ignore_index), false)?;
    let smooth = smooth.sum(Some(&dims), false)?.unary(U::Neg)?.masked_fill(&ignored, Arg::S(f(0.0)))?;
    let smooth = match reduction {
        Reduction::None => smooth,
        Reduction::Sum => smooth.sum(None, false)?,
        Reduction::Mean => {
            let kept = ignored.unary(U::BitwiseNot)?;
            let total_weight = match weight {
                Some(w) => w.index_select(0, &target.masked_select(&kept)?)?.sum(None, false)?,
                None => kept.sum(None, false)?,
            };
            smooth.sum(None, false)?.binary(B::Div, &total_weight)?
        }
    };
    let nll = binary_scalar_overload(&nll, f(1.0 - label_smoothing), B::Mul)?;
    nll.binary(B::Add, &binary_scalar_overload(&smooth, f(label_smoothing / classes as f64), B::Mul)?)
}

/// Class weights `(C,)` as a `(1, C, 1, ...)` tensor against `scores`.
fn class_weight(weight: &Tensor, scores: &Tensor, class_dim: usize) -> Result<Tensor> {
    let mut shape = vec![1i64; scores.ndim()];
    shape[class_dim] = scores.shape()[class_dim] as i64;
    weight.reshape(&shape)
}

/// `cross_entropy` against class probabilities.
fn cross_entropy_soft(
    logp: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
    label_smoothing: f64,
    class_dim: usize,
) -> Result<Tensor> {
    if target.shape() != logp.shape() {
        return Err(Error::Runtime(format!(
            "Expected floating point target of the input's shape {:?}, got {:?}",
            logp.shape(),
            target.shape()
        )));
    }
    let classes = logp.shape()[class_dim];
    let target = if label_smoothing > 0.0 {
        target.binary_scalar(B::Mul, f(1.0 - label_smoothing), false)?.binary_scalar(B::Add, f(label_smoothing / classes as f64), false)?
    } else {
        target.clone()
    };
    let terms = logp.binary(B::Mul, &target)?;
    let terms = match weight {
        Some(w) => terms.binary(B::Mul, &class_weight(w, logp, class_dim)?)?,
        None => terms,
    };
    if reduction != Reduction::None && logp.ndim() > 1 {
        let total = terms.sum(None, false)?.unary(U::Neg)?;
        if reduction == Reduction::Sum {
            return Ok(total);
        }
        // A division by a number: PyTorch's node for it is DivBackward1.
        let samples = logp.numel().checked_div(classes).unwrap_or(0);
        return binary_scalar_overload(&total, Scalar::Int(samples as i64), B::Div);
    }
    let losses = terms.sum(Some(&[class_dim as i64]), false)?.unary(U::Neg)?;
    // One sample: its loss is the mean.
    reduce(&losses, if reduction == Reduction::Mean { Reduction::None } else { reduction })
}

/// `F.kl_div` of log-probabilities `input` against `target` (probabilities, or log-probabilities
/// when `log_target`): `t (log t - x)` with `0 log 0 = 0` (`xlogy`), recorded as its parts.
pub fn kl_div(input: &Tensor, target: &Tensor, reduction: KlDivReduction, log_target: bool) -> Result<Tensor> {
    let loss = if log_target {
        target.unary(U::Exp)?.binary(B::Mul, &target.binary(B::Sub, input)?)?
    } else {
        xlogy(Arg::T(target), Arg::T(target))?.binary(B::Sub, &target.binary(B::Mul, input)?)?
    };
    match reduction {
        KlDivReduction::Batchmean if input.ndim() > 0 => {
            loss.sum(None, false)?.binary_scalar(B::Div, Scalar::Int(input.shape()[0] as i64), false)
        }
        KlDivReduction::Batchmean => loss.sum(None, false),
        KlDivReduction::Other(r) => reduce(&loss, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::test_support::{grad_of, leaf};

    fn node(t: &Tensor) -> String {
        t.grad_fn().expect("recorded").name().to_string()
    }

    #[test]
    fn losses_have_pytorchs_nodes_and_gradients() -> Result<()> {
        let x = leaf(vec![0.5, -1.0, 2.0], &[3])?;
        let y = Tensor::from_vec(vec![0.0f64, 0.0, 0.0], &[3])?;

        let mse = mse_loss(&x, &y, None, Reduction::Sum)?;
        assert_eq!((node(&mse), mse.to_vec::<f64>()?), ("MseLossBackward0".into(), vec![5.25]));
        assert_eq!(grad_of(&mse, &x)?, [1.0, -2.0, 4.0]);

        let smooth = smooth_l1_loss(&x, &y, Reduction::None, 1.0)?;
        assert_eq!((node(&smooth), smooth.to_vec::<f64>()?), ("SmoothL1LossBackward0".into(), vec![0.125, 0.5, 1.5]));
        assert_eq!(grad_of(&smooth, &x)?, [0.5, -1.0, 1.0]);

        let huber = huber_loss(&x, &y, Reduction::Mean, 1.0, None)?;
        assert_eq!(node(&huber), "HuberLossBackward0");
        assert_eq!(grad_of(&huber, &x)?, [0.5 / 3.0, -1.0 / 3.0, 1.0 / 3.0]);

        let p = leaf(vec![0.25, 0.5], &[2])?;
        let t = Tensor::from_vec(vec![1.0f64, 0.0], &[2])?;
        let bce = binary_cross_entropy(&p, &t, None, Reduction::Sum)?;
        assert_eq!(node(&bce), "BinaryCrossEntropyBackward0");
        assert!((bce.to_vec::<f64>()?[0] - (4f64.ln() + 2f64.ln())).abs() < 1e-12);
        // d/dp of -t log p - (1 - t) log(1 - p): -1/p where t = 1, 1/(1 - p) where t = 0
        assert_eq!(grad_of(&bce, &p)?, [-4.0, 2.0]);

        let z = leaf(vec![0.0, 2.0], &[2])?;
        let logits = binary_cross_entropy_with_logits(&z, &t, None, None, Reduction::None)?;
        assert_eq!(
            (node(&logits), logits.grad_fn().expect("recorded").next_edges().len()),
            ("BinaryCrossEntropyWithLogitsBackward0".into(), 2)
        );
        // sigmoid(z) - t
        let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
        let g = grad_of(&logits, &z)?;
        assert!((g[0] - (sigmoid(0.0) - 1.0)).abs() < 1e-12 && (g[1] - sigmoid(2.0)).abs() < 1e-12);
        Ok(())
    }

    #[test]
    fn cross_entropy_is_nll_of_log_softmax_with_smoothing() -> Result<()> {
        let x = leaf(vec![0.0, 0.0], &[1, 2])?;
        let class = Tensor::from_vec(vec![1i64], &[1])?;
        let plain = cross_entropy(&x, &class, None, -100, Reduction::Mean, 0.0)?;
        assert_eq!(node(&plain), "NllLossBackward0");
        assert!((plain.to_vec::<f64>()?[0] - 2f64.ln()).abs() < 1e-15);
        // softmax(x) - one_hot(target)
        assert_eq!(grad_of(&plain, &x)?, [0.5, -0.5]);
        // half the target mass spread over both classes: the target is (0.25, 0.75)
        let smoothed = cross_entropy(&x, &class, None, -100, Reduction::Mean, 0.5)?;
        assert!((smoothed.to_vec::<f64>()?[0] - 2f64.ln()).abs() < 1e-15);
        assert_eq!(grad_of(&smoothed, &x)?, [0.25, -0.25]);
        let soft = cross_entropy(&x, &Tensor::from_vec(vec![0.25f64, 0.75], &[1, 2])?, None, -100, Reduction::Sum, 0.0)?;
        assert_eq!(grad_of(&soft, &x)?, [0.25, -0.25]);
        Ok(())
    }

    #[test]
    fn refuses_what_pytorch_refuses() -> Result<()> {
        let err = |r: Result<Tensor>| r.expect_err("refused").to_string();
        let x = Tensor::from_vec(vec![1.5f64, 0.5], &[2])?;
        let y = Tensor::from_vec(vec![1.0f64, 0.0], &[2])?;
        assert_eq!(err(binary_cross_entropy(&x, &y, None, Reduction::Mean)), "all elements of input should be between 0 and 1");
        assert_eq!(err(smooth_l1_loss(&x, &y, Reduction::Mean, -1.0)), "smooth_l1_loss does not support negative values for beta.");
        assert_eq!(err(huber_loss(&x, &y, Reduction::Mean, 0.0, None)), "huber_loss does not support non-positive values for delta.");
        let z = Tensor::from_vec(vec![0.0f64; 3], &[3])?;
        assert_eq!(
            err(mse_loss(&x, &z, None, Reduction::Mean)),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
        );
        assert_eq!(KlDivReduction::parse("avg").expect_err("refused").to_string(), "avg is not a valid value for reduction");
        let class = Tensor::from_vec(vec![0i64, 1], &[2])?;
        let ls = cross_entropy(&x.reshape(&[1, 2])?, &class.narrow(0, 0, 1)?, None, -100, Reduction::Mean, 1.5);
        assert_eq!(err(ls), "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
        Ok(())
    }
}
