//! The CPU's softmax, layer norm and batch norm over Arrays: float32 or float64 operands (the
//! tensor layer converts the rest) made dense, the fused kernels of `norm`.

use crate::backend::{Array, NormGrads};
use crate::cpu::cast::copy_as;
use crate::dtype::DType;
use crate::error::{Error, Result};

use super::cast::dense_slice;
use super::norm::{
    batch_norm, batch_norm_backward, channel_moments, layer_norm, layer_norm_backward, logsumexp, softmax, softmax_backward, Lanes,
    NormFloat, Planes,
};

/// `Lanes` of a softmax along `d` of `shape` (a zero-dim array is one lane of one).
fn lanes_of(shape: &[usize], d: usize) -> Lanes {
    if shape.is_empty() {
        return Lanes { outer: 1, len: 1, inner: 1 };
    }
    Lanes { outer: shape[..d].iter().product(), len: shape[d], inner: shape[d + 1..].iter().product() }
}

/// softmax (or `log` log_softmax) along `d` of a float32 or float64 array, in its dtype.
pub fn softmax_op(x: &Array, d: usize, log: bool) -> Result<Array> {
    use Array;
    let l = lanes_of(x.shape(), d);
    match x.dtype() {
        DType::F64 => Array::from_vec(dense_slice::<f64, _>(x, "softmax", |s| softmax(s, l, log))??, x.shape()),
        _ => Array::from_vec(dense_slice::<f32, _>(x, "softmax", |s| softmax(s, l, log))??, x.shape()),
    }
}

/// The input gradient of `softmax_op` from the output gradient `g` and the output `y` (one
/// float dtype and shape).
pub fn softmax_backward_op(g: &Array, y: &Array, d: usize, log: bool) -> Result<Array> {
    use Array;
    let l = lanes_of(y.shape(), d);
    macro_rules! run {
        ($t:ty) => {
            Array::from_vec(
                dense_slice::<$t, _>(y, "softmax_backward", |ys| {
                    dense_slice::<$t, _>(g, "softmax_backward", |gs| softmax_backward(ys, gs, l, log))
                })???,
                y.shape(),
            )
        };
    }
    match y.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    }
}

/// logsumexp along `d` of a float32 or float64 array, in its dtype, into `out_shape` (the
/// kept dims in order). A permuted dense input whose kept dims keep their order in memory (a
/// transposed matrix) is read where it lies, along its dim's stride; any other strided one is
/// made dense first.
pub fn logsumexp_op(x: &Array, d: usize, out_shape: &[usize]) -> Result<Array> {
    let l = x.layout();
    let mut order: Vec<usize> = (0..x.ndim()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(l.strides[k]));
    let view = crate::layout::Layout {
        shape: order.iter().map(|&k| l.shape[k]).collect(),
        strides: order.iter().map(|&k| l.strides[k]).collect(),
        offset: l.offset,
    };
    let kept_in_order = order.iter().filter(|&&k| k != d).is_sorted();
    let (x, d) = if !x.is_contiguous() && view.is_contiguous() && kept_in_order {
        let at = order.iter().position(|&k| k == d).unwrap_or(d);
        (x.with_layout(view), at)
    } else {
        (x.clone(), d)
    };
    let lanes = lanes_of(x.shape(), d);
    match x.dtype() {
        DType::F64 => Array::from_vec(dense_slice::<f64, _>(&x, "logsumexp", |s| logsumexp(s, lanes))??, out_shape),
        _ => Array::from_vec(dense_slice::<f32, _>(&x, "logsumexp", |s| logsumexp(s, lanes))??, out_shape),
    }
}

/// The contiguous elements of an optional operand.
fn dense_vec<T: crate::dtype::Element>(x: Option<&Array>, op: &str) -> Result<Option<Vec<T>>> {
    x.map(|x| dense_slice::<T, _>(x, op, <[T]>::to_vec)).transpose()
}

