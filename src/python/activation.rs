//! The bindings of the activations of `rstorch.nn.functional` that are not pointwise
//! (`crate::ops::nn::activation`: glu, prelu); the pointwise ones are `Tensor` methods declared
//! with the unary ops (`src/python/unary.rs`).

use pyo3::prelude::*;

use crate::ops::nn::activation;

use super::gil::run;
use super::tensor_object::PyTensor;

/// `F.glu`.
#[pyfunction]
#[pyo3(signature = (input, dim=-1))]
fn _glu(py: Python<'_>, input: &PyTensor, dim: i64) -> PyResult<PyTensor> {
    let x = &input.tensor();
    Ok(PyTensor::wrap(run(py, x.numel(), || activation::glu(x, dim))?))
}

/// `F.prelu`.
#[pyfunction]
fn _prelu(py: Python<'_>, input: &PyTensor, weight: &PyTensor) -> PyResult<PyTensor> {
    let (x, w) = (&input.tensor(), &weight.tensor());
    Ok(PyTensor::wrap(run(py, x.numel(), || activation::prelu(x, w))?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_glu, m)?)?;
    m.add_function(wrap_pyfunction!(_prelu, m)?)
}
