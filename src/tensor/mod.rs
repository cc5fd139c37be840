//! The tensor: a strided view over shared storage. Cheap to clone (an `Arc`).

pub mod arith;
pub(crate) mod clamp;
pub mod conv;
mod conv3d;
pub mod convolution;
mod copy;
mod creation;
mod einsum;
pub mod float_class;
pub mod index;
pub mod loss;
mod matmul;
pub(crate) mod norm;
pub mod pool;
mod reduce;
pub mod sampling;
pub mod scalar_check;
mod shape_ops;
pub(crate) mod strided;
mod transfer;
mod unary;
mod view;

pub use crate::ops::binary::BinaryOp;
pub use crate::ops::reduce::ReduceOp;
pub use crate::ops::unary::UnaryOp;
pub use crate::scalar::Scalar;

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::autograd::grad_mode;
use crate::backend::{Array, Backend};
use crate::cpu;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape;
use crate::storage::{CpuStorage, Storage, StorageCell};

pub struct TensorImpl {
    /// The values: storage, layout and dtype.
    array: Array,
    /// Made in inference mode (or a view of such a tensor): never saved for backward, and
    /// not updated in place outside inference mode.
    inference: bool,
    /// Autograd state, allocated the first time a tensor takes part in autograd. Opaque here:
    /// autograd (`autograd/meta.rs`) stores its `AutogradMeta` and reads it back, so the core
    /// does not depend on the layer above it.
    pub(crate) autograd: Mutex<Option<Box<dyn Any + Send + Sync>>>,
}

#[derive(Clone)]
pub struct Tensor(Arc<TensorImpl>);

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor(shape={:?}, dtype={})", self.shape(), self.dtype().name())
    }
}

impl Tensor {
    // ----- construction -------------------------------------------------------------------

    pub(crate) fn from_parts(storage: Arc<StorageCell>, layout: Layout, dtype: DType) -> Tensor {
        // Every kernel trusts that a tensor's elements lie inside its storage; the paths that
        // build layouts from outside numbers check it (`Layout::from_user`), and a debug build
        // (the fuzz targets') checks every tensor.
        debug_assert!(
            storage.try_len().is_none_or(|len| layout.fits(len)),
            "layout {layout:?} leaves its storage of {:?} elements",
            storage.try_len()
        );
        let inference = grad_mode::is_inference_mode();
        Tensor(Arc::new(TensorImpl { array: Array::from_parts(storage, layout, dtype), inference, autograd: Mutex::new(None) }))
    }

    /// A tensor of a backend's result.
    pub fn from_array(array: Array) -> Tensor {
        let inference = grad_mode::is_inference_mode();
        Tensor(Arc::new(TensorImpl { array, inference, autograd: Mutex::new(None) }))
    }

    /// The values, as backends take them.
    pub fn array(&self) -> &Array {
        &self.0.array
    }

