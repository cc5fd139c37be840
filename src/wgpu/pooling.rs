//! Launcher of `shaders/pooling.wgsl` and the tensor-level entry points of its kernels: max
//! pooling with its positions and its input gradient, and col2im (a convolution's input gradient
//! from its patch gradients), over float32 or float64 planes.

use bytemuck::{Pod, Zeroable};

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::pool_geometry::PoolGeom;

use super::batch::{grid, Launch};
use super::context::Context;
use super::float_shaders::{float_shaders, FloatShaders, Operand};
use super::operands::{buffer_of, dense, output, require_float};
use super::strided::u32_of;

// One source, two bind group shapes: col2im binds no positions.
static POOL: FloatShaders = float_shaders!("image_pool", &[true, false, true], "pooling.wgsl");
static COL2IM: FloatShaders = float_shaders!("image_col2im", &[true, false], "pooling.wgsl");

/// Invocations per workgroup (see the shader).
const WORKGROUP: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    planes: u32,
    h: u32,
    w: u32,
    oh: u32,
    ow: u32,
    kh: u32,
    kw: u32,
    sy: u32,
    sx: u32,
    py: u32,
    px: u32,
    dy: u32,
    dx: u32,
    off: u32,
    off_at: u32,
    pad: u32,
}

fn params(g: &PoolGeom, off: usize, off_at: usize) -> Result<Params> {
    Ok(Params {
        planes: u32_of(g.planes)?,
        h: u32_of(g.in_size[0])?,
        w: u32_of(g.in_size[1])?,
        oh: u32_of(g.out_size[0])?,
        ow: u32_of(g.out_size[1])?,
        kh: u32_of(g.kernel[0])?,
        kw: u32_of(g.kernel[1])?,
        sy: u32_of(g.stride[0])?,
        sx: u32_of(g.stride[1])?,
        py: u32_of(g.padding[0])?,
        px: u32_of(g.padding[1])?,
        dy: u32_of(g.dilation[0])?,
        dx: u32_of(g.dilation[1])?,
        off: u32_of(off)?,
        off_at: u32_of(off_at)?,
        pad: 0,
    })
}

/// One launch of `entry` writing `count` elements of `out`.
fn launch(
    ctx: &Context,
    shader: &'static super::shader::Shader,
    entry: &'static str,
    params: Params,
    count: usize,
    buffers: &[&wgpu::Buffer],
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    // Every index the shader forms stays below 2^32.
    u32_of(count)?;
    ctx.launch(Launch {
        shader,
        entry,
        op: None,
        params: bytemuck::bytes_of(&params),
        buffers,
        groups: grid(u32_of(count.div_ceil(WORKGROUP))?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// The window maxima of the contiguous `dtype` planes `x` into the contiguous `values`, and
/// their positions within each input plane into the contiguous int64 `positions` (from element
/// 0; both planes x oh x ow). Every window must reach into the input.
fn launch_max_pool2d(
    ctx: &Context,
    dtype: DType,
    (x, off): Operand<'_>,
    g: &PoolGeom,
    values: &wgpu::Buffer,
    positions: &wgpu::Buffer,
) -> Result<()> {
    let count = g.planes * g.out_size[0] * g.out_size[1];
    launch(ctx, POOL.of(ctx, dtype, "max_pool2d")?, "max_pool2d", params(g, off, 0)?, count, &[values, x, positions])
}

/// The input gradient of `max_pool2d` into the contiguous `out` (planes x h x w), from the
/// contiguous output gradient `grad` and the forward's contiguous `positions`.
fn launch_max_pool2d_backward(
    ctx: &Context,
    dtype: DType,
    (grad, off): Operand<'_>,
    (positions, off_at): Operand<'_>,
    g: &PoolGeom,
    out: &wgpu::Buffer,
) -> Result<()> {
    let count = g.planes * g.in_size[0] * g.in_size[1];
    launch(ctx, POOL.of(ctx, dtype, "max_pool2d_backward")?, "max_pool2d_backward", params(g, off, off_at)?, count, &[out, grad, positions])
}

/// The images (planes x h x w, contiguous `out`) whose patches of geometry `g` (a convolution's
/// taps are windows too) have the gradients `cols`, contiguous (planes, kh, kw, oh, ow).
fn launch_col2im(ctx: &Context, dtype: DType, (cols, off): Operand<'_>, g: &PoolGeom, out: &wgpu::Buffer) -> Result<()> {
    let count = g.planes * g.in_size[0] * g.in_size[1];
    launch(ctx, COL2IM.of(ctx, dtype, "convolution")?, "col2im", params(g, off, 0)?, count, &[out, cols])
}

// ----- Array-level entry points ---------------------------------------------------------

/// max_pool2d of the float32 or float64 planes of `x` (g.planes of them, each g.in_size) in
/// one kernel: the maxima and their int64 positions within each input plane, of `out_shape`.
pub fn max_pool2d(x: &Array, g: &PoolGeom, out_shape: &[usize]) -> Result<(Array, Array)> {
    require_float(x, "max_pool2d")?;
    let x = dense(x)?;
    let (ctx, xb) = buffer_of(&x, "max_pool2d")?;
    let (values, vb) = output(ctx, out_shape, x.dtype())?;
    let (positions, pb) = output(ctx, out_shape, DType::I64)?;
    launch_max_pool2d(ctx, x.dtype(), (&xb, x.storage_offset()), g, &vb, &pb)?;
    Ok((values, positions))
}

/// The input gradient, of `shape`, of max_pool2d from its output gradient `grad` and the
/// `positions` it returned: each input element sums the gradients of the windows it won.
pub fn max_pool2d_backward(grad: &Array, positions: &Array, g: &PoolGeom, shape: &[usize]) -> Result<Array> {
    require_float(grad, "max_pool2d_backward")?;
    let (grad, positions) = (dense(grad)?, dense(positions)?);
    let (ctx, gb) = buffer_of(&grad, "max_pool2d_backward")?;
    let (_, pb) = buffer_of(&positions, "max_pool2d_backward")?;
    let (out, ob) = output(ctx, shape, grad.dtype())?;
    launch_max_pool2d_backward(ctx, grad.dtype(), (&gb, grad.storage_offset()), (&pb, positions.storage_offset()), g, &ob)?;
    Ok(out)
}

/// The images, of `shape`, whose patches of geometry `g` have the gradients `cols` (float32 or
/// float64, (planes, kh, kw, oh, ow)): each element sums the gradients of the taps that read it.
pub fn col2im(cols: &Array, g: &PoolGeom, shape: &[usize]) -> Result<Array> {
    require_float(cols, "convolution")?;
    let cols = dense(cols)?;
    let (ctx, cb) = buffer_of(&cols, "convolution")?;
    let (out, ob) = output(ctx, shape, cols.dtype())?;
    launch_col2im(ctx, cols.dtype(), (&cb, cols.storage_offset()), g, &ob)?;
    Ok(out)
}
