//! The bindings of the losses, distance, lookup, affine, group-norm, dropout and attention ops
//! of `rstorch.nn.functional` (`crate::ops::nn`). The Python functions map PyTorch's deprecated
//! arguments and call these; the checks and the ops themselves are the core's, and a
//! `reduction` string becomes the typed `Reduction` here.

use pyo3::prelude::*;

use crate::ops::nn::attention::{self, Attention};
use crate::ops::nn::embedding::{self, MaxNorm};
use crate::ops::nn::loss::{self, KlDivReduction};
use crate::ops::nn::{distance, dropout, linear, normalization};
use crate::ops::reduction::Reduction;
use crate::tensor::Tensor;

use super::gil::run;
use super::tensor_object::PyTensor;

fn tensor_of(t: Option<&PyTensor>) -> Option<Tensor> {
    t.map(PyTensor::tensor)
}

#[pyfunction]
fn _mse_loss(py: Python<'_>, input: &PyTensor, target: &PyTensor, weight: Option<&PyTensor>, reduction: &str) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y, w) = (&input.tensor(), &target.tensor(), tensor_of(weight));
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::mse_loss(x, y, w.as_ref(), reduction))?))
}

#[pyfunction]
fn _l1_loss(py: Python<'_>, input: &PyTensor, target: &PyTensor, weight: Option<&PyTensor>, reduction: &str) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y, w) = (&input.tensor(), &target.tensor(), tensor_of(weight));
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::l1_loss(x, y, w.as_ref(), reduction))?))
}

#[pyfunction]
fn _smooth_l1_loss(py: Python<'_>, input: &PyTensor, target: &PyTensor, reduction: &str, beta: f64) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y) = (&input.tensor(), &target.tensor());
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::smooth_l1_loss(x, y, reduction, beta))?))
}

#[pyfunction]
fn _huber_loss(
    py: Python<'_>,
    input: &PyTensor,
    target: &PyTensor,
    reduction: &str,
    delta: f64,
    weight: Option<&PyTensor>,
) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y, w) = (&input.tensor(), &target.tensor(), tensor_of(weight));
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::huber_loss(x, y, reduction, delta, w.as_ref()))?))
}

#[pyfunction]
fn _binary_cross_entropy(
    py: Python<'_>,
    input: &PyTensor,
    target: &PyTensor,
    weight: Option<&PyTensor>,
    reduction: &str,
) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y, w) = (&input.tensor(), &target.tensor(), tensor_of(weight));
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::binary_cross_entropy(x, y, w.as_ref(), reduction))?))
}

#[pyfunction]
fn _binary_cross_entropy_with_logits(
    py: Python<'_>,
    input: &PyTensor,
    target: &PyTensor,
    weight: Option<&PyTensor>,
    pos_weight: Option<&PyTensor>,
    reduction: &str,
) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y, w, p) = (&input.tensor(), &target.tensor(), tensor_of(weight), tensor_of(pos_weight));
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::binary_cross_entropy_with_logits(x, y, w.as_ref(), p.as_ref(), reduction))?))
}

#[pyfunction]
fn _cross_entropy(
    py: Python<'_>,
    input: &PyTensor,
    target: &PyTensor,
    weight: Option<&PyTensor>,
    ignore_index: i64,
    reduction: &str,
    label_smoothing: f64,
) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, y, w) = (&input.tensor(), &target.tensor(), tensor_of(weight));
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::cross_entropy(x, y, w.as_ref(), ignore_index, reduction, label_smoothing))?))
}

#[pyfunction]
fn _kl_div(py: Python<'_>, input: &PyTensor, target: &PyTensor, reduction: &str, log_target: bool) -> PyResult<PyTensor> {
    let reduction = KlDivReduction::parse(reduction)?;
    let (x, y) = (&input.tensor(), &target.tensor());
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::kl_div(x, y, reduction, log_target))?))
}

#[pyfunction]
fn _pairwise_distance(py: Python<'_>, x1: &PyTensor, x2: &PyTensor, p: f64, eps: f64, keepdim: bool) -> PyResult<PyTensor> {
    let (a, b) = (&x1.tensor(), &x2.tensor());
    Ok(PyTensor::wrap(run(py, a.numel().max(b.numel()), || distance::pairwise_distance(a, b, p, eps, keepdim))?))
}

/// `F.embedding`; `max_norm` None leaves the weight as it is.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _embedding(
    py: Python<'_>,
    input: &PyTensor,
    weight: &PyTensor,
    padding_idx: Option<i64>,
    max_norm: Option<f64>,
    norm_type: f64,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> PyResult<PyTensor> {
    let (i, w) = (&input.tensor(), &weight.tensor());
    let max_norm = max_norm.map(|max_norm| MaxNorm { max_norm, norm_type });
    Ok(PyTensor::wrap(run(py, i.numel(), || embedding::embedding(i, w, padding_idx, max_norm, scale_grad_by_freq, sparse))?))
}

