//! Bindings of the float classification ops: isnan, isinf, isposinf, isneginf, isfinite,
//! nan_to_num(_) and allclose (Tensor methods; `rstorch.isnan` etc. are these). isclose is a
//! composite op (`src/python/composite.rs`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::tensor::float_class::FloatClass;
use crate::tensor::Tensor;

use super::gil::run;
use super::tensor_object::PyTensor;

/// The `other` tensor of allclose; anything else is PyTorch's argument TypeError.
fn other_tensor(name: &str, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    match other.cast::<PyTensor>() {
        Ok(t) => Ok(t.get().tensor()),
        Err(_) => {
            Err(PyTypeError::new_err(format!("{name}(): argument 'other' (position 2) must be Tensor, not {}", other.get_type().name()?)))
        }
    }
}

impl PyTensor {
    fn class_of(&self, py: Python<'_>, class: FloatClass) -> PyResult<PyTensor> {
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.classify(class))?))
    }
}

#[pymethods]
impl PyTensor {
    fn isnan(&self, py: Python<'_>) -> PyResult<PyTensor> {
        self.class_of(py, FloatClass::Nan)
    }

    fn isinf(&self, py: Python<'_>) -> PyResult<PyTensor> {
        self.class_of(py, FloatClass::Inf)
    }

    fn isposinf(&self, py: Python<'_>) -> PyResult<PyTensor> {
        self.class_of(py, FloatClass::PosInf)
    }

    fn isneginf(&self, py: Python<'_>) -> PyResult<PyTensor> {
        self.class_of(py, FloatClass::NegInf)
    }

    fn isfinite(&self, py: Python<'_>) -> PyResult<PyTensor> {
        self.class_of(py, FloatClass::Finite)
    }

    #[pyo3(signature = (nan=None, posinf=None, neginf=None))]
    fn nan_to_num(&self, py: Python<'_>, nan: Option<f64>, posinf: Option<f64>, neginf: Option<f64>) -> PyResult<PyTensor> {
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.nan_to_num(nan, posinf, neginf))?))
    }

    #[pyo3(signature = (nan=None, posinf=None, neginf=None))]
    fn nan_to_num_<'py>(slf: &Bound<'py, Self>, nan: Option<f64>, posinf: Option<f64>, neginf: Option<f64>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let t = me.tensor();
        let r = run(slf.py(), t.numel(), || t.nan_to_num(nan, posinf, neginf))?;
        me.assign_result(slf.py(), &r)?;
        Ok(slf.clone())
    }

    /// Whether every element is close (a Python bool, as in PyTorch).
    #[pyo3(signature = (other, rtol=1e-05, atol=1e-08, equal_nan=false))]
    fn allclose(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rtol: f64, atol: f64, equal_nan: bool) -> PyResult<bool> {
        let (a, b) = (self.tensor(), other_tensor("allclose", other)?);
        Ok(run(py, a.numel().max(b.numel()), || -> crate::Result<bool> {
            let close = a.isclose(&b, rtol, atol, equal_nan)?;
            Ok(!close.unary(crate::tensor::UnaryOp::LogicalNot)?.any_true()?)
        })?)
    }
}
