//! `Array`: a strided view of storage and its dtype, without autograd. It is what a backend
//! computes on and hands back; the tensor layer wraps it into a `Tensor`.

use std::sync::Arc;

use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape;
use crate::storage::{CpuStorage, Storage, StorageCell};

#[derive(Clone)]
pub struct Array {
    storage: Arc<StorageCell>,
    layout: Layout,
    dtype: DType,
}

impl Array {
    pub(crate) fn from_parts(storage: Arc<StorageCell>, layout: Layout, dtype: DType) -> Array {
        Array { storage, layout, dtype }
    }

    /// A view of fresh `storage`.
    pub fn new(storage: Storage, layout: Layout) -> Array {
        let dtype = storage.dtype();
        Array { storage: Arc::new(StorageCell::new(storage)), layout, dtype }
    }

    /// Host memory owning `data`, laid out contiguously as `shape`.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Array> {
        let n = shape::numel(shape)?;
        if n != data.len() {
            return Err(Error::Runtime(format!("shape {shape:?} needs {n} elements but {} were given", data.len())));
        }
        Ok(Array::new(Storage::Cpu(CpuStorage::from_vec(data)), Layout::contiguous(shape.to_vec())?))
    }

    pub fn storage(&self) -> &Arc<StorageCell> {
        &self.storage
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }

    pub fn strides(&self) -> &[usize] {
        &self.layout.strides
    }

    /// In elements, from the start of the storage.
    pub fn storage_offset(&self) -> usize {
        self.layout.offset
    }

    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn device(&self) -> Device {
        self.storage.device()
    }

    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// Another view of the same storage.
    pub fn with_layout(&self, layout: Layout) -> Array {
        Array { storage: self.storage.clone(), layout, dtype: self.dtype }
    }

    /// This view broadcast (by zero strides) to `shape`.
    pub fn broadcast_to(&self, shape: &[usize]) -> Array {
        self.with_layout(self.layout.broadcast_to(shape))
    }

    /// `len` entries of `dim` from `start`.
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Result<Array> {
        Ok(self.with_layout(self.layout.narrow(dim, start, len)?))
    }

    /// The same elements viewed as `shape`, where strides allow it without a copy.
    pub fn view_as(&self, shape: &[usize]) -> Result<Array> {
        let strides = self
            .layout
            .view_strides(shape)
            .ok_or_else(|| Error::Runtime(format!("an array of shape {:?} cannot be viewed as {shape:?}", self.shape())))?;
        Ok(self.with_layout(Layout { shape: shape.to_vec(), strides, offset: self.layout.offset }))
    }

    /// Calls `f` with the host elements of the storage (as `T`, which must be the dtype) and
    /// the layout viewing them. `op` names the host-only kernel in the error for other devices.
    pub fn with_slice<T: Element, R>(&self, op: &str, f: impl FnOnce(&[T], &Layout) -> R) -> Result<R> {
        let st = self.storage.read();
        let cpu = st.cpu(op)?;
        if cpu.dtype() != T::DTYPE {
            return Err(crate::storage::dtype_error(T::DTYPE, cpu.dtype()));
        }
        Ok(f(cpu.as_slice::<T>(), &self.kernel_layout(cpu.len())))
    }

    /// Mutable access for in-place writes; bumps the version counter.
    pub fn with_slice_mut<T: Element, R>(&self, op: &str, f: impl FnOnce(&mut [T], &Layout) -> R) -> Result<R> {
        let mut st = self.storage.write();
        let cpu = st.cpu_mut(op)?;
        if cpu.dtype() != T::DTYPE {
            return Err(crate::storage::dtype_error(T::DTYPE, cpu.dtype()));
        }
        let layout = self.kernel_layout(cpu.len());
        let r = f(cpu.as_mut_slice::<T>(), &layout);
        self.storage.bump_version();
        Ok(r)
    }

    /// The layout kernels index the storage with. An empty view may sit past the end of its
    /// storage (`x[::4][2:]` of 5 elements has offset 8, as in PyTorch), and kernels slice the
    /// storage from the offset before they look at the count: theirs ends at the storage.
    fn kernel_layout(&self, storage_len: usize) -> std::borrow::Cow<'_, Layout> {
        let l = &self.layout;
        if l.offset > storage_len && l.numel() == 0 {
            std::borrow::Cow::Owned(Layout { offset: storage_len, ..l.clone() })
        } else {
            std::borrow::Cow::Borrowed(l)
        }
    }
}
