//! The `Tensor` class: metadata, conversions, Python protocols and views.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::{BoundObject, PyTraverseError, PyVisit};

use crate::dtype::DType;
use crate::result_layout::MemoryFormat;
use crate::tensor::{Scalar, Tensor};

use super::convert::{dims_arg, index_int, int_args, int_list, parse_index, scalar_of, to_numpy, to_tensor};
use super::dtype::{device_object, dtype_object, extract_device, extract_dtype, extract_opt_device, PyDType, PyDevice};
use crate::device::Device;

use super::gil::run;
use super::tensor_object::{remember_object, tensors_tuple, PyTensor};

pub fn size_object(py: Python<'_>, shape: &[usize]) -> PyResult<Py<PyAny>> {
    static SIZE: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let cls = SIZE.get_or_try_init(py, || py.import("rstorch._size").and_then(|m| m.getattr("Size")).map(|c| c.unbind()))?;
    let tup = PyTuple::new(py, shape)?;
    Ok(cls.bind(py).call1((tup,))?.unbind())
}

/// Nested Python lists of a tensor's values.
fn to_list(py: Python<'_>, t: &Tensor) -> PyResult<Py<PyAny>> {
    fn build<'py, T: Copy + IntoPyObject<'py>>(py: Python<'py>, data: &[T], shape: &[usize]) -> PyResult<Bound<'py, PyAny>>
    where
        PyErr: From<<T as IntoPyObject<'py>>::Error>,
    {
        if shape.is_empty() {
            return Ok(data[0].into_pyobject(py)?.into_any().into_bound());
        }
        let step: usize = shape[1..].iter().product();
        // A dim of 2**40 over an empty tensor asks for 2**40 list slots: refuse it as Python's
        // list allocator does, with MemoryError, instead of looping until memory runs out.
        let mut items = Vec::new();
        items.try_reserve_exact(shape[0]).map_err(|_| pyo3::exceptions::PyMemoryError::new_err(()))?;
        for i in 0..shape[0] {
            items.push(build(py, &data[i * step..(i + 1) * step], &shape[1..])?);
        }
        Ok(PyList::new(py, items)?.into_any())
    }
    let shape = t.shape().to_vec();
    let obj = match t.dtype() {
        DType::Bool => build(py, &t.to_vec::<bool>()?, &shape)?,
        d if d.is_floating_point() => build(py, &t.to_vec::<f64>()?, &shape)?,
        _ => build(py, &t.to_vec::<i64>()?, &shape)?,
    };
    Ok(obj.unbind())
}

fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => pyo3::types::PyBool::new(py, b).to_owned().into_any().unbind(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
    })
}

/// Parses `to(...)`'s many forms: `to(dtype)`, `to(device)`, `to(device, dtype)`,
/// `to(other_tensor)`, and keywords, into the target dtype and device.
fn parse_to(
    args: &Bound<'_, PyTuple>,
    dtype_kw: Option<&Bound<'_, PyAny>>,
    device_kw: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Option<DType>, Option<Device>)> {
    let (mut dtype, mut device) = (None, None);
    for a in args.iter() {
        if let Ok(d) = a.cast::<PyDType>() {
            dtype = Some(d.get().dtype);
        } else if let Ok(t) = a.cast::<PyTensor>() {
            let t = t.get().tensor();
            dtype = Some(t.dtype());
            device = Some(t.device());
        } else if !a.is_none() {
            device = Some(extract_device(&a)?);
        }
    }
    if let Some(d) = dtype_kw.filter(|d| !d.is_none()) {
        dtype = Some(extract_dtype(d)?);
    }
    if let Some(d) = extract_opt_device(device_kw)? {
        device = Some(d);
    }
    Ok((dtype, device))
}

/// `t` converted to `dtype` and moved to `device`: casts run on the CPU side of a transfer
/// (before an upload, after a download), where every dtype has kernels.
pub(crate) fn convert(t: &Tensor, dtype: DType, device: Device) -> crate::Result<Tensor> {
    if device != t.device() && !device.is_cpu() && t.device().is_cpu() {
        t.to_dtype(dtype)?.to_device(device)
    } else {
        t.to_device(device)?.to_dtype(dtype)
    }
}

