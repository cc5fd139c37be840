//! Indexing ops of Tensor: index_select, gather, scatter/scatter_add, index_add, masked_fill,
//! masked_select, nonzero and take, with their in-place forms.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::tensor::arith::Arg;
use crate::tensor::{Scalar, Tensor};

use super::arith::{other_strict, Other};
use super::convert::scalar_of;
use super::gil::run;
use super::tensor_object::PyTensor;

#[pymethods]
impl PyTensor {
    // ----- indexing ops -----------------------------------------------------------------------

    fn index_select(&self, py: Python<'_>, dim: i64, index: &PyTensor) -> PyResult<PyTensor> {
        let (t, i) = (&self.tensor(), &index.tensor());
        Ok(PyTensor::wrap(run(py, i.numel(), || t.index_select(dim, i))?))
    }

    fn gather(&self, py: Python<'_>, dim: i64, index: &PyTensor) -> PyResult<PyTensor> {
        let (t, i) = (&self.tensor(), &index.tensor());
        Ok(PyTensor::wrap(run(py, i.numel(), || t.gather(dim, i))?))
    }

    #[pyo3(signature = (dim, index, src=None, *, value=None, reduce=None))]
    fn scatter(
        &self,
        py: Python<'_>,
        dim: i64,
        index: &PyTensor,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.scatter_impl(py, dim, index, src.or(value), reduce)?))
    }

    #[pyo3(signature = (dim, index, src=None, *, value=None, reduce=None))]
    fn scatter_<'py>(
        slf: &Bound<'py, Self>,
        dim: i64,
        index: &PyTensor,
        src: Option<&Bound<'py, PyAny>>,
        value: Option<&Bound<'py, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let r = me.scatter_impl(slf.py(), dim, index, src.or(value), reduce)?;
        me.tensor().assign_(&r)?;
        Ok(slf.clone())
    }

    fn scatter_add(&self, py: Python<'_>, dim: i64, index: &PyTensor, src: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.scatter_impl(py, dim, index, Some(src), Some("add"))?))
    }

    fn scatter_add_<'py>(slf: &Bound<'py, Self>, dim: i64, index: &PyTensor, src: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let r = me.scatter_impl(slf.py(), dim, index, Some(src), Some("add"))?;
        me.tensor().assign_(&r)?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add(&self, dim: i64, index: &PyTensor, source: &PyTensor, alpha: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let a = alpha.and_then(scalar_of).unwrap_or(Scalar::Int(1));
        Ok(PyTensor::wrap(self.tensor().index_add(dim, &index.tensor(), &source.tensor(), a)?))
    }

    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add_<'py>(
        slf: &Bound<'py, Self>,
        dim: i64,
        index: &PyTensor,
        source: &PyTensor,
        alpha: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let a = alpha.and_then(scalar_of).unwrap_or(Scalar::Int(1));
        let me = slf.get();
        let r = me.tensor().index_add(dim, &index.tensor(), &source.tensor(), a)?;
        me.tensor().assign_(&r)?;
        Ok(slf.clone())
    }

    fn masked_fill(&self, py: Python<'_>, mask: &PyTensor, value: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.masked_fill_impl(py, mask, value)?))
    }

    fn masked_fill_<'py>(slf: &Bound<'py, Self>, mask: &PyTensor, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let (t, m) = (&slf.get().tensor(), &mask.tensor());
        let v = other_strict(value)?;
        run(slf.py(), t.numel(), || t.masked_fill_(m, v.arg()))?;
        Ok(slf.clone())
    }

    fn masked_select(&self, mask: &PyTensor) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().masked_select(&mask.tensor())?))
    }

    #[pyo3(signature = (*, as_tuple=false))]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        let nz = self.tensor().nonzero()?;
        if as_tuple {
            let cols = (0..self.tensor().ndim().max(1))
                .map(|k| if self.tensor().ndim() == 0 { nz.reshape(&[-1]) } else { nz.select(1, k as i64) })
                .collect::<crate::Result<Vec<_>>>()?;
            return Ok(super::tensor_object::tensors_tuple(py, cols)?.into_any());
        }
        Ok(Py::new(py, PyTensor::wrap(nz))?.into_any())
    }
    fn take(&self, py: Python<'_>, index: &PyTensor) -> PyResult<PyTensor> {
        let (t, i) = (&self.tensor(), &index.tensor());
        Ok(PyTensor::wrap(run(py, i.numel(), || t.take(i))?))
    }
}

impl PyTensor {
    fn scatter_impl(
        &self,
        py: Python<'_>,
        dim: i64,
        index: &PyTensor,
        src: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<Tensor> {
        let add = match reduce {
            None => false,
            Some("add") => true,
            Some(r) => return Err(PyRuntimeError::new_err(format!("reduce argument must be either add or multiply, got {r}"))),
        };
        let src = src.ok_or_else(|| PyTypeError::new_err("scatter() missing required argument 'src' or 'value'"))?;
        let (t, i) = (&self.tensor(), &index.tensor());
        let s = other_strict(src)?;
        Ok(run(py, i.numel(), || match &s {
            Other::T(x) => t.scatter(dim, i, Arg::T(x), add),
            Other::S(v) => t.scatter(dim, i, Arg::S(*v), add),
        })?)
    }

    fn masked_fill_impl(&self, py: Python<'_>, mask: &PyTensor, value: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        let (t, m) = (&self.tensor(), &mask.tensor());
        let v = other_strict(value)?;
        Ok(run(py, t.numel(), || t.masked_fill(m, v.arg()))?)
    }
}
