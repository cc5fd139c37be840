//! Launcher of `shaders/reduce.wgsl`: float32 sum, prod, max and min over any dims of a strided
//! input, and argmax / argmin along one dim. Long rows of few outputs are split into fixed
//! chunks folded by a second pass; the split depends only on the sizes, so a result is bitwise
//! the same on every run.

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
struct Pass<'a> {
    /// `reduce` (false) or `arg_reduce` (true, never split into chunks).
    arg: bool,
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
    let chunk_len = len.div_ceil(pass.chunks).max(1);
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
    let (entry, groups) = match (pass.arg, len <= SHORT_ROW && pass.chunks == 1) {
        (false, true) => ("reduce_rows", rows.div_ceil(256)),
        (false, false) => ("reduce", rows * pass.chunks),
        (true, true) => ("arg_reduce_rows", rows.div_ceil(256)),
        (true, false) => ("arg_reduce", rows),
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
        return run(ctx, op, Pass { arg: false, input: buf, offset: l.offset, kept, red, chunks: 1 }, out);
    }
    // Pass 1: each row's chunks into a [rows, chunks] scratch; pass 2 folds each scratch row.
    let scratch = WgpuStorage::new(ctx, DType::F32, rows * chunks)?;
    run(ctx, op, Pass { arg: false, input: buf, offset: l.offset, kept, red, chunks }, scratch.buffer())?;
    let second = Pass { arg: false, input: scratch.buffer(), offset: 0, kept: (vec![rows], vec![chunks]), red: (vec![chunks], vec![1]), chunks: 1 };
    run(ctx, op, second, out)
}

/// The int64 index of the max (`max`) or min along `dim` of `x` (the first NaN, else the first
/// extreme value), into the contiguous `out` (the other dims in order). `dim` must be non-empty.
pub(crate) fn arg_reduce(ctx: &'static Context, max: bool, x: (&wgpu::Buffer, &Layout), dim: usize, out: &wgpu::Buffer) -> Result<()> {
    let (buf, l) = x;
    let dims: Vec<usize> = (0..l.ndim()).filter(|&d| d != dim).collect();
    let shape: Vec<usize> = dims.iter().map(|&d| l.shape[d]).collect();
    let strides: Vec<usize> = dims.iter().map(|&d| l.strides[d]).collect();
    let (s, st) = coalesce(&shape, &[&strides]);
    let kept = (s, st.into_iter().next().unwrap_or_default());
    // The reduced dim stays one dim even when its size is 1: the shader counts its elements.
    let red = (vec![l.shape[dim]], vec![l.strides[dim]]);
    run(ctx, if max { 2 } else { 3 }, Pass { arg: true, input: buf, offset: l.offset, kept, red, chunks: 1 }, out)
}
