//! `Tensor.X` for every composite op declared in `crate::ops::composite`, and
//! `_C._composite_ops()`, the names the Python layer turns into `torch.X`.

use pyo3::prelude::*;

use crate::ops::composite::{composite_op_table, PY_METHODS};

use super::tensor::{run, PyTensor};

macro_rules! bind_composite_ops {
    ($($(#[$doc:meta])* $name:ident($a:ident, $b:ident) => $node:literal $body:block)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                $(#[$doc])*
                fn $name(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
                    let (t, o) = (&self.tensor(), &other.tensor());
                    Ok(PyTensor::wrap(run(py, t.numel().max(o.numel()), || t.$name(o))?))
                }
            )*
        }
    };
}

composite_op_table!(bind_composite_ops);

/// The declared composite ops' Python names (bound as `Tensor.X` and `torch.X`).
#[pyfunction]
fn _composite_ops() -> Vec<&'static str> {
    PY_METHODS.to_vec()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_composite_ops, m)?)
}
