//! Products of Tensor: `@`, matmul, mm, bmm, mv, dot, inner, outer, addmm and trace.

use pyo3::prelude::*;

use crate::tensor::Scalar;

use super::convert::scalar_of;
use super::gil::run;
use super::tensor_object::PyTensor;

#[pymethods]
impl PyTensor {
    // ----- products -----------------------------------------------------------------------------

    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<PyTensor>() {
            Ok(o) => Ok(Py::new(py, self.matmul(py, o.get())?)?.into_any()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<PyTensor>() {
            Ok(o) => Ok(Py::new(py, o.get().matmul(py, self)?)?.into_any()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn trace(&self, py: Python<'_>) -> PyResult<PyTensor> {
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.trace())?))
    }

    fn matmul(&self, py: Python<'_>, other: &PyTensor) -> PyResult<PyTensor> {
        let (a, b) = (&self.tensor(), &other.tensor());
        Ok(PyTensor::wrap(run(py, a.numel() + b.numel(), || a.matmul(b))?))
    }

    fn mm(&self, py: Python<'_>, mat2: &PyTensor) -> PyResult<PyTensor> {
        let (a, b) = (&self.tensor(), &mat2.tensor());
        Ok(PyTensor::wrap(run(py, a.numel() + b.numel(), || a.mm(b))?))
    }

    fn bmm(&self, py: Python<'_>, mat2: &PyTensor) -> PyResult<PyTensor> {
        let (a, b) = (&self.tensor(), &mat2.tensor());
        Ok(PyTensor::wrap(run(py, a.numel() + b.numel(), || a.bmm(b))?))
    }

    fn mv(&self, py: Python<'_>, vec: &PyTensor) -> PyResult<PyTensor> {
        let (a, b) = (&self.tensor(), &vec.tensor());
        Ok(PyTensor::wrap(run(py, a.numel() + b.numel(), || a.mv(b))?))
    }

    fn dot(&self, other: &PyTensor) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().dot(&other.tensor())?))
    }

    fn inner(&self, py: Python<'_>, other: &PyTensor) -> PyResult<PyTensor> {
        let (a, b) = (&self.tensor(), &other.tensor());
        Ok(PyTensor::wrap(run(py, a.numel() + b.numel(), || a.inner(b))?))
    }

    fn outer(&self, other: &PyTensor) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().outer(&other.tensor())?))
    }

    #[pyo3(signature = (mat1, mat2, *, beta=None, alpha=None))]
    fn addmm(
        &self,
        py: Python<'_>,
        mat1: &PyTensor,
        mat2: &PyTensor,
        beta: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let beta = beta.and_then(scalar_of).unwrap_or(Scalar::Int(1));
        let alpha = alpha.and_then(scalar_of).unwrap_or(Scalar::Int(1));
        let (c, a, b) = (&self.tensor(), &mat1.tensor(), &mat2.tensor());
        Ok(PyTensor::wrap(run(py, a.numel() + b.numel(), || c.addmm(a, b, beta, alpha))?))
    }
}
