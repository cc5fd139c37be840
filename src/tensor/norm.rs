//! softmax, log_softmax, layer_norm and batch_norm: argument checks, the dtype the kernels
//! compute in (float64 for float64, float32 for the rest), one node named as PyTorch's, and one
//! fused backend op each way on every device.

use crate::autograd::{is_grad_enabled, keep_buffers, record, GradMode, Op};
use crate::dtype::DType;
use crate::error::{python_float, Error, Result};
use crate::shape::wrap_dim;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor, UnaryOp};

/// The dtype the kernels compute `dtype` in: float64 in float64, the rest in float32.
fn work_dtype(dtype: DType) -> DType {
    if dtype == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// `x` in the dtype the kernels compute in (any layout).
fn work_view(x: &Tensor) -> Result<Tensor> {
    x.to_dtype(work_dtype(x.dtype()))
}

impl Tensor {
    pub fn softmax(&self, dim: i64) -> Result<Tensor> {
        self.softmax_op(dim, false)
    }

    pub fn log_softmax(&self, dim: i64) -> Result<Tensor> {
        self.softmax_op(dim, true)
    }

    fn softmax_op(&self, dim: i64, log: bool) -> Result<Tensor> {
        let name = if log { "log_softmax" } else { "softmax" };
        let d = wrap_dim(dim, self.ndim())?;
        if !self.dtype().is_floating_point() {
            let last = d + 1 >= self.ndim();
            return Err(Error::NotImplemented(format!(
                "\"{name}_{}kernel_impl\" not implemented for '{}'",
                if last { "lastdim_" } else { "" },
                self.dtype().title_name()
            )));
        }
        let out = {
            let _raw = GradMode::disabled();
            let y = Tensor::from_array(self.backend().softmax(work_view(self)?.array(), d, log)?);
            y.to_dtype(self.dtype())?
        };
        record(Op::Softmax { dim: d, log }, &[self], &[&out], &[], &[0]);
        Ok(out)
    }

    /// The input gradient of softmax / log_softmax from its output `y` and output gradient
    /// `self`: outside create_graph one fused pass (on the CPU or a GPU; half precision computes
    /// in float32, as the CPU does), else differentiable tensor ops.
    pub(crate) fn softmax_backward(&self, y: &Tensor, d: usize, log: bool) -> Result<Tensor> {
        if !is_grad_enabled() && self.dtype() == y.dtype() && self.device() == y.device() {
            // One fused pass on the device, in float32 for half precision as the forward.
            let gx = Tensor::from_array(self.backend().softmax_backward(work_view(self)?.array(), work_view(y)?.array(), d, log)?);
            return gx.to_dtype(y.dtype());
        }
        let dim = [d as i64];
        if log {
            self.binary(BinaryOp::Sub, &y.unary(UnaryOp::Exp)?.binary(BinaryOp::Mul, &self.sum(Some(&dim), true)?)?)
        } else {
            let dot = self.binary(BinaryOp::Mul, y)?.sum(Some(&dim), true)?;
            y.binary(BinaryOp::Mul, &self.binary(BinaryOp::Sub, &dot)?)
        }
    }

    /// `layer_norm` over the trailing dims `normalized_shape`, which the input must end with.
    pub fn layer_norm(&self, normalized_shape: &[usize], weight: Option<&Tensor>, bias: Option<&Tensor>, eps: f64) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        if normalized_shape.len() > shape.len() || !shape.ends_with(normalized_shape) {
            let dims: Vec<String> = normalized_shape.iter().map(|d| d.to_string()).collect();
            return Err(Error::Runtime(format!(
                "Given normalized_shape={normalized_shape:?}, expected input with shape [*, {}], but got input of size{shape:?}",
                dims.join(", ")
            )));
        }
        for (name, t) in [("weight", weight), ("bias", bias)] {
            if let Some(t) = t.filter(|t| t.shape() != normalized_shape) {
                return Err(Error::Runtime(format!(
                    "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {:?} and normalized_shape = {normalized_shape:?}",
                    t.shape()
                )));
            }
        }
        let operands: Vec<&Tensor> = [Some(self), weight, bias].into_iter().flatten().collect();
        crate::device::common_device(&operands, false)?;
        let cols: usize = normalized_shape.iter().product();
        let (out, mean, rstd) = {
            let _raw = GradMode::disabled();
            let (w, b) = (in_work_dtype(weight, self)?, in_work_dtype(bias, self)?);
            let (w, b) = (w.as_ref().map(Tensor::array), b.as_ref().map(Tensor::array));
            let (out, mean, rstd) = self.backend().layer_norm(work_view(self)?.array(), cols, w, b, eps)?;
            (Tensor::from_array(out).to_dtype(self.dtype())?, Tensor::from_array(mean), Tensor::from_array(rstd))
        };
        let (w, b) = (optional_input(weight, self)?, optional_input(bias, self)?);
        record(Op::LayerNorm { cols, eps }, &[self, &w, &b], &[&out], &[0, 1], &[]);
        keep_buffers(&out, vec![mean, rstd]);
        Ok(out)
    }

    /// `torch.nn.functional.batch_norm`: PyTorch's argument checks, the fused op, and in
    /// training the update of the running estimates in place (`momentum` of the batch's mean and
    /// of its unbiased variance).
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm(
        &self,
        running_mean: Option<&Tensor>,
        running_var: Option<&Tensor>,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        training: bool,
        momentum: f64,
        eps: f64,
    ) -> Result<Tensor> {
        let shape = self.shape();
        let mut per_channel = 0;
        if training {
            // PyTorch reads the channel count first, so a 1-d input fails on that dim.
            wrap_dim(1, shape.len())?;
            per_channel = shape[0] * shape[2..].iter().product::<usize>();
            if per_channel == 1 {
                return Err(Error::Value(format!(
                    "Expected more than 1 value per channel when training, got input size rstorch.Size({shape:?})"
                )));
            }
            if eps <= 0.0 {
                return Err(Error::Value(format!("batch_norm eps must be positive during training, but got {}", python_float(eps))));
            }
        }
        if eps < 0.0 {
            return Err(Error::Value(format!("batch_norm eps must be non-negative, but got {}", python_float(eps))));
        }
        if !training {
            for (name, t) in [("running_mean", running_mean), ("running_var", running_var)] {
                if t.is_none() {
                    return Err(Error::Runtime(format!("{name} must be defined in evaluation mode")));
                }
            }
        }
        let running = match (running_mean, running_var) {
            (Some(m), Some(v)) => Some((m, v)),
            (None, None) => None,
            _ => return Err(Error::Value("running_mean and running_var must either both be None or neither be None".into())),
        };
        let (out, mean, var) = self.batch_norm_with_stats(weight, bias, running, training, eps)?;
        if let (true, Some((running_mean, running_var))) = (training, running) {
            let _raw = GradMode::disabled();
            let n = per_channel as f64;
            let keep = Arg::S(Scalar::Float(1.0 - momentum));
            running_mean.binary_(BinaryOp::Mul, keep)?;
            running_mean.binary_(BinaryOp::Add, Arg::T(&mean.binary_scalar(BinaryOp::Mul, Scalar::Float(momentum), false)?))?;
            running_var.binary_(BinaryOp::Mul, keep)?;
            let unbiased = var.binary_scalar(BinaryOp::Mul, Scalar::Float(momentum * n / (n - 1.0)), false)?;
            running_var.binary_(BinaryOp::Add, Arg::T(&unbiased))?;
        }
        Ok(out)
    }

    /// Batch norm of an (N, C, ...) tensor: with the batch's statistics when `training` (also
    /// returned: the mean and the biased variance, for the running estimates), else with
    /// `running` (mean, variance).
    pub fn batch_norm_with_stats(
        &self,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        running: Option<(&Tensor, &Tensor)>,
        training: bool,
        eps: f64,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        let shape = self.shape().to_vec();
        if shape.len() < 2 {
            return Err(Error::Value(format!("Expected 2D or higher input to batch_norm (got {}D input)", shape.len())));
        }
        let named = [("weight", weight), ("bias", bias), ("running_mean", running.map(|r| r.0)), ("running_var", running.map(|r| r.1))];
        for (name, t) in named {
            if let Some(t) = t.filter(|t| t.numel() != shape[1]) {
                return Err(Error::Runtime(format!("{name} should contain {} elements not {}", shape[1], t.numel())));
            }
        }
        let operands: Vec<&Tensor> = [Some(self), weight, bias, running.map(|r| r.0), running.map(|r| r.1)].into_iter().flatten().collect();
        crate::device::common_device(&operands, false)?;
        let (out, mean, rstd, var) = {
            let _raw = GradMode::disabled();
            let (w, b) = (in_work_dtype(weight, self)?, in_work_dtype(bias, self)?);
            let running = running.map(|(m, v)| (m.array(), v.array()));
            let (w, b) = (w.as_ref().map(Tensor::array), b.as_ref().map(Tensor::array));
            let (out, mean, rstd, var) = self.backend().batch_norm(work_view(self)?.array(), w, b, running, training, eps)?;
            let t = Tensor::from_array;
            let out = t(out).to_dtype(self.dtype())?.channels_last_result(crate::result_layout::suggests_channels_last(self.layout()))?;
            (out, t(mean), t(rstd), t(var))
        };
        let (w, b) = (optional_input(weight, self)?, optional_input(bias, self)?);
        record(Op::BatchNorm { training, eps }, &[self, &w, &b], &[&out], &[0, 1], &[]);
        keep_buffers(&out, vec![mean.clone(), rstd]);
        Ok((out, mean, var))
    }
}

