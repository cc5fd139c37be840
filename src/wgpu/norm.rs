//! Launcher of `shaders/norm.wgsl`: fused float32 and float64 layer norm and batch norm,
//! forward and backward.
//! Below them, the tensor-level entry points the tensor layer calls: they check dtypes, take
//! the operands' buffers, allocate the outputs and launch.

use bytemuck::{Pod, Zeroable};

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::dtype_not_on_device;

use super::batch::{grid, Launch};
use super::context::Context;
use super::elementwise::scalar_bits;
use super::float_shaders::{float_shaders, FloatShaders, Operand};
use super::operands::{buffer_of, copied_as, dense, output};
use super::strided::u32_of;

// One source, two bind group shapes: the per row kernels do not bind `extra`.
static ROWS: FloatShaders = float_shaders!("norm_rows", &[true, true, true, false, false, false, false], "norm.wgsl");
static CHANNELS: FloatShaders = float_shaders!("norm_channels", &[true, true, true, false, false, false, false, true], "norm.wgsl");

const WEIGHT: u32 = 1;
const BIAS: u32 = 2;

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
    eps: [u32; 2],
    chunks: u32,
    chunk_len: u32,
}

/// The statistics buffers of a norm: per row or channel mean and reciprocal standard deviation
/// (contiguous from element 0).
pub(crate) struct Stats<'a> {
    pub mean: &'a wgpu::Buffer,
    pub rstd: &'a wgpu::Buffer,
}

/// The parameters of a launch computing in `dtype`; `x` also stands in for a missing weight,
/// bias or gradient (the flags tell the kernel not to read them).
#[allow(clippy::too_many_arguments)]
fn params(
    dtype: DType,
    rows: usize,
    cols: usize,
    batch: usize,
    x: Operand<'_>,
    g: Option<Operand<'_>>,
    w: Option<Operand<'_>>,
    b: Option<Operand<'_>>,
    eps: f64,
) -> Result<Params> {
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
        eps: scalar_bits(Scalar::Float(eps), dtype),
        chunks: 1,
        chunk_len: 0,
    })
}

