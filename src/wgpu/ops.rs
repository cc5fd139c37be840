//! Tensor-level entry points of the wgpu kernels: the tensor layer calls these once it has found
//! its operands on a wgpu device; they check dtypes, allocate outputs and record the launches.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{dtype_not_on_device, not_on_device, Storage};
use crate::tensor::{BinaryOp, ReduceOp, Tensor, UnaryOp};

use super::context::Context;
use super::elementwise::{self, binary_code, unary_code, Input};
use super::matmul::Mat;
use super::reduce::reduce_code;
use super::storage::WgpuStorage;

/// The device and buffer of a wgpu tensor. The buffer handle is a cheap clone, so no storage
/// lock is held while kernels are recorded (operands may share one storage).
fn buffer_of(t: &Tensor, op: &str) -> Result<(&'static Context, wgpu::Buffer)> {
    let st = t.storage_cell().read();
    match &*st {
        Storage::Wgpu(s) => Ok((s.ctx(), s.buffer().clone())),
        Storage::Cpu(_) => Err(Error::Runtime(format!("{op}: expected a wgpu tensor"))),
    }
}

fn require_f32(t: &Tensor, op: &str) -> Result<()> {
    if t.dtype() != DType::F32 {
        return Err(dtype_not_on_device(op, t.dtype(), t.device()));
    }
    Ok(())
}

/// A fresh contiguous output on `ctx`'s device.
fn output(ctx: &'static Context, shape: &[usize], dtype: DType) -> Result<(Tensor, wgpu::Buffer)> {
    let layout = Layout::contiguous(shape.to_vec())?;
    let s = WgpuStorage::new(ctx, dtype, layout.numel())?;
    let buf = s.buffer().clone();
    Ok((Tensor::from_storage(Storage::Wgpu(s), layout), buf))
}

pub fn unary(x: &Tensor, op: UnaryOp) -> Result<Tensor> {
    let name = op.name();
    let code = unary_code(op).ok_or_else(|| not_on_device(name, x.device()))?;
    require_f32(x, name)?;
    let (ctx, xb) = buffer_of(x, name)?;
    let (out, ob) = output(ctx, x.shape(), DType::F32)?;
    elementwise::unary(ctx, code, (&xb, x.layout()), (&ob, out.layout()))?;
    Ok(out)
}

/// A binary operand: a wgpu tensor already broadcast (by its layout) to the output's shape, or
/// a number.
pub enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(f64),
}

/// `a op b` into a new float32 tensor of `shape` on `device`.
pub fn binary(op: BinaryOp, a: Operand<'_>, b: Operand<'_>, shape: &[usize], device: crate::Device) -> Result<Tensor> {
    let name = op.name();
    let code = binary_code(op).ok_or_else(|| not_on_device(name, device))?;
    let ordinal = match device {
        crate::Device::Wgpu(i) => i,
        crate::Device::Cpu => return Err(Error::Runtime(format!("{name}: expected a wgpu device"))),
    };
    let ctx = super::context::context(ordinal)?;
    // Buffers of the tensor operands, taken before the output is allocated.
    let held = |x: &Operand<'_>| -> Result<Option<wgpu::Buffer>> {
        match x {
            Operand::Tensor(t) => {
                require_f32(t, name)?;
                Ok(Some(buffer_of(t, name)?.1))
            }
            Operand::Scalar(_) => Ok(None),
        }
    };
    let (ha, hb) = (held(&a)?, held(&b)?);
    fn input<'b>(x: &'b Operand<'_>, held: &'b Option<wgpu::Buffer>) -> Input<'b> {
        match (x, held) {
            (Operand::Tensor(t), Some(buf)) => Input::Buffer(buf, t.layout()),
            (Operand::Scalar(v), _) => Input::Scalar(*v as f32),
            (Operand::Tensor(_), None) => unreachable!("tensor operands hold a buffer"),
        }
    }
    let (out, ob) = output(ctx, shape, DType::F32)?;
    let (ia, ib) = (input(&a, &ha), input(&b, &hb));
    elementwise::binary(ctx, code, ia, ib, (&ob, out.layout()))?;
    Ok(out)
}

/// Writes `src` (same shape, dtype and device) into `dst` through both layouts.
pub fn copy_strided(src: &Tensor, dst: &Tensor) -> Result<()> {
    let words = match dst.dtype().size_in_bytes() {
        4 => 1,
        8 => 2,
        _ => return Err(dtype_not_on_device("copy_", dst.dtype(), dst.device())),
    };
    if src.dtype() != dst.dtype() || src.device() != dst.device() || src.shape() != dst.shape() {
        return Err(Error::Runtime("wgpu copy: operands differ in dtype, device or shape".into()));
    }
    let (ctx, sb) = buffer_of(src, "copy")?;
    let (_, db) = buffer_of(dst, "copy")?;
    elementwise::copy(ctx, words, (&sb, src.layout()), (&db, dst.layout()))
}

/// `op` over `rdims` of `x`, into a new tensor of `out_shape` (the kept dims, in order).
pub fn reduce(x: &Tensor, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Tensor> {
    let name = op.name();
    let code = reduce_code(op).ok_or_else(|| not_on_device(name, x.device()))?;
    require_f32(x, name)?;
    let (ctx, xb) = buffer_of(x, name)?;
    let (out, ob) = output(ctx, out_shape, DType::F32)?;
    super::reduce::reduce(ctx, code, (&xb, x.layout()), rdims, &ob)?;
    Ok(out)
}

/// `a @ b` for `[.., m, k]` and `[.., k, n]` float32 tensors with equal batch shapes.
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    require_f32(a, "matmul")?;
    require_f32(b, "matmul")?;
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let batch_shape = &a.shape()[..nd - 2];
    let batches: usize = batch_shape.iter().product();
    // The kernel takes one batch stride per operand: merge the batch dims, or copy operands
    // whose batch dims do not merge.
    let (merged, strides) = super::strided::coalesce(batch_shape, &[&a.strides()[..nd - 2], &b.strides()[..nd - 2]]);
    if merged.len() > 1 {
        return matmul(&a.contiguous()?, &b.contiguous()?);
    }
    let batch_stride = |i: usize| strides[i].first().copied().unwrap_or(0);
    let (ctx, ab) = buffer_of(a, "matmul")?;
    let (_, bb) = buffer_of(b, "matmul")?;
    let mut out_shape = batch_shape.to_vec();
    out_shape.extend([m, n]);
    let (out, ob) = output(ctx, &out_shape, DType::F32)?;
    let mat = |t: &Tensor, buffer, bs| Mat {
        buffer,
        offset: t.storage_offset(),
        batch_stride: bs,
        row_stride: t.strides()[nd - 2],
        col_stride: t.strides()[nd - 1],
    };
    let (ma, mb) = (mat(a, &ab, batch_stride(0)), mat(b, &bb, batch_stride(1)));
    let max = ctx.limits.max_compute_workgroups_per_dimension as usize;
    if m.div_ceil(64) > max || n.div_ceil(64) > max {
        return Err(Error::NotImplemented(format!("wgpu matmul of {m}x{k} by {k}x{n}: the output is too large for one grid")));
    }
    super::matmul::matmul(ctx, &ma, &mb, batches, (m, k, n), &ob)?;
    Ok(out)
}
