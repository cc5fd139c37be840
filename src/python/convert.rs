//! Conversions between Python objects and tensors: scalars, nested sequences, NumPy arrays (with
//! zero-copy sharing both ways) and index expressions.

use numpy::ndarray::{ArrayViewD, IxDyn, ShapeBuilder};
use numpy::{PyArray, PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyRange, PySequence, PySlice, PyTuple};

use crate::dtype::{DType, Element};
use crate::layout::Layout;
use crate::storage::{CpuStorage, Storage, StorageCell};
use crate::tensor::index::TensorIndex;
use crate::tensor::{Scalar, Tensor};
use std::sync::Arc;

use super::tensor_object::PyTensor;

/// A Python number (or NumPy scalar) as a `Scalar`; None for anything else.
pub fn scalar_of(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if let Ok(b) = obj.cast::<PyBool>() {
        return Some(Scalar::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Some(Scalar::Float(f.value()));
    }
    // NumPy scalars: classify by their dtype kind.
    let kind = obj.getattr("dtype").ok()?.getattr("kind").ok()?.extract::<String>().ok()?;
    if obj.is_instance_of::<PyTensor>() || obj.hasattr("shape").ok()? && obj.getattr("ndim").ok()?.extract::<usize>().ok()? > 0 {
        return None;
    }
    match kind.as_str() {
        "b" => obj.is_truthy().ok().map(Scalar::Bool),
        "i" | "u" => obj.call_method0("__int__").ok()?.extract::<i64>().ok().map(Scalar::Int),
        "f" => obj.call_method0("__float__").ok()?.extract::<f64>().ok().map(Scalar::Float),
        _ => None,
    }
}

/// The rstorch dtype of a NumPy dtype, given by its kind and item size; None where rstorch has none.
fn dtype_of_descr(d: &Bound<'_, PyArrayDescr>) -> Option<DType> {
    Some(match (d.kind(), d.itemsize()) {
        (b'b', 1) => DType::Bool,
        (b'u', 1) => DType::U8,
        (b'i', 1) => DType::I8,
        (b'i', 2) => DType::I16,
        (b'i', 4) => DType::I32,
        (b'i', 8) => DType::I64,
        (b'f', 2) => DType::F16,
        (b'f', 4) => DType::F32,
        (b'f', 8) => DType::F64,
        _ => return None,
    })
}

/// The dtype NumPy uses for an array, if rstorch has it.
fn numpy_dtype(arr: &Bound<'_, PyUntypedArray>) -> PyResult<DType> {
    let d = arr.dtype();
    // Reading bytes of the other order as native ones would give wrong numbers: refuse them,
    // as PyTorch does (one-byte types have no order and pass).
    if d.is_native_byteorder() == Some(false) {
        return Err(PyValueError::new_err(
            "given numpy array has byte order different from the native byte order. Conversion between byte orders is currently not supported.",
        ));
    }
    dtype_of_descr(&d).ok_or_else(|| match d.str() {
        Ok(name) => PyTypeError::new_err(format!(
            "can't convert np.ndarray of type {name}. The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        )),
        Err(e) => e,
    })
}

/// How a tensor made from a NumPy array relates to the array's memory.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum NumpyUse {
    /// `from_numpy`: the tensor shares the memory, or there is no tensor.
    Share,
    /// `as_tensor`: shares it where it can, else copies.
    ShareIfPossible,
    /// `tensor()`: the caller copies the result at once.
    Copy,
}

/// A tensor over the array's memory (the tensor keeps the array alive); see `NumpyUse`. Every
/// array NumPy can describe is either viewed safely or refused: negative strides, strides that are
/// not whole elements and (when sharing) memory misaligned for the element type raise
/// ValueError; zero strides give a broadcast view, as in PyTorch.
pub fn from_numpy(arr: &Bound<'_, PyUntypedArray>, usage: NumpyUse) -> PyResult<Tensor> {
    let dtype = numpy_dtype(arr)?;
    let item = dtype.size_in_bytes();
    let shape = arr.shape().to_vec();
    if shape.contains(&0) {
        // An empty array views no memory, so its pointer and strides do not matter.
        return Ok(Tensor::from_storage(Storage::Cpu(CpuStorage::zeros(dtype, 0)?), Layout::contiguous(shape)?));
    }
    let mut strides = Vec::with_capacity(shape.len());
    for &s in arr.strides() {
        if s < 0 {
            return Err(PyValueError::new_err(
                "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) ",
            ));
        }
        if !(s as usize).is_multiple_of(item) {
            return Err(PyValueError::new_err(
                "given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate the memory.",
            ));
        }
        strides.push(s as usize / item);
    }
    // SAFETY: reading a field of the array object, which `arr` keeps alive.
    let ptr = unsafe { (*arr.as_array_ptr()).fields.data as *mut u8 };
    // Every element type's alignment is its size. NumPy may place an array anywhere in a buffer;
    // a Rust slice may not start misaligned.
    if !(ptr as usize).is_multiple_of(item) {
        if usage == NumpyUse::Share {
            return Err(PyValueError::new_err(
                "given numpy array is not aligned for its element type, which rstorch cannot share. Copy the numpy array to reallocate the memory.",
            ));
        }
        // NumPy allocates a copy aligned.
        let copy = arr.call_method0("copy")?;
        return from_numpy(copy.cast::<PyUntypedArray>()?, NumpyUse::Share);
    }
    // SAFETY: as above.
    let writable = unsafe { (*arr.as_array_ptr()).fields.flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0 };
    if usage != NumpyUse::Copy && !writable {
        warn_not_writable(arr.py())?;
    }
    let layout = Layout { shape, strides, offset: 0 };
    // Checked: NumPy's strides reach at most as far as its buffer, which fits in memory.
    let len = layout.storage_extent()?;
    // SAFETY: NumPy guarantees `len` elements from the data pointer for this shape and these
    // strides (the last element is at `sum((size - 1) * stride)`); the pointer is aligned; the
    // array object, held by the storage, keeps them alive and in place.
    let owner: Py<PyAny> = arr.clone().into_any().unbind();
    let storage = unsafe { CpuStorage::from_external(ptr, len, dtype, Box::new(owner)) };
    Ok(Tensor::from_storage(Storage::Cpu(storage), layout))
}

/// PyTorch's warning, given once, for a tensor sharing a read-only array's memory: writing to it
/// writes that memory anyway (and faults where it is mapped read-only).
fn warn_not_writable(py: Python<'_>) -> PyResult<()> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"The given NumPy array is not writable, and rstorch does not support non-writable tensors. This means writing to this tensor will result in undefined behavior. You may want to copy the array to protect its data or make it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this program.",
        1,
    )
}

/// Keeps a tensor's storage alive while NumPy arrays view it.
#[pyclass(frozen)]
pub struct StorageOwner {
    _cell: Arc<StorageCell>,
}

/// A NumPy array viewing the tensor's memory (no copy).
pub fn to_numpy<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    // NumPy refuses an array whose non-zero dims and item size multiply past its index type,
    // even when a zero dim leaves it empty; building the view of one first would be undefined.
    let fits = t
        .shape()
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(t.element_size(), |acc, &d| acc.checked_mul(d).filter(|&b| b <= isize::MAX as usize));
    if fits.is_none() {
        return Err(PyValueError::new_err("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."));
    }
    fn view<'py, T: Element + numpy::Element>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
        let owner = Bound::new(py, StorageOwner { _cell: t.storage_cell().clone() })?.into_any();
        t.with_slice::<T, _>("numpy", |s, l| {
            let shape = IxDyn(&l.shape);
            let strides = IxDyn(&l.strides);
            // SAFETY: the layout was checked to lie inside the storage when it was built, and
            // the storage never reallocates; `owner` keeps it alive as the array's base.
            unsafe {
                // An empty view may sit past the end of its storage: point it at the start.
                let offset = if l.numel() == 0 { 0 } else { l.offset };
                let v = ArrayViewD::from_shape_ptr(shape.strides(strides), s.as_ptr().add(offset));
                PyArray::borrow_from_array(&v, owner).into_any()
            }
        })
        .map_err(PyErr::from)
    }
    match t.dtype() {
        DType::Bool => view::<bool>(py, t),
        DType::U8 => view::<u8>(py, t),
        DType::I8 => view::<i8>(py, t),
        DType::I16 => view::<i16>(py, t),
        DType::I32 => view::<i32>(py, t),
        DType::I64 => view::<i64>(py, t),
        DType::F16 => view::<half::f16>(py, t),
        DType::F32 => view::<f32>(py, t),
        DType::F64 => view::<f64>(py, t),
        DType::BF16 => Err(PyTypeError::new_err("Got unsupported ScalarType BFloat16")),
    }
}

