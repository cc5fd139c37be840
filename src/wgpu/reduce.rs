//! Launcher of `shaders/reduce.wgsl` (one module per element type: float32, float64, int64):
//! sum, prod, max and min over any dims of a strided input, and along one dim argmax / argmin,
//! cumulative sums and products, and the stable sort (in workgroup memory for rows of up to
//! `MAX_SORT` elements, one launch per network stage for longer rows). Long rows of few outputs
//! are split into fixed chunks folded by a second pass; the split depends only on the sizes, so
//! a result is bitwise the same on every run.
//! Below them, the tensor-level entry points the tensor layer calls: they check dtypes, take
//! the operands' buffers, allocate the outputs and launch.

use bytemuck::{Pod, Zeroable};

use crate::backend::{Array, Operand};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::binary::BinaryOp;
use crate::ops::reduce::ReduceOp;
use crate::scalar::Scalar;
use crate::storage::{dtype_not_on_device, not_on_device};

use super::batch::{grid, Launch};
use super::context::Context;
use super::operands::{buffer_of, dense, output, view};
use super::shader::Shader;
use super::storage::WgpuStorage;
use super::strided::{coalesce, pack, u32_of, Packed};

static SHADER_F32: Shader = Shader {
    name: "reduce_f32",
    source: concat!(include_str!("shaders/reduce_f32.wgsl"), include_str!("shaders/reduce.wgsl")),
    storage: &[true, false],
    trusted: false,
};
static SHADER_F64: Shader = Shader {
    name: "reduce_f64",
    source: concat!(include_str!("shaders/reduce_f64.wgsl"), include_str!("shaders/reduce.wgsl")),
    storage: &[true, false],
    trusted: false,
};
static SHADER_I64: Shader = Shader {
    name: "reduce_i64",
    source: concat!(include_str!("shaders/reduce_i64.wgsl"), include_str!("shaders/reduce.wgsl"), include_str!("shaders/int64.wgsl")),
    storage: &[true, false],
    trusted: false,
};

/// The module of an element type: float32, float64 (on devices with float64 shaders) or int64.
fn shader(ctx: &Context, dtype: DType, op: &str) -> Result<&'static Shader> {
    match dtype {
        DType::F32 => Ok(&SHADER_F32),
        DType::F64 => ctx.require_f64(op).map(|_| &SHADER_F64),
        DType::I64 => Ok(&SHADER_I64),
        d => Err(crate::error::Error::Runtime(format!("wgpu {op}: no reduction kernel for {}", d.name()))),
    }
}

/// Rows at most this long are folded one thread per output, in order.
const SHORT_ROW: usize = 64;
/// Elements a workgroup folds per chunk when a long row is split.
const CHUNK: usize = 4096;
/// Split rows until about this many workgroups are busy.
const TARGET_GROUPS: usize = 1024;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    rows: u32,
    len: u32,
    chunks: u32,
    chunk_len: u32,
    kept_ndim: u32,
    red_ndim: u32,
    off: u32,
    pad: u32,
    kept_shape: Packed,
    kept_st: Packed,
    red_shape: Packed,
    red_st: Packed,
}

/// The shader's op code; None for reductions without a kernel (all, any).
pub(crate) fn reduce_code(op: ReduceOp) -> Option<u32> {
    match op {
        ReduceOp::Sum => Some(0),
        ReduceOp::Prod => Some(1),
        ReduceOp::Max => Some(2),
        ReduceOp::Min => Some(3),
        ReduceOp::All | ReduceOp::Any => None,
    }
}

/// What a pass computes per row.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Fold to one value (`reduce`, `reduce_rows`).
    Fold,
    /// The index of the extreme (`arg_reduce`, `arg_reduce_rows`).
    Arg,
    /// Running sums or products (`scan`).
    Scan,
    /// The sorting permutation (`sort_rows`).
    Sort,
}

/// The longest row sorted in one launch: the bitonic network lives in workgroup memory.
const MAX_SORT: usize = 1024;

/// One pass: `rows` outputs (kept dims) each folding `len` elements (reduced dims) of `dtype`,
/// written as `rows * chunks` values.
struct Pass<'a> {
    kind: Kind,
    dtype: DType,
    input: &'a wgpu::Buffer,
    offset: usize,
    kept: (Vec<usize>, Vec<usize>),
    red: (Vec<usize>, Vec<usize>),
    chunks: usize,
}

