//! The bindings of the spatial ops of `rstorch.nn.functional` (`crate::ops::nn`): padding,
//! average and adaptive pooling, and interpolation. The Python functions normalise their
//! arguments (an int for every axis, a default stride) and call these; the checks and the ops
//! themselves are the core's.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::ops::nn::{adaptive_max, avg_pool, pad, resize};

use super::convert::scalar_of;
use super::gil::run;
use super::tensor_object::PyTensor;

/// `F.pad`: `value` is a number (or None).
#[pyfunction]
#[pyo3(signature = (input, pad, mode="constant", value=None))]
fn _pad(py: Python<'_>, input: &PyTensor, pad: Vec<i64>, mode: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
    let value = match value.filter(|v| !v.is_none()) {
        None => None,
        Some(v) => Some(scalar_of(v).ok_or_else(|| {
            let got = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            PyTypeError::new_err(format!("pad(): argument 'value' must be float, not {got}"))
        })?),
    };
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || pad::pad(x, &pad, mode, value))?))
}

/// `F.avg_pool2d`; `stride` None is the kernel size.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _avg_pool2d(
    py: Python<'_>,
    input: &PyTensor,
    kernel_size: [i64; 2],
    stride: Option<[i64; 2]>,
    padding: [i64; 2],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> PyResult<PyTensor> {
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || {
        avg_pool::avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    })?))
}

/// `F.avg_pool1d`; `stride` None is the kernel size.
#[pyfunction]
fn _avg_pool1d(
    py: Python<'_>,
    input: &PyTensor,
    kernel_size: i64,
    stride: Option<i64>,
    padding: i64,
    ceil_mode: bool,
    count_include_pad: bool,
) -> PyResult<PyTensor> {
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || avg_pool::avg_pool1d(x, kernel_size, stride, padding, ceil_mode, count_include_pad))?))
}

/// `F.adaptive_avg_pool2d`: a None size keeps the input's.
#[pyfunction]
fn _adaptive_avg_pool2d(py: Python<'_>, input: &PyTensor, output_size: [Option<i64>; 2]) -> PyResult<PyTensor> {
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || avg_pool::adaptive_avg_pool2d(x, output_size))?))
}

#[pyfunction]
fn _adaptive_avg_pool1d(py: Python<'_>, input: &PyTensor, output_size: Option<i64>) -> PyResult<PyTensor> {
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || avg_pool::adaptive_avg_pool1d(x, output_size))?))
}

/// `F.adaptive_max_pool2d_with_indices`: (values, indices).
#[pyfunction]
fn _adaptive_max_pool2d(py: Python<'_>, input: &PyTensor, output_size: [Option<i64>; 2]) -> PyResult<(PyTensor, PyTensor)> {
    let x = &input.tensor();
    let (v, i) = run(py, x.numel(), || adaptive_max::adaptive_max_pool2d(x, output_size))?;
    Ok((PyTensor::wrap(v), PyTensor::wrap(i)))
}

#[pyfunction]
fn _adaptive_max_pool1d(py: Python<'_>, input: &PyTensor, output_size: Option<i64>) -> PyResult<(PyTensor, PyTensor)> {
    let x = &input.tensor();
    let (v, i) = run(py, x.numel(), || adaptive_max::adaptive_max_pool1d(x, output_size))?;
    Ok((PyTensor::wrap(v), PyTensor::wrap(i)))
}

/// `F.interpolate`: `size` and `scale_factor` hold one value per spatial dim (or are None).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _interpolate(
    py: Python<'_>,
    input: &PyTensor,
    size: Option<Vec<i64>>,
    scale_factor: Option<Vec<f64>>,
    mode: &str,
    align_corners: Option<bool>,
    recompute_scale_factor: Option<bool>,
    antialias: bool,
) -> PyResult<PyTensor> {
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || {
        resize::interpolate(x, size.as_deref(), scale_factor.as_deref(), mode, align_corners, recompute_scale_factor, antialias)
    })?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_pad, m)?)?;
    m.add_function(wrap_pyfunction!(_avg_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_avg_pool1d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_avg_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_avg_pool1d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_max_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_max_pool1d, m)?)?;
    m.add_function(wrap_pyfunction!(_interpolate, m)?)?;
    Ok(())
}
