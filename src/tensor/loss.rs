//! nll_loss of `(N, C)` or `(C,)` float scores as one backend kernel (on a GPU it reads back
//! only a range flag), recorded as PyTorch's NllLossBackward0 node. With the
//! fused log_softmax in front it is all of cross_entropy. The same loss composed from tensor
//! ops (other shapes and dtypes) is the Python layer's.

use crate::autograd::composite::composite_optional;
use crate::autograd::{is_grad_enabled, keep_buffers, record_shown, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

pub use crate::ops::reduction::Reduction;

impl Tensor {
    /// `torch.nn.functional.nll_loss`: scores `(C,)`, `(N, C)` or `(N, C, d1, ...)` against class
    /// targets, with PyTorch's checks in its order. One fused kernel where it applies (float32 and
    /// float64 rows), else tensor ops under PyTorch's node (NllLossBackward0, or
    /// NllLoss2DBackward0 for spatial scores).
    pub fn nll_loss(&self, target: &Tensor, weight: Option<&Tensor>, ignore_index: i64, reduction: Reduction) -> Result<Tensor> {
        if self.ndim() < 1 {
            return Err(Error::Value(format!("Expected 1 or more dimensions (got {})", self.ndim())));
        }
        let batch = target.shape().first().copied().unwrap_or(0);
        if self.ndim() != 1 && self.shape()[0] != batch {
            return Err(Error::Value(format!("Expected input batch_size ({}) to match target batch_size ({batch}).", self.shape()[0])));
        }
        let target = match target.dtype() {
            DType::I64 => target.clone(),
            DType::U8 => target.to_dtype(DType::I64)?,
            other => {
                return Err(Error::Runtime(format!("expected target dtype to be Long or Byte, but got {}", other.title_name())));
            }
        };
        let spatial = self.ndim() > 2;
        if spatial {
            let expected: Vec<usize> = [self.shape()[0]].into_iter().chain(self.shape()[2..].iter().copied()).collect();
            if target.shape() != expected {
                return Err(Error::Runtime(format!("Expected target size {expected:?}, got {:?}", target.shape())));
            }
        } else if target.ndim() > 1 {
            return Err(Error::Runtime("0D or 1D target tensor expected, multi-target not supported".into()));
        }
        let kernel = if spatial { "nll_loss2d_forward" } else { "nll_loss_forward" };
        if let Some(w) = weight {
            if w.requires_grad() && is_grad_enabled() {
                return Err(Error::Runtime(format!(
                    "The function '{kernel}' is not differentiable with respect to argument 'weight'. This input cannot have requires_grad True."
                )));
            }
            let classes = self.shape()[if self.ndim() == 1 { 0 } else { 1 }];
            if w.numel() != classes || w.ndim() != 1 {
                return Err(Error::Runtime(if spatial {
                    "weight tensor should be defined either for all or no classes".into()
                } else {
                    format!(
                        "weight tensor should be defined either for all {classes} classes or no classes but got weight tensor of shape: {:?}",
                        w.shape()
                    )
                }));
            }
        }
        if !spatial {
            if let Some(out) = self.nll_loss_fused(&target, weight, ignore_index, reduction)? {
                return Ok(out);
            }
        }
        let name = if spatial { "NllLoss2DBackward0" } else { "NllLossBackward0" };
        let losses = |reduction| self.nll_loss_composed(&target, weight, ignore_index, reduction);
        if reduction == Reduction::None && spatial && self.ndim() != 4 {
            // PyTorch computes these as 4-d scores and views the result back to the target's shape.
            let per_target = composite_optional(name, &[Some(self)], vec![losses(Reduction::None)?.reshape(&[-1])?]).remove(0);
            let shape: Vec<i64> = target.shape().iter().map(|&d| d as i64).collect();
            return per_target.reshape(&shape);
        }
        Ok(composite_optional(name, &[Some(self)], vec![losses(reduction)?]).remove(0))
    }

    /// `nll_loss` in tensor ops: `-w[t] * x[t]` per target (zero where ignored), reduced.
    fn nll_loss_composed(&self, target: &Tensor, weight: Option<&Tensor>, ignore_index: i64, reduction: Reduction) -> Result<Tensor> {
        let classes = self.shape()[if self.ndim() == 1 { 0 } else { 1 }] as i64;
        let rows = match self.ndim() {
            1 => self.unsqueeze(0)?,
            2 => self.clone(),
            _ => self.movedim(1, -1)?.reshape(&[-1, classes])?,
        };
        let flat = target.reshape(&[-1])?;
        let valid = flat.binary_scalar(BinaryOp::Ne, Scalar::Int(ignore_index), false)?;
        let safe = Tensor::where_(&valid, Arg::T(&flat), Arg::S(Scalar::Int(0)))?;
        let picked = match rows.gather(1, &safe.unsqueeze(1)?) {
            Ok(p) => p.squeeze_dims(&[1])?,
            Err(Error::Index(_) | Error::IndexOutOfRange { .. }) => {
                let bad = safe.to_vec::<i64>()?.into_iter().find(|&t| t < 0 || t >= classes).unwrap_or(-1);
                return Err(Error::Index(format!("Target {bad} is out of bounds.")));
            }
            Err(e) => return Err(e),
        };
        let mut coefs = valid.to_dtype(rows.dtype())?;
        if let Some(w) = weight {
            coefs = coefs.binary(BinaryOp::Mul, &w.index_select(0, &safe)?)?;
        }
        // -(w x), and +0 where the target is ignored, as PyTorch writes them.
        let losses = picked.binary(BinaryOp::Mul, &coefs)?.unary(crate::tensor::UnaryOp::Neg)?;
        let losses = Tensor::where_(&valid, Arg::T(&losses), Arg::S(Scalar::Float(0.0)))?;
        match reduction {
            Reduction::None => {
                let shape: Vec<i64> = target.shape().iter().map(|&d| d as i64).collect();
                losses.reshape(&shape)
            }
            Reduction::Sum => losses.sum(None, false),
            Reduction::Mean => losses.sum(None, false)?.binary(BinaryOp::Div, &coefs.sum(None, false)?),
        }
    }

    /// `nll_loss(self, target, weight, ignore_index, reduction)` for float32 or float64
    /// scores of shape `(N, C)` with `(N,)` int64 targets, or `(C,)` with a zero-dim target
    /// (the caller has checked the shapes, as PyTorch's messages word it). `None` where the
    /// kernel does not apply: the caller then composes the loss from tensor ops.
    fn nll_loss_fused(&self, target: &Tensor, weight: Option<&Tensor>, ignore_index: i64, reduction: Reduction) -> Result<Option<Tensor>> {
        let dt = self.dtype();
        let device = self.device();
        let one_device = [Some(target), weight].into_iter().flatten().all(|t| t.device() == device);
        let weight_plain = weight.is_none_or(|w| !w.requires_grad() && w.dtype() == dt);
        // On a GPU, float64 where the device computes in it.
        let kernel_dtype =
            dt == DType::F32 || (dt == DType::F64 && device.index().is_none_or(|i| self.backend().supports_f64(i).unwrap_or(false)));
        if !one_device || !weight_plain || !kernel_dtype || target.dtype() != DType::I64 || !matches!(self.ndim(), 1 | 2) {
            return Ok(None);
        }
        let classes = *self.shape().last().expect("one or two dims");
        if let Some(w) = weight {
            if w.shape() != [classes] {
                return Err(Error::Runtime(format!(
                    "weight tensor should be defined either for all {classes} classes or no classes but got weight tensor of shape: {:?}",
                    w.shape()
                )));
            }
        }
        if target.numel().checked_mul(classes) != Some(self.numel()) {
            return Err(Error::Runtime(format!("nll_loss: {} targets for scores of shape {:?}", target.numel(), self.shape())));
        }
        // One kernel checks the targets, picks and sums; on a GPU only a flag word comes back.
        let out_shape = if reduction == Reduction::None { target.shape().to_vec() } else { vec![] };
        let keep = is_grad_enabled() && self.requires_grad();
        let fused = {
            let _raw = crate::autograd::GradMode::disabled();
            let w = weight.map(Tensor::array);
            let t = Tensor::from_array;
            self.backend()
                .nll_loss(self.array(), target.array(), w, classes, ignore_index, reduction, &out_shape, keep)?
                .map(|(out, slopes, picks)| (t(out), t(slopes), t(picks)))
        };
        let Some((out, slopes, picks)) = fused else {
            let bad = target.to_vec::<i64>()?.into_iter().find(|&t| t != ignore_index && (t < 0 || t as usize >= classes)).unwrap_or(-1);
            return Err(Error::Index(format!("Target {bad} is out of bounds.")));
        };
        if keep {
            // The backward needs, per row, d loss / d x[t] (before the incoming gradient) and
            // where t is: the slopes and picks.
            record_shown(None, Op::NllLoss, &[self, target], &[&out], &[], &[], Some(&[0]));
            keep_buffers(&out, vec![slopes, picks]);
        }
        Ok(Some(out))
    }
}

/// The gradient of `nll_loss_fused` for its scores of `shape`, from the incoming gradient `g`
/// (zero-dim, or one per row without reduction) and the buffers the forward pass kept.
/// Written with tensor ops, so it is itself differentiable (higher-order gradients).
pub(crate) fn nll_loss_backward(g: &Tensor, shape: &[usize], slopes: &Tensor, picks: &Tensor) -> Result<Tensor> {
    let rows = picks.shape()[0] as i64;
    let per_row = slopes.binary(BinaryOp::Mul, &g.reshape(&[if g.ndim() == 0 { 1 } else { rows }])?)?;
    let classes = *shape.last().expect("one or two dims");
    let per_row = per_row.reshape(&[rows, 1])?;
    let grad = if !is_grad_enabled() && g.device() == crate::device::Device::Cpu {
        // Outside create_graph: the zeros written once, then one value per row in place (the
        // out-of-place scatter below copies the zeros first: two writes of every score's
        // gradient, 7.3 ms of a language model's 700 x 10000 step).
        let out = Tensor::zeros_on(&[rows as usize, classes], g.dtype(), g.device())?;
        let per_row = per_row.contiguous()?;
        if crate::cpu::index::scatter_index(out.array(), 1, picks.array(), picks.layout(), per_row.array(), false)? {
            out
        } else {
            out.scatter(1, picks, Arg::T(&per_row), false)?
        }
    } else if !g.backend().indices_stay_on_device() {
        // One write per row.
        Tensor::zeros_on(&[rows as usize, classes], g.dtype(), g.device())?.scatter(1, picks, Arg::T(&per_row), false)?
    } else {
        // Where indices stay on the device, a scatter would check the picks there and read its
        // flag back (waiting for the device); comparing with the class numbers needs neither
        // (the forward pass made the picks).
        let class_of = Tensor::from_vec((0..classes as i64).collect::<Vec<_>>(), &[1, classes])?.to_device(g.device())?;
        Tensor::where_(&class_of.binary(BinaryOp::Eq, picks)?, Arg::T(&per_row), Arg::S(crate::tensor::Scalar::Float(0.0)))?
    };
    grad.reshape(&shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}
