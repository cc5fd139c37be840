//! Tensor storage: one enum variant per backend, shared by every view of the same data.

use std::any::Any;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::wgpu::storage::WgpuStorage;

/// Host memory holding elements of one dtype. The bytes are either a Rust `Vec` this storage owns
/// or memory lent by another object (a NumPy array) that `owner` keeps alive.
pub struct CpuStorage {
    ptr: NonNull<u8>,
    len: usize,
    dtype: DType,
    _owner: Box<dyn Any + Send + Sync>,
}

// SAFETY: the pointer is either into the `Vec` held by `_owner` or into memory whose owner is
// `Send + Sync`; access goes through the `RwLock` of `StorageCell`.
unsafe impl Send for CpuStorage {}
unsafe impl Sync for CpuStorage {}

impl CpuStorage {
    pub fn from_vec<T: Element>(mut v: Vec<T>) -> CpuStorage {
        let len = v.len();
        // The Vec's heap buffer does not move when the Vec is boxed.
        let ptr = NonNull::new(v.as_mut_ptr() as *mut u8).unwrap_or(NonNull::dangling());
        CpuStorage { ptr, len, dtype: T::DTYPE, _owner: Box::new(v) }
    }

    /// `len` zeros, or the allocator error when they cannot be had.
    pub fn zeros(dtype: DType, len: usize) -> Result<CpuStorage> {
        Ok(crate::with_dtype!(dtype, T => CpuStorage::from_vec(crate::cpu::buffer::filled(len, <T as Element>::zero())?)))
    }

    /// Wraps memory owned by `owner`.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` elements of `dtype`, suitably aligned,
    /// for as long as `owner` lives.
    pub unsafe fn from_external(ptr: *mut u8, len: usize, dtype: DType, owner: Box<dyn Any + Send + Sync>) -> CpuStorage {
        let ptr = NonNull::new(ptr).unwrap_or(NonNull::dangling());
        CpuStorage { ptr, len, dtype, _owner: owner }
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Length in elements.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    pub fn as_slice<T: Element>(&self) -> &[T] {
        assert_eq!(T::DTYPE, self.dtype, "storage accessed with the wrong element type");
        // SAFETY: checked dtype; the constructor's contract gives validity and alignment.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr() as *const T, self.len) }
    }

    pub fn as_mut_slice<T: Element>(&mut self) -> &mut [T] {
        assert_eq!(T::DTYPE, self.dtype, "storage accessed with the wrong element type");
        // SAFETY: as above, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr() as *mut T, self.len) }
    }

    /// The raw bytes of all elements (what device transfers copy).
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: `len` elements of `dtype` are valid for reads; any byte pattern is a valid u8.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len * self.dtype.size_in_bytes()) }
    }

    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` is exclusive. Writers only store bytes that came
        // from elements of the same dtype (a device copy), so every element stays valid (bool
        // included).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len * self.dtype.size_in_bytes()) }
    }
}

/// The backends. Every op matches on this once. Without the `wgpu` feature `WgpuStorage` is an
/// empty enum, so the `Wgpu` arms compile but can never run.
pub enum Storage {
    Cpu(CpuStorage),
    Wgpu(WgpuStorage),
}

impl Storage {
    pub fn dtype(&self) -> DType {
        match self {
            Storage::Cpu(s) => s.dtype(),
            Storage::Wgpu(s) => s.dtype(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Storage::Cpu(s) => s.len(),
            Storage::Wgpu(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn device(&self) -> Device {
        match self {
            Storage::Cpu(_) => Device::Cpu,
            Storage::Wgpu(s) => s.device(),
        }
    }

    /// The CPU elements, for a kernel that exists only on the CPU: `op` names it in the error
    /// raised for tensors on another device.
    pub fn cpu(&self, op: &str) -> Result<&CpuStorage> {
        match self {
            Storage::Cpu(s) => Ok(s),
            Storage::Wgpu(s) => Err(not_on_device(op, s.device())),
        }
    }

    pub fn cpu_mut(&mut self, op: &str) -> Result<&mut CpuStorage> {
        match self {
            Storage::Cpu(s) => Ok(s),
            Storage::Wgpu(s) => Err(not_on_device(op, s.device())),
        }
    }

    pub fn wgpu(&self) -> Option<&WgpuStorage> {
        match self {
            Storage::Wgpu(s) => Some(s),
            Storage::Cpu(_) => None,
        }
    }
}

/// The error for an op with no kernel on `device` yet: never a silent trip through the CPU.
pub fn not_on_device(op: &str, device: Device) -> Error {
    Error::NotImplemented(format!(
        "Could not run '{op}' with arguments from the '{}' backend: rstorch has no {} kernel for it yet. Move the tensors to the CPU with .cpu() to run it there.",
        device.type_name(),
        device.type_name()
    ))
}

/// The same for an op whose kernel on `device` lacks `dtype`.
pub fn dtype_not_on_device(op: &str, dtype: DType, device: Device) -> Error {
    Error::NotImplemented(format!(
        "Could not run '{op}' on {} tensors with the '{}' backend: rstorch has no {} kernel for that dtype yet. Move the tensors to the CPU with .cpu() to run it there.",
        dtype.name(),
        device.type_name(),
        device.type_name()
    ))
}

/// Storage shared by views, with the version counter that in-place ops bump (autograd checks it
/// to detect saved tensors that changed).
pub struct StorageCell {
    data: RwLock<Storage>,
    version: AtomicU64,
    /// Fixed for the storage's life, so reading it takes no lock.
    device: Device,
}

impl StorageCell {
    pub fn new(storage: Storage) -> StorageCell {
        let device = storage.device();
        StorageCell { data: RwLock::new(storage), version: AtomicU64::new(0), device }
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// The length in elements, or None while a writer holds the storage (for checks that must
    /// never wait).
    pub fn try_len(&self) -> Option<usize> {
        match self.data.try_read() {
            Ok(s) => Some(s.len()),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner().len()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Storage> {
        // A poisoned lock only means a panic elsewhere was caught; the data is still valid.
        self.data.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Write access. Callers never hold a read guard of the same cell while asking for it:
    /// in-place ops whose operands share storage compute into a temporary first.
    pub fn write(&self) -> RwLockWriteGuard<'_, Storage> {
        self.data.write().unwrap_or_else(|e| e.into_inner())
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Relaxed)
    }

    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::Relaxed);
    }
}

pub(crate) fn dtype_error(expected: DType, found: DType) -> Error {
    Error::DTypeMismatch { expected: expected.name(), found: found.name() }
}
