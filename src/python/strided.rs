//! `Tensor.as_strided` and `Tensor.set_`: the two methods that take a storage geometry from the
//! user. The checks are the core's (`Tensor::as_strided`, `Tensor::set_from`); this file reads
//! their arguments as PyTorch's parser does.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PySequence, PyString};

use super::tensor_object::PyTensor;

/// A `tuple of ints` argument (any sequence of integers, NumPy ints or one-element integer
/// tensors), with PyTorch's TypeErrors for anything else, int64 overflow included.
fn int_tuple(fname: &str, arg: &str, pos: usize, obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    let type_name = |o: &Bound<'_, PyAny>| o.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    let seq = match obj.cast::<PySequence>() {
        Ok(s) if !obj.is_instance_of::<PyString>() => s,
        _ => {
            return Err(PyTypeError::new_err(format!(
                "{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, not {}",
                type_name(obj)
            )))
        }
    };
    let mut out = Vec::new();
    for (i, item) in seq.try_iter()?.enumerate() {
        let item = item?;
        let not_int = || {
            PyTypeError::new_err(format!(
                "{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, but found element of type {} at pos {i}",
                type_name(&item)
            ))
        };
        if item.is_instance_of::<PyFloat>() {
            return Err(not_int());
        }
        let value = if item.is_instance_of::<PyInt>() { item.clone() } else { item.call_method0("__index__").map_err(|_| not_int())? };
        out.push(value.extract::<i64>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{fname}(): argument '{arg}' failed to unpack the object at pos {} with error \"Overflow when unpacking long long\"",
                i + 1
            ))
        })?);
    }
    Ok(out)
}

/// An `int` argument: a Python int (or `__index__`), overflow a TypeError as in PyTorch.
fn int_arg(fname: &str, arg: &str, pos: usize, obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    let wrong = || {
        PyTypeError::new_err(format!(
            "{fname}(): argument '{arg}' (position {pos}) must be int, not {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    };
    if obj.is_instance_of::<PyFloat>() {
        return Err(wrong());
    }
    let value = if obj.is_instance_of::<PyInt>() { obj.clone() } else { obj.call_method0("__index__").map_err(|_| wrong())? };
    value.extract::<i64>().map_err(|_| PyTypeError::new_err(format!("{fname}(): argument '{arg}' (position {pos}) overflows an int64")))
}

#[pymethods]
impl PyTensor {
    /// `as_strided(size, stride, storage_offset=None)`: a view of the tensor's storage with this
    /// geometry, checked to lie inside the storage.
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided(
        &self,
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        storage_offset: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let size = int_tuple("as_strided", "size", 1, size)?;
        let stride = int_tuple("as_strided", "stride", 2, stride)?;
        let offset = match storage_offset.filter(|o| !o.is_none()) {
            Some(o) => Some(int_arg("as_strided", "storage_offset", 3, o)?),
            None => None,
        };
        Ok(PyTensor::wrap(self.tensor().as_strided(&size, &stride, offset)?))
    }

    /// The in-place view ops (`t_`, `transpose_`, `squeeze_`, `unsqueeze_`, `swapdims_`,
    /// `as_strided_`) while autograd records: this tensor object becomes `view` (the same op's
    /// out-of-place view of it) together with its history, as PyTorch's in-place view ops rebase
    /// the tensor's grad_fn onto the view's (TBackward1, AsStridedBackward1, ...); `set_` has no
    /// derivative. Leaves that require grad are refused with PyTorch's in-place error. Returns self.
    fn _become_view_<'py>(slf: &Bound<'py, Self>, view: &PyTensor) -> PyResult<Bound<'py, Self>> {
        let this = slf.get();
        let (old, new) = (this.tensor(), view.tensor());
        if !new.shares_storage(&old) {
            return Err(PyTypeError::new_err("_become_view_: the tensor given is not a view of this one"));
        }
        old.check_inplace(&new)?;
        this.replace(new);
        Ok(slf.clone())
    }

    /// `set_()`, `set_(source)` and `set_(source, storage_offset, size, stride=())`: this tensor
    /// object now views `source`'s storage (with `source`'s geometry, or the one given; an
    /// empty `stride` means contiguous). Returns self.
    #[pyo3(signature = (source=None, storage_offset=None, size=None, stride=None))]
    fn set_<'py>(
        slf: &Bound<'py, Self>,
        source: Option<&Bound<'py, PyAny>>,
        storage_offset: Option<&Bound<'py, PyAny>>,
        size: Option<&Bound<'py, PyAny>>,
        stride: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let invalid = || {
            PyTypeError::new_err(
                "set_() received an invalid combination of arguments - expected one of: (), (Tensor source), (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = ())",
            )
        };
        let source = match source {
            None => None,
            Some(s) => Some(s.cast::<PyTensor>().map_err(|_| invalid())?.get().tensor()),
        };
        let geometry = match (storage_offset, size) {
            (None, None) if stride.is_none() => None,
            (Some(o), Some(s)) if source.is_some() => {
                let offset = int_arg("set_", "storage_offset", 2, o)?;
                let size = int_tuple("set_", "size", 3, s)?;
                let stride = match stride {
                    Some(st) => Some(int_tuple("set_", "stride", 4, st)?).filter(|v| !v.is_empty()),
                    None => None,
                };
                Some((offset, size, stride))
            }
            _ => return Err(invalid()),
        };
        let this = slf.get();
        let geometry = geometry.as_ref().map(|(o, s, st)| (*o, s.as_slice(), st.as_deref()));
        let new = this.tensor().set_from(source.as_ref(), geometry)?;
        this.replace(new.clone());
        if new.requires_grad() && new.is_leaf() {
            super::tensor_object::remember_object(slf)?;
        }
        Ok(slf.clone())
    }
}
