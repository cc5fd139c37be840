//! Launcher of `shaders/norm.wgsl`: fused float32 layer norm and batch norm, forward and backward.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;

use super::batch::{grid, Launch};
use super::context::{Context, Shader};
use super::strided::u32_of;

// One source, two bind group shapes: the per row kernels do not bind `extra`.
static ROWS: Shader = Shader { name: "norm_rows", source: concat!(include_str!("shaders/norm.wgsl"), include_str!("shaders/workgroup_sum.wgsl")), storage: &[true, true, true, false, false, false, false] };
static CHANNELS: Shader = Shader { name: "norm_channels", source: concat!(include_str!("shaders/norm.wgsl"), include_str!("shaders/workgroup_sum.wgsl")), storage: &[true, true, true, false, false, false, false, true] };

const WEIGHT: u32 = 1;
const BIAS: u32 = 2;
const WANT_DX: u32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    rows: u32,
    cols: u32,
    batch: u32,
    flags: u32,
    off_x: u32,
    off_g: u32,
    off_w: u32,
    off_b: u32,
    eps: f32,
    pad: [u32; 3],
}

/// A float32 operand: its buffer and the element its contiguous data starts at.
pub(crate) type Operand<'a> = (&'a wgpu::Buffer, usize);

/// The statistics buffers of a norm: per row or channel mean and reciprocal standard deviation
/// (contiguous from element 0).
pub(crate) struct Stats<'a> {
    pub mean: &'a wgpu::Buffer,
    pub rstd: &'a wgpu::Buffer,
}

/// The parameters of a launch; `x` also stands in for a missing weight, bias or gradient (the
/// flags tell the kernel not to read them).
#[allow(clippy::too_many_arguments)]
fn params(rows: usize, cols: usize, batch: usize, x: Operand<'_>, g: Option<Operand<'_>>, w: Option<Operand<'_>>, b: Option<Operand<'_>>, eps: f64) -> Result<Params> {
    let flags = if w.is_some() { WEIGHT } else { 0 } | if b.is_some() { BIAS } else { 0 };
    let off = |o: Option<Operand<'_>>| u32_of(o.map_or(0, |o| o.1));
    Ok(Params {
        rows: u32_of(rows)?,
        cols: u32_of(cols)?,
        batch: u32_of(batch)?,
        flags,
        off_x: u32_of(x.1)?,
        off_g: off(g)?,
        off_w: off(w)?,
        off_b: off(b)?,
        eps: eps as f32,
        pad: [0; 3],
    })
}

