//! The byte-level half of `rstorch.save` / `rstorch.load`: safetensors files and raw checkpoint
//! storages. The object structure around the tensors is Python's (`rstorch/serialization.py`).

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::serialize;

use super::dtype::extract_dtype;
use super::tensor_object::PyTensor;

/// `{name: tensor}` and string metadata to the bytes of one safetensors file.
#[pyfunction]
fn _safetensors_save<'py>(
    py: Python<'py>,
    tensors: Vec<(String, PyRef<'py, PyTensor>)>,
    metadata: HashMap<String, String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let tensors: Vec<_> = tensors.into_iter().map(|(k, t)| (k, t.tensor())).collect();
    let bytes = py.detach(|| serialize::safetensors_save(&tensors, metadata))?;
    Ok(PyBytes::new(py, &bytes))
}

/// The tensors of a safetensors file as a dict in the order of their data, and its metadata.
#[pyfunction]
fn _safetensors_load<'py>(py: Python<'py>, data: &[u8]) -> PyResult<(Bound<'py, PyDict>, HashMap<String, String>)> {
    let (tensors, metadata) = py.detach(|| serialize::safetensors_load(data))?;
    let out = PyDict::new(py);
    for (name, t) in tensors {
        out.set_item(name, Py::new(py, PyTensor::wrap(t))?)?;
    }
    Ok((out, metadata))
}

/// A 1-D tensor over the bytes of one checkpoint storage read as `dtype`.
#[pyfunction]
fn _storage_from_bytes(py: Python<'_>, data: &[u8], dtype: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let dtype = extract_dtype(dtype)?;
    Ok(PyTensor::wrap(py.detach(|| serialize::tensor_from_bytes(data, dtype))?))
}

/// A view of `base`'s storage with the sizes, strides and offset a checkpoint declares, refused
/// when it would reach outside the storage.
#[pyfunction]
fn _strided_view(base: PyRef<'_, PyTensor>, size: Vec<usize>, stride: Vec<usize>, storage_offset: usize) -> PyResult<PyTensor> {
    Ok(PyTensor::wrap(serialize::strided_view(&base.tensor(), &size, &stride, storage_offset)?))
}

/// The elements of a tensor in row-major order as bytes.
#[pyfunction]
fn _tensor_bytes<'py>(py: Python<'py>, t: PyRef<'py, PyTensor>) -> PyResult<Bound<'py, PyBytes>> {
    let t = t.tensor();
    let bytes = py.detach(|| serialize::tensor_bytes(&t))?;
    Ok(PyBytes::new(py, &bytes))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_safetensors_save, m)?)?;
    m.add_function(wrap_pyfunction!(_safetensors_load, m)?)?;
    m.add_function(wrap_pyfunction!(_storage_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(_strided_view, m)?)?;
    m.add_function(wrap_pyfunction!(_tensor_bytes, m)?)?;
    Ok(())
}