/// Nested data deeper than this is refused (a string would otherwise nest forever).
const MAX_DATA_DIMS: usize = 64;

/// `new(): invalid data type 'str'`, PyTorch's error for data it cannot read.
fn invalid_data(obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("new(): invalid data type '{}'", obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()))
}

/// The dtype a number in nested data asks for, as PyTorch reads it: a NumPy scalar brings its
/// own dtype, a Python number its category's default.
fn element_dtype(obj: &Bound<'_, PyAny>, value: Scalar) -> DType {
    let own = is_numpy_scalar(obj)
        .then(|| obj.getattr("dtype").ok())
        .flatten()
        .and_then(|d| d.cast::<PyArrayDescr>().ok().and_then(dtype_of_descr));
    // NumPy's unsigned types wider than a byte have no rstorch dtype: they count as integers.
    own.unwrap_or(match value {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => crate::dtype::DEFAULT_FLOAT,
    })
}

/// Nested data read into a flat list of numbers, its shape, and the dtype its elements promote to
/// (None while no element has been seen).
#[derive(Default)]
struct Flattened {
    shape: Vec<usize>,
    values: Vec<Scalar>,
    dtype: Option<DType>,
}

impl Flattened {
    fn push(&mut self, value: Scalar, dtype: DType) {
        self.values.push(value);
        self.dtype = Some(self.dtype.map_or(dtype, |d| DType::promote(d, dtype)));
    }
}

