//! The bindings of the spatial ops of `rstorch.nn.functional` (`crate::ops::nn`): padding,
//! average and adaptive pooling, and interpolation. The Python functions normalise their
//! arguments (an int for every axis, a default stride) and call these; the checks and the ops
//! themselves are the core's.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::ops::nn::pad;

use super::convert::scalar_of;
use super::tensor::{run, PyTensor};

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_pad, m)?)?;
    Ok(())
}