/// An optional operand of a GPU norm kernel in the dtype the kernel computes `x` in.
fn in_work_dtype(t: Option<&Tensor>, x: &Tensor) -> Result<Option<Tensor>> {
    t.map(|t| t.to_dtype(work_dtype(x.dtype()))).transpose()
}

/// An optional input as the node lists it: the tensor, or an empty one that needs no gradient
/// (a None edge, as PyTorch shows a missing weight or bias).
fn optional_input(t: Option<&Tensor>, like: &Tensor) -> Result<Tensor> {
    match t {
        Some(t) => Ok(t.clone()),
        None => Tensor::zeros(&[0], like.dtype()),
    }
}

/// Gradients of the norm ops: fused kernels outside create_graph, else differentiable tensor
/// ops (the statistics recomputed from `x`, so second derivatives see them depend on it). The
/// weight's and bias's gradients come flat (one value per column or channel), in `x`'s dtype or
/// the dtype the kernels computed in: the caller shapes and casts them as the parameters.
pub(crate) struct NormGrads {
    pub x: Option<Tensor>,
    pub weight: Option<Tensor>,
    pub bias: Option<Tensor>,
}

/// `[want x, want weight, want bias]`.
pub(crate) type Wanted = [bool; 3];

fn scalar(v: f64) -> crate::tensor::Scalar {
    crate::tensor::Scalar::Float(v)
}

