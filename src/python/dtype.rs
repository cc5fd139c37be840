//! `rstorch.dtype` and `rstorch.device` objects (each dtype is a singleton, so `is` works), and the
//! Tensor dtype shorthands (`float()`, `long()`, ...).

use pyo3::exceptions::{PyAssertionError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::device::{Device, DeviceKind, DeviceSpec};
use crate::dtype::DType;

use super::gil::run;
use super::tensor_object::PyTensor;

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
    let all = OBJECTS
        .get_or_init(py, || DType::ALL.iter().map(|&d| Py::new(py, PyDType { dtype: d }).expect("allocating a dtype object")).collect());
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
    Err(PyTypeError::new_err(format!("dtype must be rstorch.dtype, not {}", obj.get_type().name()?)))
}

pub fn extract_opt_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        Some(o) if !o.is_none() => extract_dtype(o).map(Some),
        _ => Ok(None),
    }
}

#[pyclass(name = "device", module = "rstorch", frozen)]
pub struct PyDevice {
    pub spec: DeviceSpec,
}

impl PyDevice {
    pub fn device(&self) -> Device {
        self.spec.resolve()
    }
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (spec, index=None))]
    fn new(spec: &Bound<'_, PyAny>, index: Option<i64>) -> PyResult<PyDevice> {
        let mut parsed = extract_spec(spec)?;
        if let Some(i) = index {
            if parsed.index.is_some() {
                return Err(PyRuntimeError::new_err(format!(
                    "type (string) must not include an index because index was passed explicitly: {parsed}"
                )));
            }
            if i < 0 {
                return Err(PyRuntimeError::new_err("Device index must not be negative"));
            }
            parsed = DeviceSpec::parse(&format!("{}:{i}", parsed.type_name()))?;
        }
        Ok(PyDevice { spec: parsed })
    }

    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        self.spec.type_name()
    }

    #[getter]
    fn index(&self) -> Option<usize> {
        self.spec.index
    }

    fn __repr__(&self) -> String {
        match self.spec.index {
            Some(i) => format!("device(type='{}', index={i})", self.spec.type_name()),
            None => format!("device(type='{}')", self.spec.type_name()),
        }
    }

    fn __str__(&self) -> String {
        self.spec.to_string()
    }

    /// Equal type and index, as in PyTorch (`device('wgpu') != device('wgpu:0')`); a string
    /// compares as the device it names.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if other.cast::<PyDevice>().is_err() && other.extract::<String>().is_err() {
            return false;
        }
        extract_spec(other).is_ok_and(|d| d == self.spec)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.spec.hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, pyo3::types::PyType>, (String,)) {
        (py.get_type::<PyDevice>(), (self.spec.to_string(),))
    }
}

/// A device as written: a device object, a string such as "wgpu:0", or an int (the ordinal of
/// the accelerator, `wgpu`).
fn extract_spec(obj: &Bound<'_, PyAny>) -> PyResult<DeviceSpec> {
    if let Ok(d) = obj.cast::<PyDevice>() {
        return Ok(d.get().spec);
    }
    if let Ok(s) = obj.extract::<String>() {
        return Ok(DeviceSpec::parse(&s)?);
    }
    if let Ok(i) = obj.extract::<i64>() {
        if i < 0 {
            return Err(PyRuntimeError::new_err("Device index must not be negative"));
        }
        return Ok(DeviceSpec::parse(&format!("wgpu:{i}"))?);
    }
    Err(PyTypeError::new_err(format!("expected a device, got {}", obj.get_type().name()?)))
}

/// Accepts a device object, a string such as "cpu" or "wgpu", an accelerator ordinal, or None
/// (the CPU).
pub fn extract_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    if obj.is_none() {
        return Ok(Device::Cpu);
    }
    let spec = extract_spec(obj)?;
    if spec.kind == DeviceKind::Cuda {
        // PyTorch's errors: a CPU-only build's when no real GPU exists (lavapipe does not count),
        // CUDA's for an ordinal past the last GPU.
        let count = obj.py().detach(super::wgpu::cuda_device_count);
        if count == 0 {
            return Err(PyAssertionError::new_err("Torch not compiled with CUDA enabled"));
        }
        if spec.index.is_some_and(|i| i >= count) {
            return Err(PyRuntimeError::new_err("CUDA error: invalid device ordinal"));
        }
    }
    Ok(spec.resolve())
}

/// `extract_device` for an optional argument: None when absent or None.
pub fn extract_opt_device(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Device>> {
    match obj {
        Some(o) if !o.is_none() => extract_device(o).map(Some),
        _ => Ok(None),
    }
}

/// The object `tensor.device` returns (one per device, so repeated reads are cheap).
pub fn device_object(py: Python<'_>, device: Device) -> PyResult<Py<PyDevice>> {
    static CPU: PyOnceLock<Py<PyDevice>> = PyOnceLock::new();
    static WGPU: PyOnceLock<Vec<Py<PyDevice>>> = PyOnceLock::new();
    let make = |d: Device| Py::new(py, PyDevice { spec: DeviceSpec::of(d) });
    match device {
        Device::Cpu => Ok(CPU.get_or_try_init(py, || make(Device::Cpu))?.clone_ref(py)),
        Device::Wgpu(i) => {
            let first = WGPU.get_or_try_init(py, || (0..8).map(|i| make(Device::Wgpu(i))).collect::<PyResult<Vec<_>>>())?;
            match first.get(i) {
                Some(d) => Ok(d.clone_ref(py)),
                None => make(device),
            }
        }
    }
}

#[pymethods]
impl PyTensor {
    // ----- dtype shorthands -------------------------------------------------------------------

    fn float(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::F32)
    }
    fn double(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::F64)
    }
    fn half(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::F16)
    }
    fn bfloat16(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::BF16)
    }
    fn long(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::I64)
    }
    fn int(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::I32)
    }
    fn short(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::I16)
    }
    fn char(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::I8)
    }
    fn byte(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::U8)
    }
    fn bool(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::Bool)
    }
}

/// Self when already of `dtype` (as PyTorch returns the same object), else a converted copy.
fn cast_to(slf: &Bound<'_, PyTensor>, dtype: DType) -> PyResult<Py<PyAny>> {
    let t = &slf.get().tensor();
    if t.dtype() == dtype {
        return Ok(slf.clone().into_any().unbind());
    }
    let py = slf.py();
    Ok(Py::new(py, PyTensor::wrap(run(py, t.numel(), || t.clone_as(dtype))?))?.into_any())
}