/// Layer norm of `rows` contiguous rows of `cols` float32 elements: `out` (laid out as x) and
/// each row's mean and rstd into `stats`; `w` and `b` hold `cols` elements each when given.
#[allow(clippy::too_many_arguments)]
pub(crate) fn layer_norm(ctx: &Context, x: Operand<'_>, w: Option<Operand<'_>>, b: Option<Operand<'_>>, (rows, cols): (usize, usize), eps: f64, out: &wgpu::Buffer, stats: Stats<'_>) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let p = params(rows, cols, 1, x, None, w, b, eps)?;
    ctx.launch(Launch {
        shader: &ROWS,
        entry: "layer_norm",
        op: None,
        params: bytemuck::bytes_of(&p),
        buffers: &[out, stats.mean, stats.rstd, x.0, w.unwrap_or(x).0, b.unwrap_or(x).0, x.0],
        groups: grid(u32_of(rows)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// The input gradient of a layer norm from x, the output gradient `g` (laid out as x), the
/// weight when given and the forward's `stats`, into `out` (laid out as x).
#[allow(clippy::too_many_arguments)]
pub(crate) fn layer_norm_backward(ctx: &Context, x: Operand<'_>, g: Operand<'_>, w: Option<Operand<'_>>, (rows, cols): (usize, usize), stats: Stats<'_>, out: &wgpu::Buffer) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let p = params(rows, cols, 1, x, Some(g), w, None, 0.0)?;
    ctx.launch(Launch {
        shader: &ROWS,
        entry: "layer_norm_backward",
        op: None,
        params: bytemuck::bytes_of(&p),
        buffers: &[out, stats.mean, stats.rstd, x.0, w.unwrap_or(x).0, x.0, g.0],
        groups: grid(u32_of(rows)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// Rows per chunk in the first step of a layer norm's weight and bias gradients: a constant, so
/// the order of their sums depends on the sizes only.
const ROW_CHUNK: usize = 32;

/// The chunks of rows the weight and bias gradients of a layer norm over `rows` rows sum first;
/// with more than one, the caller provides two buffers of `chunks * cols` partial sums.
pub(crate) fn param_grad_chunks(rows: usize) -> usize {
    rows.div_ceil(ROW_CHUNK).max(1)
}

/// The column sums of a layer norm's `g * xhat` and `g` (the weight's and the bias's
/// gradients) into `dw` and `db`, `cols` elements each, through `partials` (see
/// `param_grad_chunks`) for more than one chunk of rows.
#[allow(clippy::too_many_arguments)]
pub(crate) fn layer_norm_param_grads(
    ctx: &Context,
    x: Operand<'_>,
    g: Operand<'_>,
    (rows, cols): (usize, usize),
    stats: Stats<'_>,
    (dw, db): (&wgpu::Buffer, &wgpu::Buffer),
    partials: Option<(&wgpu::Buffer, &wgpu::Buffer)>,
) -> Result<()> {
    if cols == 0 {
        return Ok(());
    }
    let chunks = param_grad_chunks(rows);
    let tiles = cols.div_ceil(256);
    let max = ctx.limits.max_compute_workgroups_per_dimension;
    let mut p = params(rows, cols, ROW_CHUNK, x, Some(g), None, None, 0.0)?;
    let (first_w, first_b) = match (chunks, partials) {
        (1, _) => (dw, db),
        (_, Some(partials)) => partials,
        (_, None) => return Err(crate::error::Error::Runtime("layer_norm_backward: the weight's and bias's gradients need partial sums".into())),
    };
    u32_of(chunks * cols)?;
    ctx.launch(Launch {
        shader: &CHANNELS,
        entry: "layer_norm_param_grads",
        op: Some(0),
        params: bytemuck::bytes_of(&p),
        buffers: &[first_w, stats.mean, stats.rstd, x.0, x.0, x.0, g.0, first_b],
        groups: grid(u32_of(tiles * chunks)?, max),
    })?;
    if chunks == 1 {
        return Ok(());
    }
    // The second step reads the partials where the first read x and g.
    p.rows = u32_of(chunks)?;
    (p.off_x, p.off_g) = (0, 0);
    ctx.launch(Launch {
        shader: &CHANNELS,
        entry: "layer_norm_param_grads",
        op: Some(1),
        params: bytemuck::bytes_of(&p),
        buffers: &[dw, stats.mean, stats.rstd, first_w, x.0, x.0, first_b, db],
        groups: grid(u32_of(tiles)?, max),
    })
}

/// The shape of a batch norm input: `batch` images of `channels` planes of `plane` elements.
#[derive(Clone, Copy)]
pub(crate) struct Planes {
    pub batch: usize,
    pub channels: usize,
    pub plane: usize,
}

/// Batch norm of the contiguous float32 `x` into `out` (laid out as x). Training: the batch's
/// per channel mean, rstd and biased variance are written to `stats` and `var`. Otherwise
/// `stats.mean` and `var` must hold the running estimates, and rstd is written from them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_norm(ctx: &Context, training: bool, x: Operand<'_>, w: Option<Operand<'_>>, b: Option<Operand<'_>>, s: Planes, eps: f64, out: &wgpu::Buffer, stats: Stats<'_>, var: &wgpu::Buffer) -> Result<()> {
    if s.channels == 0 {
        return Ok(());
    }
    let p = params(s.channels, s.plane, s.batch, x, None, w, b, eps)?;
    ctx.launch(Launch {
        shader: &CHANNELS,
        entry: "batch_norm",
        op: Some(u32::from(!training)),
        params: bytemuck::bytes_of(&p),
        buffers: &[out, stats.mean, stats.rstd, x.0, w.unwrap_or(x).0, b.unwrap_or(x).0, x.0, var],
        groups: grid(u32_of(s.channels)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// The gradients of a batch norm: per channel the sums of `g * xhat` and of `g` into `sums`'
/// first and second `channels` elements, and when `dx` says so the input gradient into its
/// buffer (laid out as x; through the batch statistics when `training`). Without it the kernel
/// writes nothing there: any buffer but the others will do.
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_norm_backward(
    ctx: &Context,
    training: bool,
    x: Operand<'_>,
    g: Operand<'_>,
    w: Option<Operand<'_>>,
    s: Planes,
    stats: Stats<'_>,
    sums: &wgpu::Buffer,
    (dx, want_dx): (&wgpu::Buffer, bool),
) -> Result<()> {
    if s.channels == 0 {
        return Ok(());
    }
    u32_of(2 * s.channels)?;
    let mut p = params(s.channels, s.plane, s.batch, x, Some(g), w, None, 0.0)?;
    if want_dx {
        p.flags |= WANT_DX;
    }
    ctx.launch(Launch {
        shader: &CHANNELS,
        entry: "batch_norm_backward",
        op: Some(u32::from(!training)),
        params: bytemuck::bytes_of(&p),
        buffers: &[dx, stats.mean, stats.rstd, x.0, w.unwrap_or(x).0, x.0, g.0, sums],
        groups: grid(u32_of(s.channels)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}