/// `rsqrt(var + eps)`.
fn rsqrt_eps(var: &Tensor, eps: f64) -> Result<Tensor> {
    var.binary_scalar(BinaryOp::Add, scalar(eps), false)?.unary(UnaryOp::Rsqrt)
}

pub(crate) fn layer_norm_backward(
    x: &Tensor,
    g: &Tensor,
    weight: Option<&Tensor>,
    stats: (&Tensor, &Tensor),
    cols: usize,
    eps: f64,
    want: Wanted,
) -> Result<NormGrads> {
    let flat_cols = [cols as i64];
    if is_grad_enabled() {
        let xr = x.reshape(&[-1, cols as i64])?;
        let gr = g.reshape(&[-1, cols as i64])?;
        let centered = xr.binary(BinaryOp::Sub, &xr.mean(Some(&[1]), true)?)?;
        let rstd = rsqrt_eps(&centered.binary(BinaryOp::Mul, &centered)?.mean(Some(&[1]), true)?, eps)?;
        let xhat = centered.binary(BinaryOp::Mul, &rstd)?;
        let gx = want[0]
            .then(|| -> Result<Tensor> {
                let dxhat = match weight {
                    Some(w) => gr.binary(BinaryOp::Mul, &w.reshape(&flat_cols)?)?,
                    None => gr.clone(),
                };
                let a = dxhat.mean(Some(&[1]), true)?;
                let b = dxhat.binary(BinaryOp::Mul, &xhat)?.mean(Some(&[1]), true)?;
                let inner = dxhat.binary(BinaryOp::Sub, &a)?.binary(BinaryOp::Sub, &xhat.binary(BinaryOp::Mul, &b)?)?;
                rstd.binary(BinaryOp::Mul, &inner)?.reshape(&dims(x.shape()))
            })
            .transpose()?;
        let gw = want[1].then(|| gr.binary(BinaryOp::Mul, &xhat)?.sum(Some(&[0]), false)).transpose()?;
        let gb = want[2].then(|| gr.sum(Some(&[0]), false)).transpose()?;
        return Ok(NormGrads { x: gx, weight: gw, bias: gb });
    }
    let w = in_work_dtype(weight, x)?;
    let stats = (stats.0.array(), stats.1.array());
    let (dx, dw, db) =
        x.backend().layer_norm_backward(work_view(x)?.array(), work_view(g)?.array(), w.as_ref().map(Tensor::array), stats, cols, want)?;
    let t = Tensor::from_array;
    Ok(NormGrads { x: dx.map(|a| t(a).to_dtype(x.dtype())).transpose()?, weight: dw.map(t), bias: db.map(t) })
}

