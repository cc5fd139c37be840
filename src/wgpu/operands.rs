//! What every tensor-level entry point of the kernels starts from: a wgpu tensor's context and
//! buffer, the context of a device, a fresh contiguous output, a tensor as a kernel view, and
//! the float dtype check the float kernels share.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{dtype_not_on_device, Storage};
use crate::tensor::Tensor;

use super::context::Context;
use super::elementwise::View;
use super::storage::WgpuStorage;

/// The device and buffer of a wgpu tensor. The buffer handle is a cheap clone, so no storage
/// lock is held while kernels are recorded (operands may share one storage).
pub(super) fn buffer_of(t: &Tensor, op: &str) -> Result<(&'static Context, wgpu::Buffer)> {
    let st = t.storage_cell().read();
    match &*st {
        Storage::Wgpu(s) => Ok((s.ctx(), s.buffer().clone())),
        Storage::Cpu(_) => Err(Error::Runtime(format!("{op}: expected a wgpu tensor"))),
    }
}

/// The context of a wgpu `device`.
pub(super) fn context_of(device: crate::Device, op: &str) -> Result<&'static Context> {
    match device {
        crate::Device::Wgpu(i) => super::context::context(i),
        crate::Device::Cpu => Err(Error::Runtime(format!("{op}: expected a wgpu device"))),
    }
}

/// A fresh contiguous output on `ctx`'s device.
pub(super) fn output(ctx: &'static Context, shape: &[usize], dtype: DType) -> Result<(Tensor, wgpu::Buffer)> {
    let layout = Layout::contiguous(shape.to_vec())?;
    let s = WgpuStorage::new(ctx, dtype, layout.numel())?;
    let buf = s.buffer().clone();
    Ok((Tensor::from_storage(Storage::Wgpu(s), layout), buf))
}

/// `t` as the kernels read it from `buffer`.
pub(super) fn view<'a>(t: &'a Tensor, buffer: &'a wgpu::Buffer) -> View<'a> {
    View { buffer, dtype: t.dtype(), layout: t.layout() }
}

/// The float kernels (pooling, col2im, nll_loss) compute in float32 or float64.
pub(super) fn require_float(t: &Tensor, op: &str) -> Result<()> {
    if !matches!(t.dtype(), DType::F32 | DType::F64) {
        return Err(dtype_not_on_device(op, t.dtype(), t.device()));
    }
    Ok(())
}
