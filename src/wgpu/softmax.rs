//! Launcher of `shaders/softmax.wgsl`: softmax and log_softmax of float32 or float64 rows and
//! their input gradients, each fused (one workgroup per row, deterministic reductions).
//! Below them, the tensor-level entry points the tensor layer calls: they check dtypes, take
//! the operands' buffers, allocate the outputs and launch.

use bytemuck::{Pod, Zeroable};

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::dtype_not_on_device;

use super::batch::{grid, Launch};
use super::context::Context;
use super::float_shaders::{float_shaders, FloatShaders};
use super::operands::{buffer_of, dense, output};
use super::strided::u32_of;

static FORWARD: FloatShaders = float_shaders!("softmax", &[true, false], "softmax.wgsl");
// The same module with the output gradient bound too.
static BACKWARD: FloatShaders = float_shaders!("softmax_backward", &[true, false, false], "softmax.wgsl");

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    rows: u32,
    len: u32,
    inner: u32,
    off: u32,
    off_g: u32,
    pad: [u32; 3],
}

/// softmax (or with `log` log_softmax) of the contiguous `dtype` input at element `off` of `x`,
/// seen as `[outer, len, inner]` with `rows = outer * inner` rows of `len` elements, into the
/// contiguous `out` of the same layout.
fn launch_softmax(
    ctx: &Context,
    dtype: DType,
    log: bool,
    x: &wgpu::Buffer,
    off: usize,
    (rows, len, inner): (usize, usize, usize),
    out: &wgpu::Buffer,
) -> Result<()> {
    if rows == 0 || len == 0 {
        return Ok(());
    }
    let params = Params { rows: u32_of(rows)?, len: u32_of(len)?, inner: u32_of(inner)?, off: u32_of(off)?, off_g: 0, pad: [0; 3] };
    ctx.launch(Launch {
        shader: FORWARD.of(ctx, dtype, "softmax")?,
        entry: "softmax",
        op: Some(log as u32),
        params: bytemuck::bytes_of(&params),
        buffers: &[out, x],
        groups: grid(u32_of(rows)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// The input gradient of softmax (or with `log` log_softmax) from the contiguous `dtype` output
/// `y` (from element `y_off`) and output gradient `g` (from `g_off`), both laid out as
/// `softmax`'s input, into the contiguous `out` of that layout.
fn launch_softmax_backward(
    ctx: &Context,
    dtype: DType,
    log: bool,
    (y, y_off): (&wgpu::Buffer, usize),
    (g, g_off): (&wgpu::Buffer, usize),
    (rows, len, inner): (usize, usize, usize),
    out: &wgpu::Buffer,
) -> Result<()> {
    if rows == 0 || len == 0 {
        return Ok(());
    }
    let params =
        Params { rows: u32_of(rows)?, len: u32_of(len)?, inner: u32_of(inner)?, off: u32_of(y_off)?, off_g: u32_of(g_off)?, pad: [0; 3] };
    ctx.launch(Launch {
        shader: BACKWARD.of(ctx, dtype, "softmax_backward")?,
        entry: "softmax_backward",
        op: Some(log as u32),
        params: bytemuck::bytes_of(&params),
        buffers: &[out, y, g],
        groups: grid(u32_of(rows)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

// ----- Array-level entry points ---------------------------------------------------------

/// The rows of a softmax of `t` along `dim`, as the kernels take them: (rows, len, inner), each
/// row `len` elements `inner` apart.
fn softmax_rows(t: &Array, dim: usize) -> (usize, usize, usize) {
    let (len, inner) = match t.ndim() {
        0 => (1, 1),
        _ => (t.shape()[dim], t.shape()[dim + 1..].iter().product()),
    };
    (t.numel().checked_div(len).unwrap_or(0), len, inner)
}

/// softmax (or with `log` log_softmax) of the float32 or float64 `x` along `dim`, fused: a new
/// contiguous tensor of x's shape and dtype (a non-contiguous `x` is copied contiguous first).
pub fn softmax(x: &Array, dim: usize, log: bool) -> Result<Array> {
    let name = if log { "log_softmax" } else { "softmax" };
    if !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Err(dtype_not_on_device(name, x.dtype(), x.device()));
    }
    let x = dense(x)?;
    let (ctx, xb) = buffer_of(&x, name)?;
    let (out, ob) = output(ctx, x.shape(), x.dtype())?;
    launch_softmax(ctx, x.dtype(), log, &xb, x.storage_offset(), softmax_rows(&x, dim), &ob)?;
    Ok(out)
}

/// The input gradient of softmax (or with `log` log_softmax) along `dim` from its float32 or
/// float64 output `y` and output gradient `g` (same shape and dtype), fused: a new contiguous
/// tensor of y's shape (non-contiguous operands are copied contiguous first).
pub fn softmax_backward(g: &Array, y: &Array, dim: usize, log: bool) -> Result<Array> {
    let name = if log { "log_softmax_backward" } else { "softmax_backward" };
    if !matches!(y.dtype(), DType::F32 | DType::F64) || g.dtype() != y.dtype() {
        return Err(dtype_not_on_device(name, g.dtype(), y.device()));
    }
    if g.shape() != y.shape() {
        return Err(Error::Runtime(format!("{name}: the gradient's shape {:?} differs from the output's {:?}", g.shape(), y.shape())));
    }
    let y = dense(y)?;
    let g = dense(g)?;
    let (ctx, yb) = buffer_of(&y, name)?;
    let (_, gb) = buffer_of(&g, name)?;
    let (out, ob) = output(ctx, y.shape(), y.dtype())?;
    launch_softmax_backward(ctx, y.dtype(), log, (&yb, y.storage_offset()), (&gb, g.storage_offset()), softmax_rows(&y, dim), &ob)?;
    Ok(out)
}