pub(crate) fn batch_norm_backward(
    x: &Tensor,
    g: &Tensor,
    weight: Option<&Tensor>,
    stats: (&Tensor, &Tensor),
    training: bool,
    eps: f64,
    want: Wanted,
) -> Result<NormGrads> {
    let channels = x.shape()[1];
    if is_grad_enabled() {
        let rdims: Vec<i64> = std::iter::once(0).chain(2..x.ndim() as i64).collect();
        let mut cshape = vec![1i64; x.ndim()];
        cshape[1] = channels as i64;
        let (mean, rstd) = if training {
            let mean = x.mean(Some(&rdims), true)?;
            let c = x.binary(BinaryOp::Sub, &mean)?;
            (mean, rsqrt_eps(&c.binary(BinaryOp::Mul, &c)?.mean(Some(&rdims), true)?, eps)?)
        } else {
            (stats.0.to_dtype(x.dtype())?.reshape(&cshape)?, stats.1.to_dtype(x.dtype())?.reshape(&cshape)?)
        };
        let xhat = x.binary(BinaryOp::Sub, &mean)?.binary(BinaryOp::Mul, &rstd)?;
        let k = match weight {
            Some(w) => rstd.binary(BinaryOp::Mul, &w.reshape(&cshape)?)?,
            None => rstd.clone(),
        };
        let gx = want[0]
            .then(|| -> Result<Tensor> {
                if !training {
                    return g.binary(BinaryOp::Mul, &k);
                }
                let a = g.mean(Some(&rdims), true)?;
                let b = g.binary(BinaryOp::Mul, &xhat)?.mean(Some(&rdims), true)?;
                k.binary(BinaryOp::Mul, &g.binary(BinaryOp::Sub, &a)?.binary(BinaryOp::Sub, &xhat.binary(BinaryOp::Mul, &b)?)?)
            })
            .transpose()?;
        let gw = want[1].then(|| g.binary(BinaryOp::Mul, &xhat)?.sum(Some(&rdims), false)).transpose()?;
        let gb = want[2].then(|| g.sum(Some(&rdims), false)).transpose()?;
        return Ok(NormGrads { x: gx, weight: gw, bias: gb });
    }
    let w = in_work_dtype(weight, x)?;
    let stats = (stats.0.array(), stats.1.array());
    let (dx, dw, db) = x.backend().batch_norm_backward(
        work_view(x)?.array(),
        work_view(g)?.array(),
        w.as_ref().map(Tensor::array),
        stats,
        training,
        want[0],
    )?;
    let t = Tensor::from_array;
    Ok(NormGrads { x: dx.map(|a| t(a).to_dtype(x.dtype())).transpose()?, weight: want[1].then(|| t(dw)), bias: want[2].then(|| t(db)) })
}

fn dims(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&s| s as i64).collect()
}
