//! What every entry point of the kernels starts from: an array's context and buffer, the
//! context of a device, a fresh contiguous output, an array as a kernel view, dense and
//! converted copies, and the float dtype check the float kernels share.

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{dtype_not_on_device, Storage};

use super::context::Context;
use super::elementwise::View;
use super::storage::WgpuStorage;

/// The device and buffer of a wgpu array. The buffer handle is a cheap clone, so no storage
/// lock is held while kernels are recorded (operands may share one storage).
pub(super) fn buffer_of(t: &Array, op: &str) -> Result<(&'static Context, wgpu::Buffer)> {
    let st = t.storage().read();
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
pub(super) fn output(ctx: &'static Context, shape: &[usize], dtype: DType) -> Result<(Array, wgpu::Buffer)> {
    let layout = Layout::contiguous(shape.to_vec())?;
    let s = WgpuStorage::new(ctx, dtype, layout.numel())?;
    let buf = s.buffer().clone();
    Ok((Array::new(Storage::Wgpu(s), layout), buf))
}

/// `x` converted to `dtype` in a fresh contiguous array (`x` itself when already so).
pub(super) fn dense_as(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype && x.is_contiguous() {
        return Ok(x.clone());
    }
    copied_as(x, dtype)
}

/// `x` converted to `dtype` in new contiguous storage of its own.
pub(super) fn copied_as(x: &Array, dtype: DType) -> Result<Array> {
    let (ctx, xb) = buffer_of(x, "copy")?;
    let (out, ob) = output(ctx, x.shape(), dtype)?;
    if x.dtype() != dtype && (x.dtype() == DType::F64 || dtype == DType::F64) {
        ctx.require_f64(&format!("to({})", dtype.name()))?;
    }
    super::elementwise::copy(ctx, view(x, &xb), view(&out, &ob))?;
    Ok(out)
}

/// `x` in a fresh contiguous array (`x` itself when already so).
pub(super) fn dense(x: &Array) -> Result<Array> {
    dense_as(x, x.dtype())
}

/// `t` as the kernels read it from `buffer`.
pub(super) fn view<'a>(t: &'a Array, buffer: &'a wgpu::Buffer) -> View<'a> {
    View { buffer, dtype: t.dtype(), layout: t.layout() }
}

/// The float kernels (pooling, col2im, nll_loss) compute in float32 or float64.
pub(super) fn require_float(t: &Array, op: &str) -> Result<()> {
    if !matches!(t.dtype(), DType::F32 | DType::F64) {
        return Err(dtype_not_on_device(op, t.dtype(), t.device()));
    }
    Ok(())
}
