//! `rstorch.dtype` and `rstorch.device` objects. Each dtype is a singleton, so `is` works.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::device::Device;
use crate::dtype::DType;

#[pyclass(name = "dtype", module = "rstorch", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub struct PyDType {
    pub dtype: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("rstorch.{}", self.dtype.name())
    }

    #[getter]
    fn is_floating_point(&self) -> bool {
        self.dtype.is_floating_point()
    }

    #[getter]
    fn is_signed(&self) -> bool {
        self.dtype.is_signed()
    }

    #[getter]
    fn is_complex(&self) -> bool {
        false
    }

    #[getter]
    fn itemsize(&self) -> usize {
        self.dtype.size_in_bytes()
    }

    fn __reduce__(&self) -> (String,) {
        // Pickles as the module attribute of the same name.
        (self.dtype.name().to_string(),)
    }
}

/// The singleton object of `dtype`.
pub fn dtype_object(py: Python<'_>, dtype: DType) -> Py<PyDType> {
    static OBJECTS: PyOnceLock<Vec<Py<PyDType>>> = PyOnceLock::new();
    let all = OBJECTS.get_or_init(py, || {
        DType::ALL.iter().map(|&d| Py::new(py, PyDType { dtype: d }).expect("allocating a dtype object")).collect()
    });
    let i = DType::ALL.iter().position(|&d| d == dtype).unwrap();
    all[i].clone_ref(py)
}

/// Accepts a dtype object (also Python's `float`, `int`, `bool` as PyTorch does).
pub fn extract_dtype(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(d) = obj.cast::<PyDType>() {
        return Ok(d.get().dtype);
    }
    let py = obj.py();
    if obj.is(py.get_type::<pyo3::types::PyFloat>()) {
        return Ok(DType::F64);
    }
    if obj.is(py.get_type::<pyo3::types::PyBool>()) {
        return Ok(DType::Bool);
    }
    if obj.is(py.get_type::<pyo3::types::PyInt>()) {
        return Ok(DType::I64);
    }
    Err(PyTypeError::new_err(format!(
        "dtype must be rstorch.dtype, not {}",
        obj.get_type().name()?
    )))
}

pub fn extract_opt_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        Some(o) if !o.is_none() => extract_dtype(o).map(Some),
        _ => Ok(None),
    }
}

#[pyclass(name = "device", module = "rstorch", frozen)]
pub struct PyDevice {
    pub device: Device,
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (spec, index=None))]
    fn new(spec: &Bound<'_, PyAny>, index: Option<i64>) -> PyResult<PyDevice> {
        let device = extract_device(spec)?;
        if let Some(i) = index {
            if i != 0 {
                return Err(PyValueError::new_err(format!("device index {i} is not available")));
            }
        }
        Ok(PyDevice { device })
    }

    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        self.device.type_name()
    }

    #[getter]
    fn index(&self) -> Option<i64> {
        None
    }

    fn __repr__(&self) -> String {
        format!("device(type='{}')", self.device.type_name())
    }

    fn __str__(&self) -> &'static str {
        self.device.type_name()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        extract_device(other).is_ok_and(|d| d == self.device)
    }

    fn __hash__(&self) -> u64 {
        self.device as u64
    }
}

/// Accepts a device object, a string such as "cpu", or None (the CPU).
pub fn extract_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    if obj.is_none() {
        return Ok(Device::Cpu);
    }
    if let Ok(d) = obj.cast::<PyDevice>() {
        return Ok(d.get().device);
    }
    if let Ok(s) = obj.extract::<String>() {
        return Ok(Device::parse(&s)?);
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Err(PyValueError::new_err(format!("device ordinal {i} needs an accelerator; this build has only 'cpu'")));
    }
    Err(PyTypeError::new_err(format!("expected a device, got {}", obj.get_type().name()?)))
}

pub fn device_object(py: Python<'_>, device: Device) -> PyResult<Py<PyDevice>> {
    static CPU: PyOnceLock<Py<PyDevice>> = PyOnceLock::new();
    match device {
        Device::Cpu => Ok(CPU.get_or_init(py, || Py::new(py, PyDevice { device }).expect("allocating a device")).clone_ref(py)),
    }
}