/// Collects a nested sequence of numbers into `out`.
fn flatten_nested(obj: &Bound<'_, PyAny>, depth: usize, out: &mut Flattened) -> PyResult<()> {
    if depth > MAX_DATA_DIMS {
        return Err(PyValueError::new_err(format!("too many dimensions: data nests deeper than {MAX_DATA_DIMS} levels")));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(invalid_data(obj));
    }
    if let Some(s) = scalar_of(obj) {
        if depth != out.shape.len() {
            return Err(PyValueError::new_err(format!("expected sequence of length {} at dim {} (got a number)", out.shape[depth], depth)));
        }
        out.push(s, element_dtype(obj, s));
        return Ok(());
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = &t.get().tensor();
        if t.numel() == 1 && t.ndim() == 0 {
            out.push(t.item()?, t.dtype());
            return Ok(());
        }
    }
    // NumPy arrays are not registered as sequences, but nest like them (their items are NumPy
    // scalars, which keep their dtype).
    if obj.is_instance_of::<PyInt>() {
        // An int that is no int64 (scalar_of took every other).
        return Err(PyValueError::new_err("Overflow when unpacking long long"));
    }
    if obj.cast::<PySequence>().is_err() && obj.cast::<PyUntypedArray>().is_err() {
        return Err(invalid_data(obj));
    }
    let n = obj.len()?;
    if depth == out.shape.len() {
        if !out.values.is_empty() {
            return Err(PyValueError::new_err(format!("expected a number at dim {depth} (got a sequence)")));
        }
        out.shape.push(n);
    } else if out.shape[depth] != n {
        return Err(PyValueError::new_err(format!("expected sequence of length {} at dim {} (got {})", out.shape[depth], depth, n)));
    }
    for item in obj.try_iter()? {
        flatten_nested(&item?, depth + 1, out)?;
    }
    Ok(())
}