#[pymethods]
impl PyTensor {
    /// Python objects this tensor holds, for the cycle collector: its cached `.grad` object (and
    /// the weak reference to the tensor it is the grad of), and through the core, its Python
    /// hooks and the `backward` (and so the ctx) of a Python Function it is the output of. A
    /// ctx keeping that output (`ctx.out = y`), or a hook whose closure uses the tensor, closes
    /// a cycle through the core that the collector can only see through here. Locks are never
    /// waited on: a busy one only hides the edge until the next collection.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Ok(g) = self.grad_object.try_lock() {
            visit.call(g.as_ref())?;
        }
        if let Ok(w) = self.grad_owner.try_lock() {
            visit.call(w.as_ref())?;
        }
        if let Ok(t) = self.cell.try_read() {
            if let Some(t) = t.as_ref() {
                if let Some(r) = t.with_exclusive_grad_fn(|node| super::autograd::traverse_node(node, &visit)) {
                    r?;
                }
                t.try_for_each_own_hook(|h| super::autograd::traverse_hook(h, &visit))?;
            }
        }
        Ok(())
    }

    fn __clear__(&self) {
        // The hooks the collector was shown, and these objects, are what can close a cycle.
        let hooks = self.cell.read().unwrap_or_else(|e| e.into_inner()).as_ref().map(|t| t.take_exclusive_hooks());
        drop(hooks);
        let front = self.cell.read().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|t| t.take_exclusive_front());
        drop(front);
        self.grad_object.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.grad_owner.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    #[new]
    #[pyo3(signature = (*args))]
    fn py_new(args: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        // `Tensor(2, 3)` allocates like `empty`; `Tensor([...])` copies data as float32.
        if args.is_empty() {
            return Ok(PyTensor::wrap(Tensor::zeros(&[0], DType::F32)?));
        }
        let first = args.get_item(0)?;
        if args.len() == 1 && (first.cast::<PyTensor>().is_ok() || first.cast::<pyo3::types::PySequence>().is_ok()) {
            if let Ok(t) = first.cast::<PyTensor>() {
                return Ok(PyTensor::wrap(t.get().tensor().clone()));
            }
            return Ok(PyTensor::wrap(super::convert::tensor_from_data(&first, Some(DType::F32))?));
        }
        let sizes = int_args(args)?;
        Ok(PyTensor::wrap(Tensor::zeros(&super::convert::shape_arg(&sizes, DType::F32)?, DType::F32)?))
    }

    // ----- metadata -----------------------------------------------------------------------

    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        size_object(py, self.tensor().shape())
    }

    #[pyo3(signature = (dim=None))]
    fn size(&self, py: Python<'_>, dim: Option<i64>) -> PyResult<Py<PyAny>> {
        match dim {
            None => size_object(py, self.tensor().shape()),
            Some(d) => Ok(self.tensor().size(d)?.into_pyobject(py)?.into_any().unbind()),
        }
    }

    fn dim(&self) -> usize {
        self.tensor().ndim()
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.tensor().ndim()
    }

    fn ndimension(&self) -> usize {
        self.tensor().ndim()
    }

    fn numel(&self) -> usize {
        self.tensor().numel()
    }

    fn nelement(&self) -> usize {
        self.tensor().numel()
    }

    #[pyo3(signature = (dim=None))]
    fn stride(&self, py: Python<'_>, dim: Option<i64>) -> PyResult<Py<PyAny>> {
        match dim {
            None => Ok(PyTuple::new(py, self.tensor().strides())?.into_any().unbind()),
            Some(d) => {
                let i = crate::shape::wrap_dim_strict(d, self.tensor().ndim())?;
                Ok(self.tensor().strides()[i].into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    fn storage_offset(&self) -> usize {
        self.tensor().storage_offset()
    }

    #[pyo3(signature = (memory_format=None))]
    fn is_contiguous(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let format = memory_format_arg(memory_format)?.unwrap_or(MemoryFormat::Contiguous);
        Ok(crate::result_layout::is_contiguous_in(self.tensor().layout(), format))
    }

    #[getter]
    fn dtype(&self, py: Python<'_>) -> Py<PyDType> {
        dtype_object(py, self.tensor().dtype())
    }

    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyDevice>> {
        device_object(py, self.tensor().device())
    }

    #[getter]
    fn is_cpu(&self) -> bool {
        self.tensor().device().is_cpu()
    }

    /// Whether the tensor lives on a wgpu device.
    #[getter]
    fn is_wgpu(&self) -> bool {
        !self.tensor().device().is_cpu()
    }

    /// Whether the tensor lives on a real GPU, the device PyTorch programs call `cuda` (a
    /// software rasteriser such as lavapipe is wgpu but not cuda).
    #[getter]
    fn is_cuda(&self) -> bool {
        match self.tensor().device() {
            Device::Wgpu(i) => crate::dispatch::gpu().is_real_gpu(i),
            Device::Cpu => false,
        }
    }

    /// rstorch has no Intel XPU or Apple MPS device types: the GPU is `cuda` / `wgpu`.
    #[getter]
    fn is_xpu(&self) -> bool {
        false
    }

    #[getter]
    fn is_mps(&self) -> bool {
        false
    }

    fn element_size(&self) -> usize {
        self.tensor().element_size()
    }

    #[getter]
    fn itemsize(&self) -> usize {
        self.tensor().element_size()
    }

    #[getter]
    fn nbytes(&self) -> usize {
        self.tensor().element_size() * self.tensor().numel()
    }

    fn data_ptr(&self) -> usize {
        self.tensor().data_ptr()
    }

    fn is_floating_point(&self) -> bool {
        self.tensor().dtype().is_floating_point()
    }

    fn is_complex(&self) -> bool {
        false
    }

    #[getter]
    fn requires_grad(&self) -> bool {
        self.tensor().requires_grad()
    }

    #[setter]
    fn set_requires_grad(slf: &Bound<'_, Self>, value: bool) -> PyResult<()> {
        slf.get().tensor().set_requires_grad(value)?;
        if value {
            remember_object(slf)?;
        }
        Ok(())
    }

    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(slf: &Bound<'_, Self>, requires_grad: bool) -> PyResult<Py<PyAny>> {
        slf.get().tensor().set_requires_grad(requires_grad)?;
        if requires_grad {
            remember_object(slf)?;
        }
        Ok(slf.clone().into_any().unbind())
    }

    #[getter]
    fn _version(&self) -> u64 {
        self.tensor().version()
    }

    // ----- conversions ----------------------------------------------------------------------

    #[pyo3(signature = (*, force=false))]
    fn numpy<'py>(&self, py: Python<'py>, force: bool) -> PyResult<Bound<'py, PyAny>> {
        let t = self.tensor();
        if force {
            // PyTorch's force=True is `detach().cpu().resolve_conj().resolve_neg().numpy()`.
            return to_numpy(py, &py.detach(|| t.detach().to_device(Device::Cpu))?);
        }
        if t.requires_grad() {
            return Err(PyRuntimeError::new_err("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."));
        }
        if !t.device().is_cpu() {
            return Err(PyTypeError::new_err(format!(
                "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
                t.device()
            )));
        }
        to_numpy(py, &t)
    }

    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        scalar_to_py(py, self.tensor().item()?)
    }

    fn tolist(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_list(py, &self.tensor())
    }

    #[pyo3(signature = (*args, dtype=None, device=None, non_blocking=false, copy=false, memory_format=None))]
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
        copy: bool,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = non_blocking;
        let t = &slf.get().tensor();
        let (dtype, device) = parse_to(args, dtype, device)?;
        let (dtype, device) = (dtype.unwrap_or(t.dtype()), device.unwrap_or(t.device()));
        let format = memory_format_arg(memory_format)?.unwrap_or(MemoryFormat::Preserve);
        // Another format than preserve_format: the result is laid out in it, as PyTorch's `to`
        // gives an `empty(memory_format=)` tensor the values are copied into.
        let order = match format {
            MemoryFormat::Preserve => None,
            f if crate::result_layout::is_contiguous_in(t.layout(), f) => None,
            f => Some(crate::result_layout::format_order(t.shape(), f)?),
        };
        if dtype == t.dtype() && device == t.device() && order.is_none() {
            if !copy {
                return Ok(slf.clone().into_any().unbind());
            }
            return Ok(Bound::new(slf.py(), PyTensor::wrap(t.clone_as(dtype)?))?.into_any().unbind());
        }
        let out = slf.py().detach(|| match order {
            Some(order) if device == t.device() => t.copy_in_order(order, dtype),
            Some(order) => convert(t, dtype, device)?.copy_in_order(order, dtype),
            None => convert(t, dtype, device),
        })?;
        Ok(Bound::new(slf.py(), PyTensor::wrap(out))?.into_any().unbind())
    }

    #[pyo3(signature = (dtype=None, non_blocking=false))]
    fn r#type(slf: &Bound<'_, Self>, dtype: Option<&Bound<'_, PyAny>>, non_blocking: bool) -> PyResult<Py<PyAny>> {
        let _ = non_blocking;
        let t = &slf.get().tensor();
        match dtype {
            None => Ok(format!("rstorch.{}Tensor", t.dtype().title_name()).into_pyobject(slf.py())?.into_any().unbind()),
            Some(d) => {
                let d = extract_dtype(d)?;
                if d == t.dtype() {
                    return Ok(slf.clone().into_any().unbind());
                }
                Ok(Bound::new(slf.py(), PyTensor::wrap(t.clone_as(d)?))?.into_any().unbind())
            }
        }
    }

    fn cpu(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let t = slf.get().tensor();
        if t.device().is_cpu() {
            return Ok(slf.clone().into_any().unbind());
        }
        let out = slf.py().detach(|| t.to_device(Device::Cpu))?;
        Ok(Bound::new(slf.py(), PyTensor::wrap(out))?.into_any().unbind())
    }

    #[pyo3(signature = (memory_format=None))]
    fn contiguous(slf: &Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let t = &slf.get().tensor();
        let format = memory_format_arg(memory_format)?.unwrap_or(MemoryFormat::Contiguous);
        if crate::result_layout::is_contiguous_in(t.layout(), format) {
            return Ok(slf.clone().into_any().unbind());
        }
        let order = crate::result_layout::format_order(t.shape(), format)?;
        let out = run(slf.py(), t.numel(), || t.copy_in_order(order, t.dtype()))?;
        Ok(Bound::new(slf.py(), PyTensor::wrap(out))?.into_any().unbind())
    }

    #[pyo3(signature = (memory_format=None))]
    fn clone(&self, py: Python<'_>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let t = &self.tensor();
        let order = match memory_format_arg(memory_format)?.unwrap_or(MemoryFormat::Preserve) {
            MemoryFormat::Preserve => crate::result_layout::preserved_order(t.layout()),
            format => crate::result_layout::format_order(t.shape(), format)?,
        };
        Ok(PyTensor::wrap(run(py, t.numel(), || t.copy_in_order(order, t.dtype()))?))
    }

    /// A tensor sharing storage that does not require grad.
    fn detach(&self) -> PyTensor {
        PyTensor::wrap(self.tensor().with_layout(self.tensor().layout().clone()))
    }

    /// Writes `result`, an in-place op's result computed out of place, into self: self's
    /// history becomes the result's (for in-place ops written in Python); a result self cannot
    /// hold is refused.
    fn _assign_<'py>(slf: &Bound<'py, Self>, result: &PyTensor) -> PyResult<Bound<'py, Self>> {
        let (t, r) = (slf.get().tensor(), result.tensor());
        slf.py().detach(|| t.assign_result_(&r))?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (src, non_blocking=false))]
    fn copy_<'py>(slf: &Bound<'py, Self>, src: &Bound<'py, PyAny>, non_blocking: bool) -> PyResult<Bound<'py, Self>> {
        let _ = non_blocking;
        let src = to_tensor(src)?;
        let t = &slf.get().tensor();
        slf.py().detach(|| t.copy_(&src))?;
        Ok(slf.clone())
    }

    // ----- Python protocols -----------------------------------------------------------------

    fn __len__(&self) -> PyResult<usize> {
        if self.tensor().ndim() == 0 {
            return Err(PyTypeError::new_err("len() of a 0-d tensor"));
        }
        Ok(self.tensor().shape()[0])
    }

    fn __bool__(&self) -> PyResult<bool> {
        if self.tensor().numel() != 1 {
            return Err(PyRuntimeError::new_err(format!(
                "Boolean value of Tensor with {} is ambiguous",
                if self.tensor().numel() == 0 { "no values" } else { "more than one value" }
            )));
        }
        Ok(self.tensor().item()?.to_f64() != 0.0)
    }

    fn __float__(&self) -> PyResult<f64> {
        if self.tensor().numel() != 1 {
            return Err(PyTypeError::new_err("only one element tensors can be converted to Python scalars"));
        }
        Ok(self.tensor().item()?.to_f64())
    }

    fn __int__(&self) -> PyResult<i64> {
        if self.tensor().numel() != 1 {
            return Err(PyTypeError::new_err("only one element tensors can be converted to Python scalars"));
        }
        Ok(match self.tensor().item()? {
            Scalar::Float(f) if !f.is_finite() => return Err(PyValueError::new_err(format!("cannot convert float {f} to integer"))),
            s => s.to_i64(),
        })
    }

    fn __index__(&self) -> PyResult<i64> {
        if self.tensor().numel() != 1 || self.tensor().dtype().is_floating_point() {
            return Err(PyTypeError::new_err("only integer tensors of a single element can be converted to an index"));
        }
        Ok(self.tensor().item()?.to_i64())
    }

    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }

    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let idx = parse_index(index)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.index(&idx))?))
    }

    fn __setitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let idx = parse_index(index)?;
        let t = &self.tensor();
        match scalar_of(value) {
            Some(s) => run(py, t.numel(), || t.index_put(&idx, crate::tensor::arith::Arg::S(s)))?,
            None => {
                let v = to_tensor(value)?;
                run(py, t.numel(), || t.index_put(&idx, crate::tensor::arith::Arg::T(&v)))?
            }
        }
        Ok(())
    }

    /// `index_put_(indices, values)`: `self[indices] = values` with a tuple of index tensors.
    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put_<'py>(
        slf: &Bound<'py, Self>,
        indices: &Bound<'py, PyAny>,
        values: &PyTensor,
        accumulate: bool,
    ) -> PyResult<Bound<'py, Self>> {
        if accumulate {
            return Err(crate::Error::NotImplemented("index_put_ with accumulate=True".into()).into());
        }
        let idx = super::convert::index_put_indices(indices)?;
        let (t, v) = (slf.get().tensor(), values.tensor());
        run(slf.py(), t.numel(), || t.index_put(&idx, crate::tensor::arith::Arg::T(&v)))?;
        Ok(slf.clone())
    }

    /// `index_put(indices, values)`: a copy of self with `values` written at `indices`.
    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put(&self, py: Python<'_>, indices: &Bound<'_, PyAny>, values: &PyTensor, accumulate: bool) -> PyResult<PyTensor> {
        if accumulate {
            return Err(crate::Error::NotImplemented("index_put with accumulate=True".into()).into());
        }
        let idx = super::convert::index_put_indices(indices)?;
        let (t, v) = (self.tensor(), values.tensor());
        let out = {
            let _raw = crate::autograd::GradMode::disabled();
            t.copy_as(t.dtype())?
        };
        // The copy carries self's history: PyTorch's node lists self, with no clone between.
        if crate::autograd::is_grad_enabled() {
            if let Some(e) = t.gradient_edge() {
                out.set_grad_fn(e.node.clone(), e.input_nr);
            }
        }
        run(py, t.numel(), || out.index_put(&idx, crate::tensor::arith::Arg::T(&v)))?;
        Ok(PyTensor::wrap(out))
    }

    // ----- views and shape ops --------------------------------------------------------------

    #[pyo3(signature = (*shape))]
    fn view(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        if shape.len() == 1 {
            if let Ok(d) = shape.get_item(0)?.cast::<PyDType>() {
                if d.get().dtype == self.tensor().dtype() {
                    return Ok(PyTensor::wrap(self.tensor().clone()));
                }
                return Err(PyRuntimeError::new_err("view(dtype) reinterpreting the bytes is not supported"));
            }
        }
        Ok(PyTensor::wrap(self.tensor().view(&int_args(shape)?)?))
    }

    fn view_as(&self, other: &PyTensor) -> PyResult<PyTensor> {
        let s: Vec<i64> = other.tensor().shape().iter().map(|&v| v as i64).collect();
        Ok(PyTensor::wrap(self.tensor().view(&s)?))
    }

    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().reshape(&int_args(shape)?)?))
    }

    fn reshape_as(&self, other: &PyTensor) -> PyResult<PyTensor> {
        let s: Vec<i64> = other.tensor().shape().iter().map(|&v| v as i64).collect();
        Ok(PyTensor::wrap(self.tensor().reshape(&s)?))
    }

    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    fn flatten(&self, start_dim: i64, end_dim: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().flatten(start_dim, end_dim)?))
    }

    fn unflatten(&self, dim: i64, sizes: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().unflatten(dim, &int_list(sizes)?)?))
    }

    fn ravel(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().reshape(&[-1])?))
    }

    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, dim: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(match dims_arg(dim)? {
            None => self.tensor().squeeze()?,
            Some(d) => self.tensor().squeeze_dims(&d)?,
        }))
    }

    fn unsqueeze(&self, dim: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().unsqueeze(dim)?))
    }

    fn transpose(&self, dim0: i64, dim1: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().transpose(dim0, dim1)?))
    }

    fn swapaxes(&self, dim0: i64, dim1: i64) -> PyResult<PyTensor> {
        self.transpose(dim0, dim1)
    }

    fn t(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().t()?))
    }

    #[getter(T)]
    fn big_t(&self) -> PyResult<PyTensor> {
        let n = self.tensor().ndim() as i64;
        let dims: Vec<i64> = (0..n).rev().collect();
        Ok(PyTensor::wrap(self.tensor().permute(&dims)?))
    }

    #[getter(mT)]
    fn matrix_t(&self) -> PyResult<PyTensor> {
        if self.tensor().ndim() < 2 {
            return Err(PyRuntimeError::new_err("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."));
        }
        Ok(PyTensor::wrap(self.tensor().transpose(-2, -1)?))
    }

    #[pyo3(signature = (*dims))]
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().permute(&int_args(dims)?)?))
    }

    fn movedim(&self, source: i64, destination: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().movedim(source, destination)?))
    }

    #[pyo3(signature = (*sizes))]
    fn expand(&self, sizes: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().expand(&int_args(sizes)?)?))
    }

    fn expand_as(&self, other: &PyTensor) -> PyResult<PyTensor> {
        let s: Vec<i64> = other.tensor().shape().iter().map(|&v| v as i64).collect();
        Ok(PyTensor::wrap(self.tensor().expand(&s)?))
    }

    fn narrow(&self, dim: i64, start: &Bound<'_, PyAny>, length: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().narrow(dim, index_int(start)?, length)?))
    }

    fn select(&self, dim: i64, index: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().select(dim, index)?))
    }

    #[pyo3(signature = (dim=0))]
    fn unbind(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyTuple>> {
        tensors_tuple(py, self.tensor().unbind(dim)?)
    }

    #[pyo3(signature = (chunks, dim=0))]
    fn chunk(&self, py: Python<'_>, chunks: i64, dim: i64) -> PyResult<Py<PyTuple>> {
        tensors_tuple(py, self.tensor().chunk(chunks, dim)?)
    }

    #[pyo3(signature = (split_size_or_sections, dim=0))]
    fn split(&self, py: Python<'_>, split_size_or_sections: &Bound<'_, PyAny>, dim: i64) -> PyResult<Py<PyTuple>> {
        let parts = if split_size_or_sections.is_instance_of::<pyo3::types::PyInt>() {
            self.tensor().split(split_size_or_sections.extract()?, dim)?
        } else {
            self.tensor().split_sizes(&int_list(split_size_or_sections)?, dim)?
        };
        tensors_tuple(py, parts)
    }

    fn unfold(&self, dimension: i64, size: i64, step: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().unfold(dimension, size, step)?))
    }

    #[pyo3(signature = (*dims))]
    fn flip(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let d = int_args(dims)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.flip(&d))?))
    }

    #[pyo3(signature = (*sizes))]
    fn repeat(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let r = int_args(sizes)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.repeat(&r))?))
    }

    #[pyo3(signature = (*dims))]
    fn tile(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let r = int_args(dims)?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.tile(&r))?))
    }

    fn broadcast_to(&self, size: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().expand(&int_list(size)?)?))
    }

    #[pyo3(signature = (diagonal=0))]
    fn diag(&self, diagonal: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().diag(diagonal)?))
    }

    #[pyo3(signature = (offset=0, dim1=0, dim2=1))]
    fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().diagonal(offset, dim1, dim2)?))
    }

    #[pyo3(signature = (shifts, dims=None))]
    fn roll(&self, shifts: &Bound<'_, PyAny>, dims: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let s = int_list(shifts)?;
        let d = dims_arg(dims)?.unwrap_or_default();
        Ok(PyTensor::wrap(self.tensor().roll(&s, &d)?))
    }

    #[pyo3(signature = (diagonal=0))]
    fn tril(&self, diagonal: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().triangle(diagonal, false)?))
    }

    #[pyo3(signature = (diagonal=0))]
    fn triu(&self, diagonal: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.tensor().triangle(diagonal, true)?))
    }
}

/// A `memory_format=` argument (None where it was not given).
fn memory_format_arg(memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Option<MemoryFormat>> {
    match memory_format {
        None => Ok(None),
        Some(m) if m.is_none() => Ok(None),
        Some(m) => Ok(Some(MemoryFormat::from_name(&m.str()?.to_string())?)),
    }
}