fn run(ctx: &Context, op: u32, pass: Pass<'_>, out: &wgpu::Buffer) -> Result<()> {
    let rows: usize = pass.kept.0.iter().product();
    let len: usize = pass.red.0.iter().product();
    if rows == 0 {
        return Ok(());
    }
    // The sort's network width, or each chunk's length.
    let chunk_len = if pass.kind == Kind::Sort { len.next_power_of_two() } else { len.div_ceil(pass.chunks).max(1) };
    let params = Params {
        rows: u32_of(rows)?,
        len: u32_of(len)?,
        chunks: u32_of(pass.chunks)?,
        chunk_len: u32_of(chunk_len)?,
        kept_ndim: pass.kept.0.len() as u32,
        red_ndim: pass.red.0.len() as u32,
        off: u32_of(pass.offset)?,
        pad: 0,
        kept_shape: pack(&pass.kept.0)?,
        kept_st: pack(&pass.kept.1)?,
        red_shape: pack(&pass.red.0)?,
        red_st: pack(&pass.red.1)?,
    };
    let max = ctx.limits.max_compute_workgroups_per_dimension;
    let short = len <= SHORT_ROW && pass.chunks == 1;
    let (entry, groups) = match pass.kind {
        Kind::Fold if short => ("reduce_rows", rows.div_ceil(256)),
        Kind::Fold => ("reduce", rows * pass.chunks),
        Kind::Arg if short => ("arg_reduce_rows", rows.div_ceil(256)),
        Kind::Arg => ("arg_reduce", rows),
        Kind::Scan => ("scan", rows.div_ceil(256)),
        Kind::Sort => ("sort_rows", rows),
    };
    ctx.launch(Launch {
        shader: shader(ctx, pass.dtype, entry)?,
        entry,
        op: Some(op),
        params: bytemuck::bytes_of(&params),
        buffers: &[out, pass.input],
        groups: grid(u32_of(groups)?, max),
    })
}

/// A strided input: its buffer, dtype and layout.
pub(crate) type Input<'a> = (&'a wgpu::Buffer, DType, &'a Layout);

/// Folds `x` over `rdims` into the contiguous `out` (the kept dims in order, `x`'s dtype).
fn launch_reduce(ctx: &'static Context, op: u32, x: Input<'_>, rdims: &[usize], out: &wgpu::Buffer) -> Result<()> {
    let (buf, dtype, l) = x;
    let split = |keep: bool| -> (Vec<usize>, Vec<usize>) {
        let dims: Vec<usize> = (0..l.ndim()).filter(|d| rdims.contains(d) != keep).collect();
        let shape: Vec<usize> = dims.iter().map(|&d| l.shape[d]).collect();
        let strides: Vec<usize> = dims.iter().map(|&d| l.strides[d]).collect();
        let (s, st) = coalesce(&shape, &[&strides]);
        (s, st.into_iter().next().unwrap_or_default())
    };
    let (kept, red) = (split(true), split(false));
    let rows: usize = kept.0.iter().product();
    let len: usize = red.0.iter().product();
    let chunks = if rows >= TARGET_GROUPS || len <= CHUNK { 1 } else { len.div_ceil(CHUNK).min(TARGET_GROUPS.div_ceil(rows)) };
    if chunks == 1 {
        return run(ctx, op, Pass { kind: Kind::Fold, dtype, input: buf, offset: l.offset, kept, red, chunks: 1 }, out);
    }
    // Pass 1: each row's chunks into a [rows, chunks] scratch; pass 2 folds each scratch row.
    let scratch = WgpuStorage::new(ctx, dtype, rows * chunks)?;
    run(ctx, op, Pass { kind: Kind::Fold, dtype, input: buf, offset: l.offset, kept, red, chunks }, scratch.buffer())?;
    let second = Pass {
        kind: Kind::Fold,
        dtype,
        input: scratch.buffer(),
        offset: 0,
        kept: (vec![rows], vec![chunks]),
        red: (vec![chunks], vec![1]),
        chunks: 1,
    };
    run(ctx, op, second, out)
}

/// A shape and its strides.
type ShapeStrides = (Vec<usize>, Vec<usize>);

