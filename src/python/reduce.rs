//! Reductions and orderings of Tensor: sum, prod, mean, all/any, amax/amin, max/min (with
//! indices), argmax/argmin, var/std, norm, logsumexp, softmax/log_softmax, cumsum/cumprod,
//! sort/argsort, topk, median and kthvalue, with their `dim`/`keepdim`/`dtype` arguments.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::tensor::{BinaryOp, ReduceOp, Tensor};

use super::convert::dims_arg;
use super::dtype::extract_opt_dtype;
use super::gil::run;
use super::tensor_object::PyTensor;

/// Converts `max`/`min`/`sort`/`topk` results to PyTorch's named tuples.
fn return_type(py: Python<'_>, name: &str, values: Tensor, indices: Tensor) -> PyResult<Py<PyAny>> {
    let cls = py.import("rstorch.return_types")?.getattr(name)?;
    Ok(cls.call1((PyTensor::wrap(values), PyTensor::wrap(indices)))?.unbind())
}

#[pymethods]
impl PyTensor {
    // ----- reductions -------------------------------------------------------------------------

    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn sum(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        self.reduce_with(py, ReduceOp::Sum, dim, keepdim, dtype)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn prod(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        self.reduce_with(py, ReduceOp::Prod, dim, keepdim, dtype)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn mean(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let t = match extract_opt_dtype(dtype)? {
            Some(d) if !d.is_floating_point() => {
                return Err(crate::Error::NotImplemented(format!(
                    "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {}",
                    d.title_name()
                ))
                .into())
            }
            Some(d) => self.tensor().to_dtype(d)?,
            None => self.tensor().clone(),
        };
        let dims = dims_arg(dim)?;
        Ok(PyTensor::wrap(run(py, t.numel(), || t.mean(dims.as_deref(), keepdim))?))
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn all(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        self.reduce_with(py, ReduceOp::All, dim, keepdim, None)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn any(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        self.reduce_with(py, ReduceOp::Any, dim, keepdim, None)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amax(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        self.reduce_with(py, ReduceOp::Max, dim, keepdim, None)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amin(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        self.reduce_with(py, ReduceOp::Min, dim, keepdim, None)
    }

    /// `max()`, `max(dim, keepdim)` (values and indices) or `max(other)` (elementwise).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn max(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Py<PyAny>> {
        self.max_min(py, dim, keepdim, true)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn min(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Py<PyAny>> {
        self.max_min(py, dim, keepdim, false)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmax(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<PyTensor> {
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.argmax_min(dim, keepdim, true))?))
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmin(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<PyTensor> {
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.argmax_min(dim, keepdim, false))?))
    }

    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn var(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> PyResult<PyTensor> {
        let (dims, c) = var_args(dim, unbiased, correction)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.var(dims.as_deref(), c, keepdim))?))
    }

    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn std(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> PyResult<PyTensor> {
        let (dims, c) = var_args(dim, unbiased, correction)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.std(dims.as_deref(), c, keepdim))?))
    }

    #[pyo3(signature = (p=None, dim=None, keepdim=false, dtype=None))]
    fn norm(
        &self,
        py: Python<'_>,
        p: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let p = match p {
            None => 2.0,
            Some(v) if v.is_none() => 2.0,
            Some(v) => match v.extract::<String>() {
                Ok(s) if s == "fro" => 2.0,
                Ok(s) => return Err(PyRuntimeError::new_err(format!("norm: unsupported p '{s}'"))),
                Err(_) => v.extract::<f64>()?,
            },
        };
        let t = match extract_opt_dtype(dtype)? {
            Some(d) => self.tensor().to_dtype(d)?,
            None => self.tensor().clone(),
        };
        let dims = dims_arg(dim)?;
        Ok(PyTensor::wrap(run(py, t.numel(), || t.norm(p, dims.as_deref(), keepdim))?))
    }

    #[pyo3(signature = (dim, keepdim=false))]
    fn logsumexp(&self, py: Python<'_>, dim: &Bound<'_, PyAny>, keepdim: bool) -> PyResult<PyTensor> {
        let dims = super::convert::int_list(dim)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.logsumexp(&dims, keepdim))?))
    }

    #[pyo3(signature = (dim, dtype=None))]
    fn softmax(&self, py: Python<'_>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let t = self.cast_opt(dtype)?;
        Ok(PyTensor::wrap(run(py, t.numel(), || t.softmax(dim))?))
    }

    #[pyo3(signature = (dim, dtype=None))]
    fn log_softmax(&self, py: Python<'_>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let t = self.cast_opt(dtype)?;
        Ok(PyTensor::wrap(run(py, t.numel(), || t.log_softmax(dim))?))
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(&self, py: Python<'_>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let want = extract_opt_dtype(dtype)?;
        let t = self.cast_opt(dtype)?;
        // A dtype given is the result's (integers otherwise accumulate into int64).
        Ok(PyTensor::wrap(run(py, t.numel(), || {
            let r = t.cumulative(dim, false)?;
            match want {
                Some(d) => r.to_dtype(d),
                None => Ok(r),
            }
        })?))
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(&self, py: Python<'_>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let want = extract_opt_dtype(dtype)?;
        let t = self.cast_opt(dtype)?;
        // A dtype given is the result's (integers otherwise accumulate into int64).
        Ok(PyTensor::wrap(run(py, t.numel(), || {
            let r = t.cumulative(dim, true)?;
            match want {
                Some(d) => r.to_dtype(d),
                None => Ok(r),
            }
        })?))
    }
    #[pyo3(signature = (dim=-1, descending=false, stable=false))]
    fn sort(&self, py: Python<'_>, dim: i64, descending: bool, stable: bool) -> PyResult<Py<PyAny>> {
        let _ = stable;
        let t = &self.tensor();
        let (v, i) = run(py, t.numel(), || t.sort(dim, descending))?;
        return_type(py, "sort", v, i)
    }

    #[pyo3(signature = (dim=-1, descending=false, stable=false))]
    fn argsort(&self, py: Python<'_>, dim: i64, descending: bool, stable: bool) -> PyResult<PyTensor> {
        let _ = stable;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.sort(dim, descending))?.1))
    }

    #[pyo3(signature = (k, dim=-1, largest=true, sorted=true))]
    fn topk(&self, py: Python<'_>, k: i64, dim: i64, largest: bool, sorted: bool) -> PyResult<Py<PyAny>> {
        let _ = sorted;
        let t = &self.tensor();
        let (v, i) = run(py, t.numel(), || t.topk(k, dim, largest))?;
        return_type(py, "topk", v, i)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn median(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Py<PyAny>> {
        let t = &self.tensor();
        match dim {
            None => Ok(Py::new(py, PyTensor::wrap(run(py, t.numel(), || t.median())?))?.into_any()),
            Some(d) => {
                let d = super::convert::index_int(d)?;
                let (v, i) = run(py, t.numel(), || t.median_dim(d, keepdim))?;
                return_type(py, "median", v, i)
            }
        }
    }

    #[pyo3(signature = (k, dim=-1, keepdim=false))]
    fn kthvalue(&self, py: Python<'_>, k: i64, dim: i64, keepdim: bool) -> PyResult<Py<PyAny>> {
        let t = &self.tensor();
        let (v, i) = run(py, t.numel(), || t.kthvalue(k, dim, keepdim))?;
        return_type(py, "kthvalue", v, i)
    }
}

fn var_args(dim: Option<&Bound<'_, PyAny>>, unbiased: Option<bool>, correction: Option<f64>) -> PyResult<(Option<Vec<i64>>, f64)> {
    // `var(True)` is the old positional `unbiased`.
    if let Some(d) = dim {
        if let Ok(b) = d.cast::<pyo3::types::PyBool>() {
            return Ok((None, if b.is_true() { 1.0 } else { 0.0 }));
        }
    }
    let c = match (unbiased, correction) {
        (Some(_), Some(_)) => return Err(PyTypeError::new_err("var(): cannot give both unbiased and correction")),
        (Some(u), None) => {
            if u {
                1.0
            } else {
                0.0
            }
        }
        (None, Some(c)) => c,
        (None, None) => 1.0,
    };
    Ok((dims_arg(dim)?, c))
}

impl PyTensor {
    fn cast_opt(&self, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(match extract_opt_dtype(dtype)? {
            Some(d) => self.tensor().to_dtype(d)?,
            None => self.tensor().clone(),
        })
    }

    fn reduce_with(
        &self,
        py: Python<'_>,
        op: ReduceOp,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let want = extract_opt_dtype(dtype)?;
        let t = self.cast_opt(dtype)?;
        let dims = dims_arg(dim)?;
        // A dtype given is the result's dtype (sums of int8 stay int8 and wrap, as in PyTorch);
        // the wider accumulator the reduction uses rounds to it the same way.
        Ok(PyTensor::wrap(run(py, t.numel(), || {
            let r = t.reduce(op, dims.as_deref(), keepdim)?;
            match want {
                Some(d) => r.to_dtype(d),
                None => Ok(r),
            }
        })?))
    }

    fn max_min(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool, max: bool) -> PyResult<Py<PyAny>> {
        let t = &self.tensor();
        match dim {
            None => Ok(Py::new(py, PyTensor::wrap(run(py, t.numel(), || t.extremum_all(max))?))?.into_any()),
            Some(d) if d.cast::<PyTensor>().is_ok() => {
                let op = if max { BinaryOp::Maximum } else { BinaryOp::Minimum };
                Ok(Py::new(py, self.method(py, op, d)?)?.into_any())
            }
            Some(d) => {
                let d = super::convert::index_int(d)?;
                let (v, i) = run(py, t.numel(), || t.max_min_dim(d, keepdim, max))?;
                return_type(py, if max { "max" } else { "min" }, v, i)
            }
        }
    }
}