    /// The backend of the tensor's device.
    pub fn backend(&self) -> &'static dyn Backend {
        crate::dispatch::of(self.device())
    }

    /// A tensor owning `data`, laid out contiguously as `shape`.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let n = shape::numel(shape)?;
        if n != data.len() {
            return Err(Error::Runtime(format!("shape {shape:?} needs {n} elements but {} were given", data.len())));
        }
        let layout = Layout::contiguous(shape.to_vec())?;
        Ok(Tensor::from_storage(Storage::Cpu(CpuStorage::from_vec(data)), layout))
    }

    pub fn from_storage(storage: Storage, layout: Layout) -> Tensor {
        let dtype = storage.dtype();
        Tensor::from_parts(Arc::new(StorageCell::new(storage)), layout, dtype)
    }

    /// A new view of the same storage with another layout.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        // Views (and detached handles) of an inference tensor are inference tensors.
        let inference = self.0.inference || grad_mode::is_inference_mode();
        Tensor(Arc::new(TensorImpl { array: self.0.array.with_layout(layout), inference, autograd: Mutex::new(None) }))
    }

    /// Whether this tensor was made in inference mode (or views one that was).
    pub fn is_inference(&self) -> bool {
        self.0.inference
    }

    // ----- metadata -------------------------------------------------------------------------

    pub fn shape(&self) -> &[usize] {
        &self.0.array.layout().shape
    }

    pub fn strides(&self) -> &[usize] {
        &self.0.array.layout().strides
    }

    pub fn layout(&self) -> &Layout {
        self.0.array.layout()
    }

    pub fn storage_offset(&self) -> usize {
        self.0.array.layout().offset
    }

    pub fn dtype(&self) -> DType {
        self.0.array.dtype()
    }

    pub fn device(&self) -> Device {
        self.0.array.storage().device()
    }

    pub fn ndim(&self) -> usize {
        self.0.array.layout().ndim()
    }

    pub fn numel(&self) -> usize {
        self.0.array.layout().numel()
    }

    pub fn is_contiguous(&self) -> bool {
        self.0.array.layout().is_contiguous()
    }

    /// Whether this is a matrix stored transposed (column-major, not also row-major), as a
    /// weight used as `w.t()` is.
    pub fn is_transposed_matrix(&self) -> bool {
        let l = self.0.array.layout();
        l.shape.len() == 2 && !l.is_contiguous() && l.strides[0] == 1 && l.strides[1] == l.shape[0].max(1)
    }

    pub fn element_size(&self) -> usize {
        self.0.array.dtype().size_in_bytes()
    }

    /// Address of the first element. GPU memory has no host address: there it is the address
    /// of the storage object plus the byte offset, unique and stable while the storage lives.
    pub fn data_ptr(&self) -> usize {
        let st = self.0.array.storage().read();
        let base = match &*st {
            Storage::Cpu(s) => s.as_ptr() as usize,
            Storage::Wgpu(_) => Arc::as_ptr(self.0.array.storage()) as usize,
        };
        base + self.storage_offset() * self.element_size()
    }

    /// Size of `dim`, which may be negative.
    pub fn size(&self, dim: i64) -> Result<usize> {
        Ok(self.shape()[shape::wrap_dim_strict(dim, self.ndim())?])
    }

    pub fn storage_cell(&self) -> &Arc<StorageCell> {
        self.0.array.storage()
    }

    /// Whether both tensors view the same storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(self.0.array.storage(), other.0.array.storage())
    }

    /// Whether both handles are the same tensor object.
    pub fn same(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub fn version(&self) -> u64 {
        self.0.array.storage().version()
    }

    pub(crate) fn impl_ref(&self) -> &TensorImpl {
        &self.0
    }

    pub(crate) fn impl_arc(&self) -> &Arc<TensorImpl> {
        &self.0
    }

    pub(crate) fn from_impl(t: Arc<TensorImpl>) -> Tensor {
        Tensor(t)
    }

    /// An address identifying the tensor object (shared by clones of this handle).
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Whether no other handle holds this tensor object (its storage may still be shared with
    /// views: PyTorch's `use_count() == 1`).
    pub fn is_sole_handle(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }

    // ----- element access -------------------------------------------------------------------

    /// Calls `f` with the CPU elements of the storage (as `T`, which must be the dtype) and the
    /// layout viewing them. `op` names the CPU-only kernel in the error for other devices.
    pub fn with_slice<T: Element, R>(&self, op: &str, f: impl FnOnce(&[T], &Layout) -> R) -> Result<R> {
        self.0.array.with_slice(op, f)
    }

    /// Mutable access for in-place ops; bumps the version counter.
    pub fn with_slice_mut<T: Element, R>(&self, op: &str, f: impl FnOnce(&mut [T], &Layout) -> R) -> Result<R> {
        self.0.array.with_slice_mut(op, f)
    }

    /// The elements in row-major order, as `T` (converted from the tensor's dtype).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if self.numel() == 0 {
            // An empty view may sit past the end of its (possibly empty) storage.
            return Ok(Vec::new());
        }
        // Reading values is what brings them back from a device.
        let t = self.to_device(Device::Cpu)?.to_dtype(T::DTYPE)?.contiguous()?;
        t.with_slice::<T, _>("to_vec", |s, l| cpu::buffer::copied(&s[l.offset..l.offset + l.numel()]))?
    }

    /// The single element of a one-element tensor.
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::Runtime(format!("a Tensor with {} elements cannot be converted to Scalar", self.numel())));
        }
        let host = self.to_device(Device::Cpu)?;
        let dt = self.dtype();
        let off = host.storage_offset();
        Ok(crate::with_dtype!(dt, T => host.with_slice::<T, _>("item", |s, _| {
            let v = s[off];
            if dt == DType::Bool {
                Scalar::Bool(v.is_nonzero())
            } else if dt.is_floating_point() {
                Scalar::Float(v.to_f64())
            } else {
                Scalar::Int(v.to_i64())
            }
        })?))
    }
}

/// Checks that a contiguous output of `shape` and `dtype` has a byte size PyTorch can express,
/// with its overflow error naming the shape (a broadcast or expanded input can ask for far more
/// elements than any storage holds). The memory itself is asked for by the kernel, through
/// `cpu::buffer`, whose failure is the allocator's error.
pub(crate) fn check_alloc(shape: &[usize], dtype: DType) -> Result<()> {
    shape::checked_bytes(shape, dtype.size_in_bytes()).map(|_| ())
}