/// Rows of `x` along `dim`: the other dims (merged where they allow) and `dim` itself.
fn along(l: &Layout, dim: usize) -> (ShapeStrides, ShapeStrides) {
    let dims: Vec<usize> = (0..l.ndim()).filter(|&d| d != dim).collect();
    let shape: Vec<usize> = dims.iter().map(|&d| l.shape[d]).collect();
    let strides: Vec<usize> = dims.iter().map(|&d| l.strides[d]).collect();
    let (s, st) = coalesce(&shape, &[&strides]);
    // The row stays one dim even when its size is 1: the shader counts its elements.
    ((s, st.into_iter().next().unwrap_or_default()), (vec![l.shape[dim]], vec![l.strides[dim]]))
}

/// The int64 index of the max (`max`) or min along `dim` of `x` (the first NaN, else the first
/// extreme value), into the contiguous `out` (the other dims in order). `dim` must be non-empty.
fn launch_arg_reduce(ctx: &'static Context, max: bool, x: Input<'_>, dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (kept, red) = along(x.2, dim);
    run(ctx, if max { 2 } else { 3 }, Pass { kind: Kind::Arg, dtype: x.1, input: x.0, offset: x.2.offset, kept, red, chunks: 1 }, out)
}

/// Running sums (or products) of `x` along `dim`, in its dtype, into the contiguous `out` laid
/// out as the other dims in order, then `dim`.
fn launch_scan(ctx: &'static Context, product: bool, x: Input<'_>, dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (kept, red) = along(x.2, dim);
    run(ctx, product as u32, Pass { kind: Kind::Scan, dtype: x.1, input: x.0, offset: x.2.offset, kept, red, chunks: 1 }, out)
}

/// The stable sorting permutation (int64) of `x` along `dim`, into the contiguous `out` laid out
/// as the other dims in order, then `dim`.
fn launch_sort(ctx: &'static Context, descending: bool, x: Input<'_>, dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (kept, red) = along(x.2, dim);
    let pass = Pass { kind: Kind::Sort, dtype: x.1, input: x.0, offset: x.2.offset, kept, red, chunks: 1 };
    if x.2.shape[dim] <= MAX_SORT {
        return run(ctx, descending as u32, pass, out);
    }
    sort_long(ctx, descending as u32, pass, out)
}

/// The sort of rows longer than `MAX_SORT`: the bitonic network over a scratch buffer of keys
/// and indices, one launch per stage (log2(n) * (log2(n) + 1) / 2 of them for rows of n).
fn sort_long(ctx: &'static Context, op: u32, pass: Pass<'_>, out: &wgpu::Buffer) -> Result<()> {
    let rows: usize = pass.kept.0.iter().product();
    let len = pass.red.0[0];
    if rows == 0 {
        return Ok(());
    }
    let n = len.next_power_of_two();
    let words = if pass.dtype == DType::F32 { 1 } else { 2 };
    let total = rows.checked_mul(n).ok_or_else(|| crate::error::Error::SizeOverflow(format!("sorting {rows} rows of {n}")))?;
    // Keys, then indices, as u32 words.
    let scratch = WgpuStorage::new(ctx, DType::I32, total * (words + 1))?;
    let shader = shader(ctx, pass.dtype, "sort")?;
    let max = ctx.limits.max_compute_workgroups_per_dimension;
    let mut params = Params {
        rows: u32_of(rows)?,
        len: u32_of(len)?,
        chunks: 0,
        chunk_len: u32_of(n)?,
        kept_ndim: pass.kept.0.len() as u32,
        red_ndim: 1,
        off: u32_of(pass.offset)?,
        pad: 0,
        kept_shape: pack(&pass.kept.0)?,
        kept_st: pack(&pass.kept.1)?,
        red_shape: pack(&pass.red.0)?,
        red_st: pack(&pass.red.1)?,
    };
    let groups = |threads: usize| -> Result<[u32; 3]> { Ok(grid(u32_of(threads.div_ceil(256))?, max)) };
    let launch = |entry: &'static str, params: &Params, buffers: &[&wgpu::Buffer], threads: usize| -> Result<()> {
        ctx.launch(Launch { shader, entry, op: Some(op), params: bytemuck::bytes_of(params), buffers, groups: groups(threads)? })
    };
    launch("sort_init", &params, &[scratch.buffer(), pass.input], total)?;
    let mut k = 2;
    while k <= n {
        let mut j = k / 2;
        while j > 0 {
            params.chunks = u32_of(k)?;
            params.pad = u32_of(j)?;
            launch("sort_step", &params, &[scratch.buffer(), pass.input], total / 2)?;
            j /= 2;
        }
        k *= 2;
    }
    launch("sort_finish", &params, &[out, scratch.buffer()], rows * len)
}