#[pyfunction]
fn _linear(py: Python<'_>, input: &PyTensor, weight: &PyTensor, bias: Option<&PyTensor>) -> PyResult<PyTensor> {
    let (x, w, b) = (&input.tensor(), &weight.tensor(), tensor_of(bias));
    Ok(PyTensor::wrap(run(py, x.numel() * w.numel(), || linear::linear(x, w, b.as_ref()))?))
}

#[pyfunction]
fn _bilinear(py: Python<'_>, input1: &PyTensor, input2: &PyTensor, weight: &PyTensor, bias: Option<&PyTensor>) -> PyResult<PyTensor> {
    let (a, b, w, bias) = (&input1.tensor(), &input2.tensor(), &weight.tensor(), tensor_of(bias));
    Ok(PyTensor::wrap(run(py, a.numel() * w.numel(), || linear::bilinear(a, b, w, bias.as_ref()))?))
}

#[pyfunction]
fn _group_norm(
    py: Python<'_>,
    input: &PyTensor,
    num_groups: i64,
    weight: Option<&PyTensor>,
    bias: Option<&PyTensor>,
    eps: f64,
) -> PyResult<PyTensor> {
    let (x, w, b) = (&input.tensor(), tensor_of(weight), tensor_of(bias));
    Ok(PyTensor::wrap(run(py, x.numel(), || normalization::group_norm(x, num_groups, w.as_ref(), b.as_ref(), eps))?))
}

/// A dropout's result as Python sees it: `input`'s own object where the op returned `input`
/// (outside training, `p` 0, in place).
fn same_or_new(py: Python<'_>, input: &Bound<'_, PyTensor>, out: Tensor) -> PyResult<Py<PyAny>> {
    if out.same(&input.get().tensor()) {
        return Ok(input.clone().into_any().unbind());
    }
    Ok(Py::new(py, PyTensor::wrap(out))?.into_any())
}

#[pyfunction]
fn _dropout(py: Python<'_>, input: &Bound<'_, PyTensor>, p: f64, training: bool, inplace: bool) -> PyResult<Py<PyAny>> {
    let x = &input.get().tensor();
    let out = run(py, x.numel(), || dropout::dropout(x, p, training, inplace))?;
    same_or_new(py, input, out)
}

/// `F.dropout1d/2d/3d`: `spatial` dims after the channel, `name` for errors.
#[pyfunction]
fn _feature_dropout(
    py: Python<'_>,
    input: &Bound<'_, PyTensor>,
    p: f64,
    training: bool,
    inplace: bool,
    spatial: usize,
    name: &str,
) -> PyResult<Py<PyAny>> {
    let x = &input.get().tensor();
    let out = run(py, x.numel(), || dropout::feature_dropout(x, p, training, inplace, spatial, name))?;
    same_or_new(py, input, out)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _scaled_dot_product_attention(
    py: Python<'_>,
    query: &PyTensor,
    key: &PyTensor,
    value: &PyTensor,
    attn_mask: Option<&PyTensor>,
    dropout_p: f64,
    is_causal: bool,
    scale: Option<f64>,
    enable_gqa: bool,
) -> PyResult<PyTensor> {
    let (q, k, v, mask) = (&query.tensor(), &key.tensor(), &value.tensor(), tensor_of(attn_mask));
    let args = Attention { attn_mask: mask.as_ref(), dropout_p, is_causal, scale, enable_gqa };
    Ok(PyTensor::wrap(run(py, q.numel() * k.numel(), || attention::scaled_dot_product_attention(q, k, v, &args))?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_mse_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_l1_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_smooth_l1_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_huber_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_cross_entropy, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_cross_entropy_with_logits, m)?)?;
    m.add_function(wrap_pyfunction!(_cross_entropy, m)?)?;
    m.add_function(wrap_pyfunction!(_kl_div, m)?)?;
    m.add_function(wrap_pyfunction!(_pairwise_distance, m)?)?;
    m.add_function(wrap_pyfunction!(_embedding, m)?)?;
    m.add_function(wrap_pyfunction!(_linear, m)?)?;
    m.add_function(wrap_pyfunction!(_bilinear, m)?)?;
    m.add_function(wrap_pyfunction!(_group_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_dropout, m)?)?;
    m.add_function(wrap_pyfunction!(_feature_dropout, m)?)?;
    m.add_function(wrap_pyfunction!(_scaled_dot_product_attention, m)?)?;
    Ok(())
}