/// Layer norm over rows of the last `cols` elements: `(y, mean, rstd)`, one mean and rstd per row.
pub fn layer_norm_op(x: &Array, cols: usize, weight: Option<&Array>, bias: Option<&Array>, eps: f64) -> Result<(Array, Array, Array)> {
    macro_rules! run {
        ($t:ty) => {{
            let (w, b) = (dense_vec::<$t>(weight, "layer_norm")?, dense_vec::<$t>(bias, "layer_norm")?);
            let (o, m, r) = dense_slice::<$t, _>(x, "layer_norm", |s| layer_norm(s, cols, w.as_deref(), b.as_deref(), eps))??;
            let rows = m.len();
            (Array::from_vec(o, x.shape())?, Array::from_vec(m, &[rows])?, Array::from_vec(r, &[rows])?)
        }};
    }
    Ok(match x.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// Batch norm over dim 1: `(y, mean, rstd, var)` per channel, from the batch when `training`,
/// else from `running` (mean, var).
pub fn batch_norm_op(
    x: &Array,
    weight: Option<&Array>,
    bias: Option<&Array>,
    running: Option<(&Array, &Array)>,
    training: bool,
    eps: f64,
) -> Result<(Array, Array, Array, Array)> {
    let shape = x.shape();
    let s = Planes { batch: shape[0], channels: shape[1], plane: shape[2..].iter().product() };
    macro_rules! run {
        ($t:ty) => {{
            type T = $t;
            let (w, b) = (dense_vec::<T>(weight, "batch_norm")?, dense_vec::<T>(bias, "batch_norm")?);
            let (mean, var) = match (training, running) {
                (false, Some((m, v))) => {
                    let (m, v) = (copy_as(m, x.dtype())?, copy_as(v, x.dtype())?);
                    (dense_slice::<T, _>(&m, "batch_norm", <[T]>::to_vec)?, dense_slice::<T, _>(&v, "batch_norm", <[T]>::to_vec)?)
                }
                (false, None) => return Err(Error::Runtime("running_mean and running_var must be defined in evaluation mode".into())),
                (true, _) => dense_slice::<T, _>(x, "batch_norm", |xs| channel_moments(xs, s))?,
            };
            let rstd: Vec<T> = var.iter().map(|&v| NormFloat::rsqrt_(v + eps as T)).collect();
            let out = dense_slice::<T, _>(x, "batch_norm", |xs| batch_norm(xs, s, &mean, &rstd, w.as_deref(), b.as_deref()))??;
            let c = [s.channels];
            (Array::from_vec(out, shape)?, Array::from_vec(mean, &c)?, Array::from_vec(rstd, &c)?, Array::from_vec(var, &c)?)
        }};
    }
    Ok(match x.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// Layer norm's gradients from the input, the output gradient and the forward's (mean, rstd):
/// those of `want` (x, weight, bias).
pub fn layer_norm_backward_op(
    x: &Array,
    g: &Array,
    weight: Option<&Array>,
    (mean, rstd): (&Array, &Array),
    cols: usize,
    want: [bool; 3],
) -> Result<NormGrads> {
    macro_rules! run {
        ($t:ty) => {{
            type T = $t;
            let op = "layer_norm_backward";
            let w = dense_vec::<T>(weight, op)?;
            let (m, r) = (dense_slice::<T, _>(mean, op, <[T]>::to_vec)?, dense_slice::<T, _>(rstd, op, <[T]>::to_vec)?);
            let (dx, dw, db) = dense_slice::<T, _>(x, op, |xs| {
                dense_slice::<T, _>(g, op, |gs| layer_norm_backward(xs, gs, cols, w.as_deref(), &m, &r, want[0], want[1], want[2]))
            })???;
            (
                dx.map(|v| Array::from_vec(v, x.shape())).transpose()?,
                dw.map(|v| Array::from_vec(v, &[cols])).transpose()?,
                db.map(|v| Array::from_vec(v, &[cols])).transpose()?,
            )
        }};
    }
    Ok(match x.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// Batch norm's gradients: x's when `want_x`, and always the weight's and the bias's (per channel).
pub fn batch_norm_backward_op(
    x: &Array,
    g: &Array,
    weight: Option<&Array>,
    (mean, rstd): (&Array, &Array),
    training: bool,
    want_x: bool,
) -> Result<(Option<Array>, Array, Array)> {
    let shape = x.shape();
    let channels = shape[1];
    let s = Planes { batch: shape[0], channels, plane: shape[2..].iter().product() };
    macro_rules! run {
        ($t:ty) => {{
            type T = $t;
            let op = "batch_norm_backward";
            let w = dense_vec::<T>(weight, op)?;
            let (m, r) = (dense_slice::<T, _>(mean, op, <[T]>::to_vec)?, dense_slice::<T, _>(rstd, op, <[T]>::to_vec)?);
            let (dx, dw, db) = dense_slice::<T, _>(x, op, |xs| {
                dense_slice::<T, _>(g, op, |gs| batch_norm_backward(xs, gs, s, w.as_deref(), &m, &r, training, want_x))
            })???;
            (dx.map(|v| Array::from_vec(v, shape)).transpose()?, Array::from_vec(dw, &[channels])?, Array::from_vec(db, &[channels])?)
        }};
    }
    Ok(match x.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}