// ----- Array-level entry points ---------------------------------------------------------

/// The reductions, scans and sorts take float32, float64 and int64 (callers convert the others).
fn require_reducible(t: &Array, op: &str) -> Result<()> {
    if !matches!(t.dtype(), DType::F32 | DType::F64 | DType::I64) {
        return Err(dtype_not_on_device(op, t.dtype(), t.device()));
    }
    Ok(())
}

/// `op` over `rdims` of `x` (float32, float64 or int64), into a new tensor of `out_shape` (the
/// kept dims, in order) and `x`'s dtype. Int64 sums and products wrap, as on the CPU.
pub fn reduce(x: &Array, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Array> {
    let name = op.name();
    let code = reduce_code(op).ok_or_else(|| not_on_device(name, x.device()))?;
    require_reducible(x, name)?;
    let (ctx, xb) = buffer_of(x, name)?;
    let (out, ob) = output(ctx, out_shape, x.dtype())?;
    launch_reduce(ctx, code, (&xb, x.dtype(), x.layout()), rdims, &ob)?;
    Ok(out)
}

/// `reduce` of any dtype with PyTorch's result dtypes: all/any as the max/min of truth values
/// (bool), 16-bit floats through float32, integers and bool through int64 (sums and products
/// stay int64 and wrap, max and min keep the dtype).
pub fn reduce_op(x: &Array, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Array> {
    let dt = x.dtype();
    match op {
        ReduceOp::All | ReduceOp::Any => {
            // Truth values as 0.0 / 1.0: any is their max, all their min (an empty reduction
            // gives -inf or +inf, so false for any and true for all).
            let f = cast(&cast(x, DType::Bool)?, DType::F32)?;
            let m = reduce(&f, if op == ReduceOp::Any { ReduceOp::Max } else { ReduceOp::Min }, rdims, out_shape)?;
            let zero = Operand::Scalar(Scalar::Float(0.0));
            super::ops::binary(BinaryOp::Gt, Operand::Array(&m), zero, out_shape, x.device(), DType::F32, DType::Bool)
        }
        _ if dt.is_half() => cast(&reduce(&cast(x, DType::F32)?, op, rdims, out_shape)?, dt),
        _ if dt.is_floating_point() => reduce(x, op, rdims, out_shape),
        ReduceOp::Sum | ReduceOp::Prod => reduce(&cast(x, DType::I64)?, op, rdims, out_shape),
        _ => cast(&reduce(&cast(x, DType::I64)?, op, rdims, out_shape)?, dt),
    }
}

/// `x` in `dtype`: itself when it already is, else a converted contiguous copy.
fn cast(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    super::operands::copied_as(x, dtype)
}

/// The int64 indices of the max (or min) of `x` (float32, float64 or int64) along `dim`
/// (non-empty), shaped as `x` without `dim`.
pub fn arg_reduce(x: &Array, dim: usize, max: bool) -> Result<Array> {
    let name = if max { "argmax" } else { "argmin" };
    require_reducible(x, name)?;
    let (ctx, xb) = buffer_of(x, name)?;
    let shape: Vec<usize> = (0..x.ndim()).filter(|&d| d != dim).map(|d| x.shape()[d]).collect();
    let (out, ob) = output(ctx, &shape, DType::I64)?;
    launch_arg_reduce(ctx, max, (&xb, x.dtype(), x.layout()), dim, &ob)?;
    Ok(out)
}

/// `dim` moved last in `x`'s shape: the layout the scan and sort kernels write.
fn dim_last(x: &Array, dim: usize) -> Vec<usize> {
    let mut shape: Vec<usize> = (0..x.ndim()).filter(|&d| d != dim).map(|d| x.shape()[d]).collect();
    shape.push(x.shape()[dim]);
    shape
}

/// The longest row the scan kernel runs as one thread's loop; longer rows scan in chunks of it.
const SCAN_CHUNK: usize = 1024;

/// `cumulative` of rows longer than `SCAN_CHUNK`, in three parallel steps: every chunk scanned
/// on its own, the chunks' totals scanned (in chunks again if there are many), and each chunk
/// combined with the total of the chunks before it. The order of combination is fixed, so the
/// result is the same on every run (float sums round unlike the CPU's one running sum).
fn cumulative_in_chunks(x: &Array, dim: usize, product: bool) -> Result<Array> {
    let (len, nd, dt) = (x.shape()[dim], x.ndim(), x.dtype());
    let (ctx, _) = buffer_of(x, "cumsum")?;
    let mut order: Vec<usize> = (0..nd).filter(|&d| d != dim).collect();
    order.push(dim);
    let rows = x.with_layout(x.layout().permute(&order));
    let lead: Vec<usize> = rows.shape()[..nd - 1].to_vec();
    let shape = |tail: &[usize]| -> Vec<usize> { lead.iter().chain(tail).copied().collect() };
    let chunks = len.div_ceil(SCAN_CHUNK);
    // The rows padded with the identity to whole chunks.
    let padded = filled(ctx, &shape(&[chunks * SCAN_CHUNK]), dt, product)?;
    copy_into(&rows, &padded.narrow(nd - 1, 0, len)?)?;
    let local = cumulative(&padded.view_as(&shape(&[chunks, SCAN_CHUNK]))?, nd, product)?;
    let totals = dense(&local.with_layout(local.layout().select(nd, SCAN_CHUNK - 1)?))?;
    let through = cumulative(&totals, nd - 1, product)?;
    // What comes before each chunk: the identity, then the running total through the chunk before.
    let before = filled(ctx, &shape(&[chunks]), dt, product)?;
    copy_into(&through.narrow(nd - 1, 0, chunks - 1)?, &before.narrow(nd - 1, 1, chunks - 1)?)?;
    let before = before.with_layout(before.layout().unsqueeze(nd)).broadcast_to(local.shape());
    let op = if product { BinaryOp::Mul } else { BinaryOp::Add };
    let out = super::ops::binary(op, Operand::Array(&local), Operand::Array(&before), local.shape(), x.device(), dt, dt)?;
    dense(&out.view_as(&shape(&[chunks * SCAN_CHUNK]))?.narrow(nd - 1, 0, len)?)
}

/// A new contiguous array of `shape` filled with 1 (`one`) or 0.
fn filled(ctx: &'static super::context::Context, shape: &[usize], dtype: DType, one: bool) -> Result<Array> {
    let layout = crate::layout::Layout::contiguous(shape.to_vec())?;
    let zeros = Array::new(crate::storage::Storage::Wgpu(super::storage::alloc(ctx.ordinal, dtype, layout.numel(), true)?), layout);
    if !one {
        return Ok(zeros);
    }
    super::ops::binary(BinaryOp::Add, Operand::Array(&zeros), Operand::Scalar(Scalar::Int(1)), shape, zeros.device(), dtype, dtype)
}

/// Writes `src` into `dst` (same shape, dtype and device).
fn copy_into(src: &Array, dst: &Array) -> Result<()> {
    let (ctx, sb) = buffer_of(src, "cumsum")?;
    let (_, db) = buffer_of(dst, "cumsum")?;
    super::elementwise::copy(ctx, view(src, &sb), view(dst, &db))
}

/// Running sums (or products) of `x` (float32, float64 or int64) along `dim`, in its dtype,
/// shaped as `x` with `dim` moved last.
pub fn cumulative(x: &Array, dim: usize, product: bool) -> Result<Array> {
    let name = if product { "cumprod" } else { "cumsum" };
    require_reducible(x, name)?;
    if x.shape()[dim] > SCAN_CHUNK {
        return cumulative_in_chunks(x, dim, product);
    }
    let (ctx, xb) = buffer_of(x, name)?;
    let (out, ob) = output(ctx, &dim_last(x, dim), x.dtype())?;
    launch_scan(ctx, product, (&xb, x.dtype(), x.layout()), dim, &ob)?;
    Ok(out)
}

/// The stable sorting permutation (int64) of `x` (float32, float64 or int64) along `dim`,
/// shaped as `x` with `dim` moved last (NaN sorts as the largest value). Rows of any length.
pub fn sort(x: &Array, dim: usize, descending: bool) -> Result<Array> {
    require_reducible(x, "sort")?;
    let (ctx, xb) = buffer_of(x, "sort")?;
    let (out, ob) = output(ctx, &dim_last(x, dim), DType::I64)?;
    launch_sort(ctx, descending, (&xb, x.dtype(), x.layout()), dim, &ob)?;
    Ok(out)
}