/// Layer norm of `rows` contiguous rows of `cols` elements of `dtype`: `out` (laid out as x)
/// and each row's mean and rstd into `stats`; `w` and `b` hold `cols` elements each when given.
#[allow(clippy::too_many_arguments)]
fn launch_layer_norm(
    ctx: &Context,
    dtype: DType,
    x: Operand<'_>,
    w: Option<Operand<'_>>,
    b: Option<Operand<'_>>,
    (rows, cols): (usize, usize),
    eps: f64,
    out: &wgpu::Buffer,
    stats: Stats<'_>,
) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let p = params(dtype, rows, cols, 1, x, None, w, b, eps)?;
    ctx.launch(Launch {
        shader: ROWS.of(ctx, dtype, "layer_norm")?,
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
fn launch_layer_norm_backward(
    ctx: &Context,
    dtype: DType,
    x: Operand<'_>,
    g: Operand<'_>,
    w: Option<Operand<'_>>,
    (rows, cols): (usize, usize),
    stats: Stats<'_>,
    out: &wgpu::Buffer,
) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let p = params(dtype, rows, cols, 1, x, Some(g), w, None, 0.0)?;
    ctx.launch(Launch {
        shader: ROWS.of(ctx, dtype, "layer_norm_backward")?,
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
    dtype: DType,
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
    let shader = CHANNELS.of(ctx, dtype, "layer_norm_backward")?;
    let mut p = params(dtype, rows, cols, ROW_CHUNK, x, Some(g), None, None, 0.0)?;
    let (first_w, first_b) = match (chunks, partials) {
        (1, _) => (dw, db),
        (_, Some(partials)) => partials,
        (_, None) => {
            return Err(crate::error::Error::Runtime("layer_norm_backward: the weight's and bias's gradients need partial sums".into()))
        }
    };
    u32_of(chunks * cols)?;
    ctx.launch(Launch {
        shader,
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
        shader,
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

/// Elements of a channel one workgroup sums in the first step of a batch norm's statistics: a
/// constant, so the order of the sums depends on the sizes only.
const CHANNEL_CHUNK: usize = 2048;

impl Planes {
    /// The chunks each channel's elements are summed in.
    fn chunks(&self) -> usize {
        (self.batch * self.plane).div_ceil(CHANNEL_CHUNK).max(1)
    }

    /// Elements of the `extra` buffer a batch norm in training needs: the variance and the
    /// chunk sums.
    pub fn forward_extra(&self) -> usize {
        self.channels * (1 + self.chunks())
    }

    /// Elements of the `sums` buffer a batch norm's backward pass needs: the sums of g * xhat
    /// and of g, then their chunk sums.
    pub fn backward_extra(&self) -> usize {
        2 * self.channels * (1 + self.chunks())
    }
}

/// One launch of a batch norm entry over the bindings every entry shares.
struct ChannelLaunch<'a> {
    ctx: &'a Context,
    dtype: DType,
    p: Params,
    buffers: [&'a wgpu::Buffer; 8],
}

impl ChannelLaunch<'_> {
    fn run(&self, entry: &'static str, op: u32, groups: usize) -> Result<()> {
        self.ctx.launch(Launch {
            shader: CHANNELS.of(self.ctx, self.dtype, entry)?,
            entry,
            op: Some(op),
            params: bytemuck::bytes_of(&self.p),
            buffers: &self.buffers,
            groups: grid(u32_of(groups)?, self.ctx.limits.max_compute_workgroups_per_dimension),
        })
    }

    /// The first step of a channel reduction: a workgroup per chunk of each channel.
    fn partials(&self, op: u32) -> Result<()> {
        self.run("batch_norm_partials", op, self.p.rows as usize * self.p.chunks as usize)
    }

    /// The second: a workgroup per channel.
    fn stats(&self, op: u32) -> Result<()> {
        self.run("batch_norm_stats", op, self.p.rows as usize)
    }

    /// The elementwise pass: a thread per element.
    fn apply(&self, op: u32, s: Planes) -> Result<()> {
        self.run("batch_norm_apply", op, (s.batch * s.channels * s.plane).div_ceil(256))
    }
}

/// The parameters of a batch norm launch, with its channel chunks.
#[allow(clippy::too_many_arguments)]
fn channel_params(
    dtype: DType,
    s: Planes,
    x: Operand<'_>,
    g: Option<Operand<'_>>,
    w: Option<Operand<'_>>,
    b: Option<Operand<'_>>,
    eps: f64,
) -> Result<Params> {
    let mut p = params(dtype, s.channels, s.plane, s.batch, x, g, w, b, eps)?;
    // Elements and chunk sums are indexed with 32 bits.
    u32_of(s.batch * s.channels * s.plane)?;
    u32_of(2 * s.channels * (1 + s.chunks()))?;
    p.chunks = u32_of(s.chunks())?;
    p.chunk_len = u32_of(CHANNEL_CHUNK)?;
    Ok(p)
}

/// Batch norm of the contiguous `x` (of `dtype`) into `out` (laid out as x). Training: the
/// batch's per channel mean and rstd are written to `stats`, and its biased variance to the
/// first `channels` elements of `extra` (of `s.forward_extra()` elements; the chunk sums use the
/// rest). Otherwise `stats.mean` and `extra` must hold the running estimates, and rstd is
/// written from them.
#[allow(clippy::too_many_arguments)]
fn launch_batch_norm(
    ctx: &Context,
    dtype: DType,
    training: bool,
    x: Operand<'_>,
    w: Option<Operand<'_>>,
    b: Option<Operand<'_>>,
    s: Planes,
    eps: f64,
    out: &wgpu::Buffer,
    stats: Stats<'_>,
    extra: &wgpu::Buffer,
) -> Result<()> {
    if s.channels == 0 {
        return Ok(());
    }
    let p = channel_params(dtype, s, x, None, w, b, eps)?;
    let l = ChannelLaunch { ctx, dtype, p, buffers: [out, stats.mean, stats.rstd, x.0, w.unwrap_or(x).0, b.unwrap_or(x).0, x.0, extra] };
    if training {
        l.partials(0)?;
        l.stats(0)?;
        l.partials(1)?;
        l.stats(1)?;
    } else {
        l.stats(3)?;
    }
    l.apply(0, s)
}

/// The gradients of a batch norm: per channel the sums of `g * xhat` and of `g` into `sums`'
/// first and second `channels` elements (it has `s.backward_extra()`; the chunk sums use the
/// rest), and when `dx` says so the input gradient into its buffer (laid out as x; through the
/// batch statistics when `training`). Without it nothing is written there: any buffer but the
/// others will do.
#[allow(clippy::too_many_arguments)]
fn launch_batch_norm_backward(
    ctx: &Context,
    dtype: DType,
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
    let p = channel_params(dtype, s, x, Some(g), w, None, 0.0)?;
    let l = ChannelLaunch { ctx, dtype, p, buffers: [dx, stats.mean, stats.rstd, x.0, w.unwrap_or(x).0, x.0, g.0, sums] };
    l.partials(2)?;
    l.stats(2)?;
    if want_dx {
        l.apply(if training { 1 } else { 2 }, s)?;
    }
    Ok(())
}

// ----- Array-level entry points ---------------------------------------------------------

/// An operand of the norm kernels: contiguous (a copy when it is not), of the dtype the launch
/// computes in, with its device, buffer and start.
struct NormOperand {
    t: Array,
    ctx: &'static Context,
    buffer: wgpu::Buffer,
}

impl NormOperand {
    /// `t` as an operand of a launch computing in `dtype` (float32 or float64).
    fn new(t: &Array, dtype: DType, op: &str) -> Result<NormOperand> {
        if t.dtype() != dtype || !matches!(dtype, DType::F32 | DType::F64) {
            return Err(dtype_not_on_device(op, t.dtype(), t.device()));
        }
        let t = dense(t)?;
        // The kernels index with 32 bits, from the start of the buffer.
        super::strided::u32_of(t.storage_offset() + t.numel())?;
        let (ctx, buffer) = buffer_of(&t, op)?;
        Ok(NormOperand { t, ctx, buffer })
    }

    /// A statistics operand: the kernels read those from element 0.
    fn stats(t: &Array, dtype: DType, op: &str) -> Result<NormOperand> {
        let at_start = t.is_contiguous() && t.storage_offset() == 0;
        NormOperand::new(&if at_start { t.clone() } else { copied_as(t, t.dtype())? }, dtype, op)
    }

    fn operand(&self) -> super::float_shaders::Operand<'_> {
        (&self.buffer, self.t.storage_offset())
    }
}

fn norm_operands(t: Option<&Array>, dtype: DType, op: &str) -> Result<Option<NormOperand>> {
    t.map(|t| NormOperand::new(t, dtype, op)).transpose()
}

/// Layer norm of the float32 or float64 `x` as rows of its last `cols` elements (weight and
/// bias of x's dtype), fused: a new contiguous output of x's shape and each row's mean and rstd
/// (one per row, in x's dtype).
pub fn layer_norm(x: &Array, cols: usize, weight: Option<&Array>, bias: Option<&Array>, eps: f64) -> Result<(Array, Array, Array)> {
    let op = "layer_norm";
    let dt = x.dtype();
    let x = NormOperand::new(x, dt, op)?;
    let (w, b) = (norm_operands(weight, dt, op)?, norm_operands(bias, dt, op)?);
    let rows = x.t.numel().checked_div(cols).unwrap_or(0);
    let ctx = x.ctx;
    let (out, ob) = output(ctx, x.t.shape(), dt)?;
    let (mean, mb) = output(ctx, &[rows], dt)?;
    let (rstd, rb) = output(ctx, &[rows], dt)?;
    let stats = Stats { mean: &mb, rstd: &rb };
    launch_layer_norm(
        ctx,
        dt,
        x.operand(),
        w.as_ref().map(NormOperand::operand),
        b.as_ref().map(NormOperand::operand),
        (rows, cols),
        eps,
        &ob,
        stats,
    )?;
    Ok((out, mean, rstd))
}

/// The gradients of a layer norm over rows of `cols` from its float32 or float64 input `x`,
/// output gradient `g`, weight and the forward's (mean, rstd), all of x's dtype, each when
/// `want` asks: x's (x's shape), and the weight's and the bias's (flat, `cols` each). All fused,
/// no copies but of non-contiguous operands.
pub fn layer_norm_backward(
    x: &Array,
    g: &Array,
    weight: Option<&Array>,
    (mean, rstd): (&Array, &Array),
    cols: usize,
    want: [bool; 3],
) -> Result<(Option<Array>, Option<Array>, Option<Array>)> {
    let op = "layer_norm_backward";
    if g.shape() != x.shape() {
        return Err(Error::Runtime(format!("{op}: the gradient's shape {:?} differs from the input's {:?}", g.shape(), x.shape())));
    }
    let dt = x.dtype();
    let (x, g, w) = (NormOperand::new(x, dt, op)?, NormOperand::new(g, dt, op)?, norm_operands(weight, dt, op)?);
    let (m, r) = (NormOperand::stats(mean, dt, op)?, NormOperand::stats(rstd, dt, op)?);
    let rows = x.t.numel().checked_div(cols).unwrap_or(0);
    if m.t.numel() != rows || r.t.numel() != rows {
        return Err(Error::Runtime(format!("{op}: expected {rows} row statistics, got {} and {}", m.t.numel(), r.t.numel())));
    }
    let ctx = x.ctx;
    let stats = || Stats { mean: &m.buffer, rstd: &r.buffer };
    let dx = if want[0] {
        let (dx, db) = output(ctx, x.t.shape(), dt)?;
        launch_layer_norm_backward(ctx, dt, x.operand(), g.operand(), w.as_ref().map(NormOperand::operand), (rows, cols), stats(), &db)?;
        Some(dx)
    } else {
        None
    };
    if !want[1] && !want[2] {
        return Ok((dx, None, None));
    }
    let (dw, dwb) = output(ctx, &[cols], dt)?;
    let (db, dbb) = output(ctx, &[cols], dt)?;
    let chunks = param_grad_chunks(rows);
    // The partial sums' tensors live until the launches are recorded: dropped, their buffers
    // would go back to the pool (and could serve the second while the first is in use).
    let partials = if chunks > 1 {
        let size = [chunks.checked_mul(cols).ok_or_else(|| Error::Runtime(format!("{op}: {rows} rows of {cols} overflow")))?];
        Some((output(ctx, &size, dt)?, output(ctx, &size, dt)?))
    } else {
        None
    };
    let partials = partials.as_ref().map(|((_, w), (_, b))| (w, b));
    layer_norm_param_grads(ctx, dt, x.operand(), g.operand(), (rows, cols), stats(), (&dwb, &dbb), partials)?;
    Ok((dx, want[1].then_some(dw), want[2].then_some(db)))
}

/// An (N, C, ...) tensor as the batch norm kernels see it.
fn planes(x: &Array) -> Planes {
    let shape = x.shape();
    Planes { batch: shape[0], channels: shape[1], plane: shape[2..].iter().product() }
}

/// Batch norm of the float32 or float64 (N, C, ...) `x` (weight, bias and running statistics of
/// x's dtype), fused: a new contiguous output of x's shape and per channel the mean, rstd and
/// biased variance used (in x's dtype): the batch's when `training`, else `running` (mean,
/// variance), copied.
pub fn batch_norm(
    x: &Array,
    weight: Option<&Array>,
    bias: Option<&Array>,
    running: Option<(&Array, &Array)>,
    training: bool,
    eps: f64,
) -> Result<(Array, Array, Array, Array)> {
    let op = "batch_norm";
    if x.ndim() < 2 {
        return Err(Error::Value(format!("Expected 2D or higher input to batch_norm (got {}D input)", x.ndim())));
    }
    let dt = x.dtype();
    let x = NormOperand::new(x, dt, op)?;
    let (w, b) = (norm_operands(weight, dt, op)?, norm_operands(bias, dt, op)?);
    let s = planes(&x.t);
    let ctx = x.ctx;
    let c = [s.channels];
    let (out, ob) = output(ctx, x.t.shape(), dt)?;
    let (rstd, rb) = output(ctx, &c, dt)?;
    // Training writes the variance ahead of the chunk sums in one buffer; in evaluation the
    // kernels read the running estimates from where they would have written the batch's: fresh
    // copies, so the statistics kept for the backward pass do not change with them.
    let (mean, extra) = match (training, running) {
        (true, _) => (output(ctx, &c, dt)?.0, output(ctx, &[s.forward_extra()], dt)?.0),
        (false, Some((m, v))) => (copied_as(m, dt)?, copied_as(v, dt)?),
        (false, None) => return Err(Error::Runtime("running_mean and running_var must be defined in evaluation mode".into())),
    };
    let (m, e) = (NormOperand::new(&mean, dt, op)?, NormOperand::new(&extra, dt, op)?);
    let stats = Stats { mean: &m.buffer, rstd: &rb };
    launch_batch_norm(
        ctx,
        dt,
        training,
        x.operand(),
        w.as_ref().map(NormOperand::operand),
        b.as_ref().map(NormOperand::operand),
        s,
        eps,
        &ob,
        stats,
        &e.buffer,
    )?;
    let var = extra.narrow(0, 0, s.channels)?;
    Ok((out, mean, rstd, var))
}

/// The gradients of a batch norm from its float32 or float64 input `x`, output gradient `g`,
/// weight and the forward's per channel (mean, rstd), all of x's dtype: x's when `want_x`
/// (through the batch statistics when `training`), and always the weight's and the bias's
/// (flat, one per channel). Fused.
pub fn batch_norm_backward(
    x: &Array,
    g: &Array,
    weight: Option<&Array>,
    (mean, rstd): (&Array, &Array),
    training: bool,
    want_x: bool,
) -> Result<(Option<Array>, Array, Array)> {
    let op = "batch_norm_backward";
    if g.shape() != x.shape() || x.ndim() < 2 {
        return Err(Error::Runtime(format!("{op}: the gradient's shape {:?} differs from the input's {:?}", g.shape(), x.shape())));
    }
    let dt = x.dtype();
    let (x, g, w) = (NormOperand::new(x, dt, op)?, NormOperand::new(g, dt, op)?, norm_operands(weight, dt, op)?);
    let (m, r) = (NormOperand::stats(mean, dt, op)?, NormOperand::stats(rstd, dt, op)?);
    let s = planes(&x.t);
    if m.t.numel() != s.channels || r.t.numel() != s.channels {
        return Err(Error::Runtime(format!("{op}: expected {} channel statistics, got {} and {}", s.channels, m.t.numel(), r.t.numel())));
    }
    let ctx = x.ctx;
    let (sums, sb) = output(ctx, &[s.backward_extra()], dt)?;
    // Without dx the kernels write nothing to its output: one element stands in.
    let (dx, dxb) = output(ctx, if want_x { x.t.shape() } else { &[1] }, dt)?;
    let stats = Stats { mean: &m.buffer, rstd: &r.buffer };
    launch_batch_norm_backward(
        ctx,
        dt,
        training,
        x.operand(),
        g.operand(),
        w.as_ref().map(NormOperand::operand),
        s,
        stats,
        &sb,
        (&dxb, want_x),
    )?;
    // Each gradient its own storage (an optimizer may update one in place).
    let n = s.channels;
    let (dw, db) = (copied_as(&sums.narrow(0, 0, n)?, dt)?, copied_as(&sums.narrow(0, n, n)?, dt)?);
    Ok((want_x.then_some(dx), dw, db))
}
