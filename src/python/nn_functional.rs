//! The bindings of the loss functions of
//! `rstorch.nn.functional` (`crate::ops::nn`). The Python functions map PyTorch's deprecated
//! arguments and call these; the checks and the ops themselves are the core's, and a
//! `reduction` string becomes the typed `Reduction` here.

use pyo3::prelude::*;

use crate::ops::nn::loss::{self, KlDivReduction};
use crate::ops::reduction::Reduction;
use crate::tensor::Tensor;

use super::tensor::{run, PyTensor};

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
fn _kl_div(py: Python<'_>, input: &PyTensor, target: &PyTensor, reduction: &str, log_target: bool) -> PyResult<PyTensor> {
    let reduction = KlDivReduction::parse(reduction)?;
    let (x, y) = (&input.tensor(), &target.tensor());
    Ok(PyTensor::wrap(run(py, x.numel(), || loss::kl_div(x, y, reduction, log_target))?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_mse_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_l1_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_smooth_l1_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_huber_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_cross_entropy, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_cross_entropy_with_logits, m)?)?;
    m.add_function(wrap_pyfunction!(_kl_div, m)?)?;
    Ok(())
}
