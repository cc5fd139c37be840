//! Launcher of `shaders/reduce.wgsl`: float32 sum, prod, max and min over any dims of a strided
//! input, and along one dim argmax / argmin, cumulative sums and products, and the stable sort
//! (rows of up to `MAX_SORT` elements). Long rows of few outputs are split into fixed chunks
//! folded by a second pass; the split depends only on the sizes, so a result is bitwise the same
//! on every run.

use bytemuck::{Pod, Zeroable};

use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::ReduceOp;

use super::batch::{grid, Launch};
use super::context::{Context, Shader};
use super::storage::WgpuStorage;
use super::strided::{coalesce, pack, u32_of, Packed};

static SHADER: Shader = Shader { name: "reduce", source: include_str!("shaders/reduce.wgsl"), storage: &[true, false] };

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

/// The shader's op code; None for reductions without a float kernel (all, any).
pub(crate) fn reduce_code(op: ReduceOp) -> Option<u32> {
    match op {
        ReduceOp::Sum => Some(0),
        ReduceOp::Prod => Some(1),
        ReduceOp::Max => Some(2),
        ReduceOp::Min => Some(3),
        ReduceOp::All | ReduceOp::Any => None,
    }
}

/// One pass: `rows` outputs (kept dims) each folding `len` elements (reduced dims), written as
/// `rows * chunks` values.
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

/// The longest row `sort` takes: the bitonic network lives in workgroup memory.
pub(crate) const MAX_SORT: usize = 1024;

struct Pass<'a> {
    kind: Kind,
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
        shader: &SHADER,
        entry,
        op: Some(op),
        params: bytemuck::bytes_of(&params),
        buffers: &[out, pass.input],
        groups: grid(u32_of(groups)?, max),
    })
}

/// Folds `x` over `rdims` into the contiguous `out` (the kept dims in order).
pub(crate) fn reduce(ctx: &'static Context, op: u32, x: (&wgpu::Buffer, &Layout), rdims: &[usize], out: &wgpu::Buffer) -> Result<()> {
    let (buf, l) = x;
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
        return run(ctx, op, Pass { kind: Kind::Fold, input: buf, offset: l.offset, kept, red, chunks: 1 }, out);
    }
    // Pass 1: each row's chunks into a [rows, chunks] scratch; pass 2 folds each scratch row.
    let scratch = WgpuStorage::new(ctx, DType::F32, rows * chunks)?;
    run(ctx, op, Pass { kind: Kind::Fold, input: buf, offset: l.offset, kept, red, chunks }, scratch.buffer())?;
    let second = Pass { kind: Kind::Fold, input: scratch.buffer(), offset: 0, kept: (vec![rows], vec![chunks]), red: (vec![chunks], vec![1]), chunks: 1 };
    run(ctx, op, second, out)
}

/// Rows of `x` along `dim`: the other dims (merged where they allow) and `dim` itself.
fn along(l: &Layout, dim: usize) -> ((Vec<usize>, Vec<usize>), (Vec<usize>, Vec<usize>)) {
    let dims: Vec<usize> = (0..l.ndim()).filter(|&d| d != dim).collect();
    let shape: Vec<usize> = dims.iter().map(|&d| l.shape[d]).collect();
    let strides: Vec<usize> = dims.iter().map(|&d| l.strides[d]).collect();
    let (s, st) = coalesce(&shape, &[&strides]);
    // The row stays one dim even when its size is 1: the shader counts its elements.
    ((s, st.into_iter().next().unwrap_or_default()), (vec![l.shape[dim]], vec![l.strides[dim]]))
}

/// The int64 index of the max (`max`) or min along `dim` of `x` (the first NaN, else the first
/// extreme value), into the contiguous `out` (the other dims in order). `dim` must be non-empty.
pub(crate) fn arg_reduce(ctx: &'static Context, max: bool, x: (&wgpu::Buffer, &Layout), dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (kept, red) = along(x.1, dim);
    run(ctx, if max { 2 } else { 3 }, Pass { kind: Kind::Arg, input: x.0, offset: x.1.offset, kept, red, chunks: 1 }, out)
}

/// Running sums (or products) of `x` along `dim`, in float32, into the contiguous `out` laid out
/// as the other dims in order, then `dim`.
pub(crate) fn scan(ctx: &'static Context, product: bool, x: (&wgpu::Buffer, &Layout), dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (kept, red) = along(x.1, dim);
    run(ctx, product as u32, Pass { kind: Kind::Scan, input: x.0, offset: x.1.offset, kept, red, chunks: 1 }, out)
}

/// The stable sorting permutation (int64) of `x` along `dim` (at most `MAX_SORT` long), into
/// the contiguous `out` laid out as the other dims in order, then `dim`.
pub(crate) fn sort(ctx: &'static Context, descending: bool, x: (&wgpu::Buffer, &Layout), dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (kept, red) = along(x.1, dim);
    run(ctx, descending as u32, Pass { kind: Kind::Sort, input: x.0, offset: x.1.offset, kept, red, chunks: 1 }, out)
}
