//! The tensor: a strided view over shared storage. Cheap to clone (an `Arc`).

pub mod arith;
pub mod conv;
pub mod convolution;
mod creation;
mod einsum;
pub mod float_class;
pub mod index;
pub mod loss;
mod matmul;
pub(crate) mod norm;
pub mod pool;
mod reduce;
pub mod scalar_check;
mod shape_ops;
pub(crate) mod strided;
mod transfer;
mod unary;
mod view;

pub use crate::ops::binary::BinaryOp;
pub use crate::ops::reduce::ReduceOp;
pub use crate::scalar::Scalar;
pub use unary::UnaryOp;

use std::sync::{Arc, Mutex};

use crate::autograd::{self, GradMode, Op};
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
    /// Autograd state, allocated the first time a tensor takes part in autograd.
    pub(crate) autograd: Mutex<Option<Box<crate::autograd::meta::AutogradMeta>>>,
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
        let inference = autograd::grad_mode::is_inference_mode();
        Tensor(Arc::new(TensorImpl { array: Array::from_parts(storage, layout, dtype), inference, autograd: Mutex::new(None) }))
    }

    /// A tensor of a backend's result.
    pub fn from_array(array: Array) -> Tensor {
        let inference = autograd::grad_mode::is_inference_mode();
        Tensor(Arc::new(TensorImpl { array, inference, autograd: Mutex::new(None) }))
    }

    /// The values, as backends take them.
    pub fn array(&self) -> &Array {
        &self.0.array
    }

    /// The backend of the tensor's device.
    pub fn backend(&self) -> &'static dyn Backend {
        crate::backend::of(self.device())
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
        let inference = self.0.inference || autograd::grad_mode::is_inference_mode();
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

    /// Whether nothing but this handle sees the tensor and its storage.
    pub fn is_exclusive(&self) -> bool {
        Arc::strong_count(&self.0) == 1 && Arc::strong_count(self.0.array.storage()) == 1
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

    // ----- copies and conversions -----------------------------------------------------------

    /// Self if already contiguous, else a contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.copy_as(self.dtype())
    }

    /// A new contiguous tensor with the same values, converted to `dtype`.
    pub fn copy_as(&self, dtype: DType) -> Result<Tensor> {
        check_alloc(self.shape(), dtype)?;
        let src = self.dtype();
        let out = Tensor::from_array(self.backend().copy_as(self.array(), dtype)?);
        if src == dtype {
            autograd::record(Op::View { kind: "CloneBackward0" }, &[self], &[&out], &[], &[]);
        } else {
            autograd::record(Op::Copy { from: src }, &[self], &[&out], &[], &[]);
        }
        Ok(out)
    }

    /// Self when the dtype matches, else a converted copy.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        self.copy_as(dtype)
    }

    /// `copy_(src)`: writes `src` (broadcast to self's shape, converted to self's dtype) into
    /// self in place; its node (CopyBackwards, or CopySlices through a view) passes gradients
    /// to `src` and, for what was not overwritten, to self's earlier history.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        if self.same(src) {
            // Copying a tensor onto itself changes nothing (and is allowed even when expanded).
            return Ok(());
        }
        self.check_no_overlap()?;
        self.write_(src, autograd::Written::Copy)
    }

    /// Writes the result of an in-place op (computed out of place) into self: self's history
    /// becomes the result's.
    pub(crate) fn assign_(&self, result: &Tensor) -> Result<()> {
        self.check_no_overlap()?;
        self.write_(result, autograd::Written::Result)
    }

    /// `assign_` for the in-place ops PyTorch lets write through overlapping views (masked_fill_,
    /// where every element is given one value whichever of its positions is read).
    pub(crate) fn assign_overlapping_(&self, result: &Tensor) -> Result<()> {
        self.write_(result, autograd::Written::Result)
    }

    /// PyTorch's error for an in-place write or copy into a view whose positions share storage
    /// elements (fill_, zero_ and indexed writes of numbers are allowed there).
    fn check_no_overlap(&self) -> Result<()> {
        if self.layout().has_internal_overlap() {
            return Err(Error::Runtime(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
            ));
        }
        Ok(())
    }

    fn write_(&self, src: &Tensor, written: autograd::Written) -> Result<()> {
        let tracked = self.check_inplace(src)?;
        // An op's result written over its own input: its node must not keep the input as it was.
        let result = tracked && matches!(written, autograd::Written::Result);
        let keep_result = if result { autograd::op::before_inplace_write(self, src)? } else { false };
        {
            let _raw = GradMode::disabled();
            self.copy_raw(src)?;
        }
        if tracked {
            if result {
                autograd::op::after_inplace_write(self, src, keep_result);
            }
            self.rebase_history(None, src, written)?;
        }
        Ok(())
    }

    /// `fill_(value)`: a number, or a zero-dim tensor (which then gets a gradient).
    pub fn fill_(&self, value: arith::Arg) -> Result<()> {
        match value {
            arith::Arg::S(s) => {
                let s = s.checked_for(self.dtype(), scalar_check::Spelling::Cpp)?;
                self.fill_named(&Tensor::scalar_tensor(s, self.dtype())?, "FillBackward2")
            }
            arith::Arg::T(t) => {
                if t.ndim() != 0 {
                    return Err(Error::Runtime(format!(
                        "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                        t.ndim()
                    )));
                }
                self.fill_named(t, "FillBackward3")
            }
        }
    }

    pub fn zero_(&self) -> Result<()> {
        self.fill_named(&Tensor::zeros(&[], self.dtype())?, "ZeroBackward0")
    }

    /// Writes the zero-dim `value` everywhere. A tensor with history gets a node `kind` of its
    /// own (PyTorch's ZeroBackward0 / FillBackward2 / FillBackward3) over that history; a view
    /// writes through its base as `copy_` does.
    fn fill_named(&self, value: &Tensor, kind: &'static str) -> Result<()> {
        let tracked = self.check_inplace(value)?;
        let through_view = self.view_base().is_some_and(|b| b.shares_storage(self));
        if !tracked {
            return self.write_(value, autograd::Written::Copy);
        }
        if through_view {
            // Written through the base, which lists no number written.
            {
                let _raw = GradMode::disabled();
                self.copy_raw(value)?;
            }
            let written = if kind == "FillBackward3" { autograd::Written::Copy } else { autograd::Written::Number };
            return self.rebase_history(None, value, written);
        }
        // The values before the write, with their history, become the node's first input.
        let before = self.detach();
        if let Some(f) = self.grad_fn() {
            before.set_grad_fn(f, self.output_nr());
        }
        {
            let _raw = GradMode::disabled();
            self.write_(value, autograd::Written::Copy)?;
        }
        let inputs: Vec<&Tensor> = if kind == "FillBackward3" { vec![&before, value] } else { vec![&before] };
        autograd::record(Op::Fill { kind }, &inputs, &[self], &[], &[]);
        Ok(())
    }

    fn copy_raw(&self, src: &Tensor) -> Result<()> {
        let shape = shape::broadcast_shapes(self.shape(), src.shape())?;
        if shape != self.shape() {
            return Err(Error::Runtime(format!("output with shape {:?} doesn't match the broadcast shape {:?}", self.shape(), shape)));
        }
        // Reading and writing one storage at once would need two locks on it: go through a copy.
        let src = if self.shares_storage(src) { src.copy_as(src.dtype())? } else { src.clone() };
        // A copy between devices moves the data first (converted where it is cheapest: before
        // an upload, after a download).
        let src = match (src.device(), self.device()) {
            (a, b) if a == b => src.to_dtype(self.dtype())?,
            (Device::Cpu, b) => src.to_dtype(self.dtype())?.to_device(b)?,
            (_, b) => src.to_device(b)?.to_dtype(self.dtype())?,
        };
        self.backend().copy(&src.array().broadcast_to(self.shape()), self.array())
    }
}

/// Checks that a contiguous output of `shape` and `dtype` has a byte size PyTorch can express,
/// with its overflow error naming the shape (a broadcast or expanded input can ask for far more
/// elements than any storage holds). The memory itself is asked for by the kernel, through
/// `cpu::buffer`, whose failure is the allocator's error.
pub(crate) fn check_alloc(shape: &[usize], dtype: DType) -> Result<()> {
    shape::checked_bytes(shape, dtype.size_in_bytes()).map(|_| ())
}