/// `torch.tensor(data)`: always a copy. The dtype is inferred as PyTorch does when not given:
/// the promotion of every element's own dtype.
pub fn tensor_from_data(obj: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = &t.get().tensor();
        return Ok(t.copy_as(dtype.unwrap_or(t.dtype()))?);
    }
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        let t = from_numpy(arr, NumpyUse::Copy)?;
        return Ok(t.copy_as(dtype.unwrap_or(t.dtype()))?);
    }
    if is_numpy_scalar(obj) {
        if let (Some(d), Some(s)) = (dtype, scalar_of(obj)) {
            check_data_value(s, d)?;
        }
        // NumPy scalars keep their dtype, as in PyTorch: read them as 0-dim arrays.
        let arr = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
        return tensor_from_data(&arr, dtype);
    }
    let mut flat = Flattened::default();
    flatten_nested(obj, 0, &mut flat)?;
    if let Some(d) = dtype {
        for &s in &flat.values {
            check_data_value(s, d)?;
        }
    }
    let dtype = dtype.or(flat.dtype).unwrap_or(crate::dtype::DEFAULT_FLOAT);
    Ok(crate::with_dtype!(dtype, T => Tensor::from_vec(flat.values.iter().map(|s| s.to_element::<T>()).collect::<Vec<T>>(), &flat.shape))?)
}

/// A number of `tensor(data, dtype=...)` must fit an integer dtype (floats overflow to inf).
fn check_data_value(s: Scalar, dtype: DType) -> PyResult<()> {
    if !dtype.is_floating_point() {
        s.checked_for(dtype, crate::tensor::scalar_check::Spelling::Dtype)?;
    }
    Ok(())
}

/// Whether `obj` is a NumPy scalar (`np.float64(1.5)`, `np.uint8(7)`).
fn is_numpy_scalar(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type().module().is_ok_and(|m| m == "numpy") && obj.hasattr("dtype").unwrap_or(false) && obj.hasattr("ndim").unwrap_or(false)
}

/// A tensor operand: a tensor, or anything `tensor()` accepts.
pub fn to_tensor(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().tensor().clone());
    }
    tensor_from_data(obj, None)
}

/// Integers from either varargs or one sequence: `view(2, 3)` and `view((2, 3))`.
pub fn int_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if !a.is_instance_of::<PyInt>() && a.cast::<PySequence>().is_ok() {
            return int_list(&a);
        }
    }
    args.iter().enumerate().map(|(i, a)| list_item(&a, i)).collect()
}

/// The overflow PyTorch reports for a Python int outside int64 where it expects one int.
fn int64_overflow() -> PyErr {
    PyValueError::new_err("Overflow when unpacking long long")
}

/// Item `pos` of an int list: an int outside int64 is PyTorch's TypeError for that list.
fn list_item(obj: &Bound<'_, PyAny>, pos: usize) -> PyResult<i64> {
    index_int(obj).map_err(|e| {
        if e.is_instance_of::<PyValueError>(obj.py()) {
            PyTypeError::new_err(format!("failed to unpack the object at pos {} with error \"Overflow when unpacking long long\"", pos + 1))
        } else {
            e
        }
    })
}

/// An int through `__index__` (so NumPy ints and one-element integer tensors work).
pub fn index_int(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    if obj.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err("expected an integer, got float"));
    }
    let i = obj.call_method0("__index__").map_err(|_| {
        PyTypeError::new_err(format!("expected an integer, got {}", obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()))
    })?;
    i.extract::<i64>().map_err(|_| int64_overflow())
}

pub fn int_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if obj.is_instance_of::<PyInt>() {
        return Ok(vec![index_int(obj)?]);
    }
    let seq = obj.cast::<PySequence>().map_err(|_| PyTypeError::new_err("expected a sequence of integers"))?;
    seq.try_iter()?.enumerate().map(|(i, x)| list_item(&x?, i)).collect()
}

/// `dim` arguments: None, an int, or a sequence of ints.
pub fn dims_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => int_list(o).map(Some),
    }
}

/// A shape from user input, validated (negative and overflowing sizes are errors).
pub fn shape_arg(sizes: &[i64], dtype: DType) -> PyResult<Vec<usize>> {
    Ok(crate::shape::checked_shape(sizes, dtype.size_in_bytes())?)
}

