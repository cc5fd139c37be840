//! The kernels behind `rstorch.nn.functional`: convolutions, max pooling, the norms and nll_loss.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::tensor::convolution::ConvPadding;
use crate::tensor::loss::Reduction;

use super::convert::{index_int, int_list};
use super::gil::run;
use super::tensor_object::PyTensor;

/// A convolution's per-axis argument as PyTorch's bindings take it: an int stands for one value
/// per axis of the function (`spatial`), a sequence is passed on as given for the core to check.
fn per_axis_arg(obj: &Bound<'_, PyAny>, spatial: usize) -> PyResult<Vec<i64>> {
    if obj.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(vec![index_int(obj)?; spatial]);
    }
    int_list(obj)
}

/// `conv1d` / `conv2d` / `conv3d` (`spatial` 1, 2 or 3): `padding` is sizes or `'valid'` / `'same'`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _convolution(
    py: Python<'_>,
    input: &PyTensor,
    weight: &PyTensor,
    bias: Option<&PyTensor>,
    spatial: usize,
    stride: &Bound<'_, PyAny>,
    padding: &Bound<'_, PyAny>,
    dilation: &Bound<'_, PyAny>,
    groups: i64,
) -> PyResult<PyTensor> {
    let padding = match padding.extract::<String>() {
        Ok(mode) => ConvPadding::from_mode(&mode)?,
        Err(_) => ConvPadding::Sizes(per_axis_arg(padding, spatial)?),
    };
    let (stride, dilation) = (per_axis_arg(stride, spatial)?, per_axis_arg(dilation, spatial)?);
    let (x, w, b) = (&input.tensor(), &weight.tensor(), bias.map(|b| b.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel() * w.numel(), || x.convolution(w, b.as_ref(), spatial, &stride, &padding, &dilation, groups))?))
}

/// `conv_transpose1d` / `conv_transpose2d` / `conv_transpose3d` (`spatial` 1, 2 or 3).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _conv_transpose(
    py: Python<'_>,
    input: &PyTensor,
    weight: &PyTensor,
    bias: Option<&PyTensor>,
    spatial: usize,
    stride: &Bound<'_, PyAny>,
    padding: &Bound<'_, PyAny>,
    output_padding: &Bound<'_, PyAny>,
    groups: i64,
    dilation: &Bound<'_, PyAny>,
) -> PyResult<PyTensor> {
    if padding.is_instance_of::<pyo3::types::PyString>() {
        return Err(PyTypeError::new_err(format!("conv_transpose{spatial}d(): argument 'padding' must be tuple of ints, not str")));
    }
    let (stride, padding) = (per_axis_arg(stride, spatial)?, per_axis_arg(padding, spatial)?);
    let (output_padding, dilation) = (per_axis_arg(output_padding, spatial)?, per_axis_arg(dilation, spatial)?);
    let (x, w, b) = (&input.tensor(), &weight.tensor(), bias.map(|b| b.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel() * w.numel(), || {
        x.conv_transpose(w, b.as_ref(), spatial, &stride, &padding, &output_padding, groups, &dilation)
    })?))
}

/// `F.max_pool1d`/`F.max_pool2d` with indices: one value per spatial dim in each list; the
/// checks (rank, window, padding) and the 1-d form are the core's (`ops::nn::max_pool`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _max_pool_with_indices(
    py: Python<'_>,
    input: &PyTensor,
    spatial: usize,
    kernel_size: Vec<i64>,
    stride: Option<Vec<i64>>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    ceil_mode: bool,
) -> PyResult<(PyTensor, PyTensor)> {
    let x = &input.tensor();
    let (v, i) = run(py, x.numel(), || {
        crate::ops::nn::max_pool::max_pool_with_indices(x, spatial, &kernel_size, stride.as_deref(), &padding, &dilation, ceil_mode)
    })?;
    Ok((PyTensor::wrap(v), PyTensor::wrap(i)))
}

/// `layer_norm`: `normalized_shape` is a sequence of ints, as PyTorch's binding takes it.
#[pyfunction]
fn _layer_norm(
    py: Python<'_>,
    input: &PyTensor,
    normalized_shape: &Bound<'_, PyAny>,
    weight: Option<&PyTensor>,
    bias: Option<&PyTensor>,
    eps: f64,
) -> PyResult<PyTensor> {
    if normalized_shape.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"));
    }
    let sizes = int_list(normalized_shape)?;
    let normalized: Vec<usize> = sizes
        .iter()
        .map(|&s| usize::try_from(s))
        .collect::<Result<_, _>>()
        .map_err(|_| crate::error::Error::Runtime(format!("layer_norm: normalized_shape holds a negative size: {sizes:?}")))?;
    let (x, w, b) = (&input.tensor(), weight.map(|w| w.tensor()), bias.map(|b| b.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel(), || x.layer_norm(&normalized, w.as_ref(), b.as_ref(), eps))?))
}

/// `batch_norm`, with the running estimates' update.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _batch_norm(
    py: Python<'_>,
    input: &PyTensor,
    running_mean: Option<&PyTensor>,
    running_var: Option<&PyTensor>,
    weight: Option<&PyTensor>,
    bias: Option<&PyTensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> PyResult<PyTensor> {
    let (x, w, b) = (&input.tensor(), weight.map(|w| w.tensor()), bias.map(|b| b.tensor()));
    let (rm, rv) = (running_mean.map(|t| t.tensor()), running_var.map(|t| t.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel(), || x.batch_norm(rm.as_ref(), rv.as_ref(), w.as_ref(), b.as_ref(), training, momentum, eps))?))
}

/// `nll_loss`: the checks, the fused kernel where it applies and the composed loss elsewhere.
#[pyfunction]
fn _nll_loss(
    py: Python<'_>,
    input: &PyTensor,
    target: &PyTensor,
    weight: Option<&PyTensor>,
    ignore_index: i64,
    reduction: &str,
) -> PyResult<PyTensor> {
    let reduction = Reduction::parse(reduction)?;
    let (x, t, w) = (&input.tensor(), &target.tensor(), weight.map(|w| w.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel(), || x.nll_loss(t, w.as_ref(), ignore_index, reduction))?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_nll_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_layer_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_batch_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_convolution, m)?)?;
    m.add_function(wrap_pyfunction!(_conv_transpose, m)?)?;
    m.add_function(wrap_pyfunction!(_max_pool_with_indices, m)?)?;
    Ok(())
}
