//! Launcher of `shaders/softmax.wgsl`: softmax and log_softmax of float32 or float64 rows and
//! their input gradients, each fused (one workgroup per row, deterministic reductions).

use bytemuck::{Pod, Zeroable};

use crate::dtype::DType;
use crate::error::Result;

use super::batch::{grid, Launch};
use super::context::Context;
use super::float_shaders::{float_shaders, FloatShaders};
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
pub(crate) fn softmax(
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
pub(crate) fn softmax_backward(
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