fn slice_bound(obj: Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if obj.is_none() {
        return Ok(None);
    }
    match index_int(&obj) {
        // Bounds are clamped to the size anyway, so one past int64 means the same as int64's end.
        Err(e) if e.is_instance_of::<PyValueError>(obj.py()) => {
            let negative = obj.call_method0("__index__")?.lt(0)?;
            Ok(Some(if negative { i64::MIN } else { i64::MAX }))
        }
        other => other.map(Some),
    }
}

fn one_index(obj: &Bound<'_, PyAny>) -> PyResult<TensorIndex> {
    if obj.is_none() {
        return Ok(TensorIndex::NewAxis);
    }
    if obj.is(obj.py().Ellipsis()) {
        return Ok(TensorIndex::Ellipsis);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(TensorIndex::Tensor(Tensor::from_vec(vec![b.is_true()], &[])?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(TensorIndex::Int(obj.extract::<i64>().map_err(|_| int64_overflow())?));
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        let step = slice_bound(s.getattr("step")?)?.unwrap_or(1);
        if step == 0 {
            return Err(PyValueError::new_err("slice step cannot be zero"));
        }
        return Ok(TensorIndex::Slice(slice_bound(s.getattr("start")?)?, slice_bound(s.getattr("stop")?)?, step));
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.get().tensor();
        if t.dtype() == DType::U8 {
            let py = obj.py();
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                1,
            )?;
        }
        return Ok(TensorIndex::Tensor(t));
    }
    if obj.is_instance_of::<PyRange>() {
        return Ok(TensorIndex::Tensor(tensor_from_data(obj, Some(DType::I64))?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        // A list of numbers is an index tensor: int64 unless all bools (floats truncate, and
        // an empty list selects nothing).
        let t = tensor_from_data(obj, None)?;
        let t = if t.dtype() == DType::Bool { t } else { t.to_dtype(DType::I64)? };
        return Ok(TensorIndex::Tensor(t));
    }
    if obj.cast::<PyUntypedArray>().is_ok() {
        let t = tensor_from_data(obj, None)?;
        if t.dtype().is_floating_point() {
            return Err(PyIndexError::new_err("tensors used as indices must be long, int, byte or bool tensors"));
        }
        return Ok(TensorIndex::Tensor(t));
    }
    if let Some(Scalar::Int(i)) = scalar_of(obj) {
        return Ok(TensorIndex::Int(i));
    }
    Err(PyIndexError::new_err(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got ".to_string()
            + &obj.get_type().name()?.to_string()
            + ")",
    ))
}

/// The index tensors of `index_put(indices, values)`: a sequence of tensors, None standing for
/// a whole dim.
pub fn index_put_indices(obj: &Bound<'_, PyAny>) -> PyResult<Vec<TensorIndex>> {
    obj.try_iter()?
        .map(|o| {
            let o = o?;
            if o.is_none() {
                return Ok(TensorIndex::Slice(None, None, 1));
            }
            if o.cast::<PyTensor>().is_err() {
                return Err(PyTypeError::new_err("index_put(): indices must be a tuple of Tensors or None"));
            }
            one_index(&o)
        })
        .collect()
}

/// Whether a list index stands for a tuple of indices, as PyTorch still reads it (NumPy's
/// legacy rule): a short list holding a tensor, a sequence, a slice, `...` or None.
fn list_as_tuple(list: &Bound<'_, PyList>) -> bool {
    list.len() < 32
        && list.iter().any(|item| {
            item.is_none()
                || item.is(item.py().Ellipsis())
                || item.is_instance_of::<PySlice>()
                || item.is_instance_of::<PyTensor>()
                || item.cast::<PyUntypedArray>().is_ok()
                || item.cast::<PySequence>().is_ok()
        })
}

/// Parses `t[obj]` into index entries.
pub fn parse_index(obj: &Bound<'_, PyAny>) -> PyResult<Vec<TensorIndex>> {
    if let Ok(tup) = obj.cast::<PyTuple>() {
        return tup.iter().map(|o| one_index(&o)).collect();
    }
    if let Ok(list) = obj.cast::<PyList>() {
        if list_as_tuple(list) {
            let py = obj.py();
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[tensor(seq)], which will result either in an error or a different result",
                1,
            )?;
            return list.iter().map(|o| one_index(&o)).collect();
        }
    }
    Ok(vec![one_index(obj)?])
}
