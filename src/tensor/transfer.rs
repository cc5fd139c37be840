//! Moving tensors between devices (`to(device)`, `cpu()`), and factories that allocate on a
//! device directly.

use crate::autograd::{record, GradMode, Op};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::{CpuStorage, Storage};
use crate::tensor::{Scalar, Tensor};

impl Tensor {
    /// Self when already on `device`, else a copy there; differentiable (the gradient moves
    /// back), like PyTorch's `to`.
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let out = {
            let _raw = GradMode::disabled();
            self.to_device_raw(device)?
        };
        record(Op::ToDevice { from: self.device() }, &[self], &[&out], &[], &[]);
        Ok(out)
    }

    fn to_device_raw(&self, device: Device) -> Result<Tensor> {
        let host = self.to_host()?;
        if device == Device::Cpu {
            return Ok(host);
        }
        // Uploads copy dense elements; views are made dense on the host first.
        let host = host.contiguous()?;
        let storage = {
            let st = host.storage_cell().read();
            let cpu = st.cpu("to")?;
            let size = host.element_size();
            // An empty view may sit past the end of its storage: it uploads nothing.
            let start = if host.numel() == 0 { 0 } else { host.storage_offset() * size };
            let bytes = &cpu.as_bytes()[start..][..host.numel() * size];
            crate::dispatch::of(device).upload(device, bytes, host.dtype())?
        };
        Ok(Tensor::from_storage(storage, Layout::contiguous(host.shape().to_vec())?))
    }

    /// The tensor's values in host memory (self when already there). A dense view is read as
    /// one range; any other view reads the storage range it spans and keeps its strides.
    fn to_host(&self) -> Result<Tensor> {
        if self.device() == Device::Cpu {
            return Ok(self.clone());
        }
        let l = self.layout();
        let (start, layout) = if l.is_contiguous() {
            (l.offset, Layout::contiguous(l.shape.clone())?)
        } else {
            (l.offset, Layout { offset: 0, ..l.clone() })
        };
        let len = if self.numel() == 0 { 0 } else { layout.storage_extent()? };
        let mut host = CpuStorage::zeros(self.dtype(), len)?;
        self.backend().download(self.array(), start, host.as_bytes_mut())?;
        Ok(Tensor::from_storage(Storage::Cpu(host), layout))
    }

    /// An uninitialised tensor on `device` (zeros on the CPU).
    pub fn empty_on(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        Tensor::alloc_on(shape, dtype, device, false)
    }

    pub fn zeros_on(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        Tensor::alloc_on(shape, dtype, device, true)
    }

    fn alloc_on(shape: &[usize], dtype: DType, device: Device, zeroed: bool) -> Result<Tensor> {
        let layout = Layout::contiguous(shape.to_vec())?;
        crate::tensor::check_alloc(shape, dtype)?;
        let storage = crate::dispatch::of(device).alloc(device, dtype, layout.numel(), zeroed)?;
        Ok(Tensor::from_storage(storage, layout))
    }

    pub fn full_on(shape: &[usize], value: Scalar, dtype: DType, device: Device) -> Result<Tensor> {
        Tensor::full(shape, value, dtype)?.to_device(device)
    }
}
