//! The Python `Tensor` object's data: the core tensor it stands for, its identity (the one
//! Python object of a tensor) and tuples of new objects. Its methods live in `tensor.rs`; this
//! leaf lets the conversion, dtype and autograd bindings name the class without importing them.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::tensor::Tensor;

#[pyclass(name = "Tensor", module = "rstorch", subclass, frozen, dict, weakref)]
pub struct PyTensor {
    /// Behind a lock only so that `.data = t` can swap it; every op reads a clone.
    /// None only while Python builds an instance of a subclass: the object is zeroed memory the
    /// collector may already traverse (an all-zero PyTensor must be a valid one).
    /// `__traverse__`/`__clear__` (tensor.rs) read it directly: they must not wait on the lock.
    pub(super) cell: std::sync::RwLock<Option<Tensor>>,
    /// The Python object last handed out for `.grad`, so that `x.grad is x.grad` as in PyTorch.
    pub(crate) grad_object: std::sync::Mutex<Option<Py<PyTensor>>>,
    /// When this object is some tensor's `.grad`: that tensor (weakly), so that `.data = t` here
    /// moves its gradient too.
    pub(crate) grad_owner: std::sync::Mutex<Option<Py<pyo3::types::PyWeakrefReference>>>,
}

impl PyTensor {
    pub fn wrap(t: Tensor) -> PyTensor {
        PyTensor {
            cell: std::sync::RwLock::new(Some(t)),
            grad_object: std::sync::Mutex::new(None),
            grad_owner: std::sync::Mutex::new(None),
        }
    }

    /// The core tensor this object currently stands for (a cheap `Arc` clone).
    pub fn tensor(&self) -> Tensor {
        self.cell.read().unwrap_or_else(|e| e.into_inner()).clone().expect("a constructed tensor has contents")
    }

    /// Points this object at `t` (`x.data = t`).
    pub fn replace(&self, t: Tensor) {
        *self.cell.write().unwrap_or_else(|e| e.into_inner()) = Some(t);
    }
}

/// Remembers `obj` (weakly) as the Python object of its tensor: a leaf that requires grad,
/// whose `AccumulateGrad.variable` must give this object back.
pub(crate) fn remember_object(obj: &Bound<'_, PyTensor>) -> PyResult<()> {
    let weak = pyo3::types::PyWeakrefReference::new(obj.as_any())?.unbind();
    obj.get().tensor().set_front_object(std::sync::Arc::new(weak));
    Ok(())
}

/// The Python object of `t`: the one remembered for it while that lives, else a new one
/// (remembered in turn).
pub(crate) fn object_of(py: Python<'_>, t: Tensor) -> PyResult<Py<PyAny>> {
    use pyo3::types::PyWeakrefMethods;
    let known = t.front_object().and_then(|h| h.downcast_ref::<Py<pyo3::types::PyWeakrefReference>>().and_then(|w| w.bind(py).upgrade()));
    if let Some(obj) = known {
        if obj.cast::<PyTensor>().is_ok_and(|o| o.get().tensor().same(&t)) {
            return Ok(obj.unbind());
        }
    }
    let obj = Bound::new(py, PyTensor::wrap(t))?;
    remember_object(&obj)?;
    Ok(obj.into_any().unbind())
}

pub fn tensors_tuple(py: Python<'_>, parts: Vec<Tensor>) -> PyResult<Py<PyTuple>> {
    let objs = parts.into_iter().map(|t| Py::new(py, PyTensor::wrap(t))).collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, objs)?.unbind())
}
