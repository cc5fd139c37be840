//! The one place core errors become Python exceptions, with PyTorch's exception classes.

use pyo3::exceptions::{PyAssertionError, PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};

use crate::error::{Error, ErrorKind};

/// Out-of-range indices raise IndexError; where PyTorch raises RuntimeError for the same fault
/// (gather, scatter) the class derives from both, so either `except` catches it.
fn index_out_of_range_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    TYPE.get_or_try_init(py, || {
        let bases = PyTuple::new(py, [py.get_type::<PyIndexError>(), py.get_type::<PyRuntimeError>()])?;
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("__module__", "rstorch")?;
        let t = py.get_type::<PyType>().call1(("IndexOutOfRangeError", bases, dict))?;
        Ok::<_, PyErr>(t.cast_into::<PyType>()?.unbind())
    })
    .map(|t| t.bind(py))
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        let msg = e.to_string();
        match (&e, e.kind()) {
            (Error::IndexOutOfRange { .. }, _) => Python::attach(|py| match index_out_of_range_type(py) {
                Ok(t) => PyErr::from_type(t.clone(), msg),
                Err(err) => err,
            }),
            (_, ErrorKind::Index) => PyIndexError::new_err(msg),
            (_, ErrorKind::Type) => PyTypeError::new_err(msg),
            (_, ErrorKind::Value) => PyValueError::new_err(msg),
            (_, ErrorKind::NotImplemented) => PyNotImplementedError::new_err(msg),
            (_, ErrorKind::Assertion) => PyAssertionError::new_err(msg),
            (_, ErrorKind::Runtime) => PyRuntimeError::new_err(msg),
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("IndexOutOfRangeError", index_out_of_range_type(m.py())?)
}
