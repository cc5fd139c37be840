//! Tensor-level entry points of the wgpu kernels: the tensor layer calls these once it has found
//! its operands on a wgpu device; they check dtypes, allocate outputs and record the launches.

use crate::cpu::pool::PoolGeom;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{dtype_not_on_device, not_on_device, Storage};
use crate::tensor::loss::Reduction;
use crate::tensor::{BinaryOp, ReduceOp, Scalar, Tensor, UnaryOp};

use super::context::Context;
use super::elementwise::{self, binary_kernel, scalar_bits, unary_code, unary_int_code, BinaryKernel, Input, View};
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

/// The reductions, scans and sorts take float32, float64 and int64 (callers convert the others).
fn require_reducible(t: &Tensor, op: &str) -> Result<()> {
    if !matches!(t.dtype(), DType::F32 | DType::F64 | DType::I64) {
        return Err(dtype_not_on_device(op, t.dtype(), t.device()));
    }
    Ok(())
}

fn context_of(device: crate::Device, op: &str) -> Result<&'static Context> {
    match device {
        crate::Device::Wgpu(i) => super::context::context(i),
        crate::Device::Cpu => Err(Error::Runtime(format!("{op}: expected a wgpu device"))),
    }
}

/// A fresh contiguous output on `ctx`'s device.
fn output(ctx: &'static Context, shape: &[usize], dtype: DType) -> Result<(Tensor, wgpu::Buffer)> {
    let layout = Layout::contiguous(shape.to_vec())?;
    let s = WgpuStorage::new(ctx, dtype, layout.numel())?;
    let buf = s.buffer().clone();
    Ok((Tensor::from_storage(Storage::Wgpu(s), layout), buf))
}

fn view<'a>(t: &'a Tensor, buffer: &'a wgpu::Buffer) -> View<'a> {
    View { buffer, dtype: t.dtype(), layout: t.layout() }
}

/// `op(x)`: float ops in float32 for float16, bfloat16 and float32 tensors and in float64 for
/// float64 (results keep the input's dtype); on integer and bool tensors the ops that keep
/// integers (neg, abs, sign, relu, rounding, bitwise_not) and logical_not (which gives bool).
pub fn unary(x: &Tensor, op: UnaryOp) -> Result<Tensor> {
    let name = op.name();
    let dt = x.dtype();
    let (ctx, xb) = buffer_of(x, name)?;
    if op == UnaryOp::LogicalNot || !dt.is_floating_point() {
        let code = match op {
            UnaryOp::BitwiseNot if dt == DType::Bool => unary_int_code(UnaryOp::LogicalNot),
            _ if dt.is_floating_point() => None,
            _ => unary_int_code(op),
        };
        // logical_not of a float tensor: compare with zero.
        if op == UnaryOp::LogicalNot && dt.is_floating_point() {
            return binary(BinaryOp::Eq, Operand::Tensor(x), Operand::Scalar(Scalar::Int(0)), x.shape(), x.device(), dt, DType::Bool);
        }
        let code = code.ok_or_else(|| dtype_not_on_device(name, dt, x.device()))?;
        let out_dt = if op == UnaryOp::LogicalNot { DType::Bool } else { dt };
        let (out, ob) = output(ctx, x.shape(), out_dt)?;
        elementwise::unary_int(ctx, code, view(x, &xb), view(&out, &ob))?;
        return Ok(out);
    }
    let code = unary_code(op).ok_or_else(|| not_on_device(name, x.device()))?;
    let (out, ob) = output(ctx, x.shape(), dt)?;
    elementwise::unary(ctx, code, view(x, &xb), view(&out, &ob))?;
    Ok(out)
}

/// A binary operand: a wgpu tensor already broadcast (by its layout) to the output's shape, or
/// a number.
pub enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

/// The operand's buffer (taken before any output is allocated), if it is a tensor.
fn held(x: &Operand<'_>, op: &str) -> Result<Option<wgpu::Buffer>> {
    match x {
        Operand::Tensor(t) => Ok(Some(buffer_of(t, op)?.1)),
        Operand::Scalar(_) => Ok(None),
    }
}

/// The kernel input of an operand; scalars travel as the bits of `scalar_dtype`.
fn input<'b>(x: &'b Operand<'_>, held: &'b Option<wgpu::Buffer>, scalar_dtype: DType) -> Result<Input<'b>> {
    Ok(match (x, held) {
        (Operand::Tensor(t), Some(buf)) => Input::Buffer(view(t, buf)),
        (Operand::Scalar(v), _) => Input::Scalar(scalar_dtype, scalar_bits(*v, scalar_dtype)),
        (Operand::Tensor(_), None) => return Err(Error::Runtime("wgpu: a tensor operand without its buffer".into())),
    })
}

/// `a op b` computed in `compute` into a new tensor of `shape` and dtype `out_dtype` on
/// `device`. Tensor operands of any dtype are converted as they are loaded.
pub fn binary(
    op: BinaryOp,
    a: Operand<'_>,
    b: Operand<'_>,
    shape: &[usize],
    device: crate::Device,
    compute: DType,
    out_dtype: DType,
) -> Result<Tensor> {
    let name = op.name();
    let kind = binary_kernel(op, compute).ok_or_else(|| dtype_not_on_device(name, compute, device))?;
    let ctx = context_of(device, name)?;
    let (ha, hb) = (held(&a, name)?, held(&b, name)?);
    // Scalars join in the kernel's compute class: float32, float64 or int64 (logical ops only
    // test them against zero, which float32 does for any number).
    let scalar_dtype = match kind {
        BinaryKernel::Logical(_) => DType::F32,
        _ if !compute.is_floating_point() => DType::I64,
        _ if compute == DType::F64 => DType::F64,
        _ => DType::F32,
    };
    let (out, ob) = output(ctx, shape, out_dtype)?;
    let (ia, ib) = (input(&a, &ha, scalar_dtype)?, input(&b, &hb, scalar_dtype)?);
    elementwise::binary(ctx, kind, compute, ia, ib, view(&out, &ob))?;
    Ok(out)
}

/// `cond ? a : b` into a new tensor of `shape` and `dtype`; `a` and `b` are of `dtype` (or
/// numbers) and, like `cond`, broadcast to `shape` by their layouts.
pub fn where_(cond: &Tensor, a: Operand<'_>, b: Operand<'_>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let (ctx, cb) = buffer_of(cond, "where")?;
    let (ha, hb) = (held(&a, "where")?, held(&b, "where")?);
    for x in [&a, &b] {
        if let Operand::Tensor(t) = x {
            if t.dtype() != dtype {
                return Err(Error::Runtime("wgpu where: operands differ from the result's dtype".into()));
            }
        }
    }
    let (out, ob) = output(ctx, shape, dtype)?;
    let (ia, ib) = (input(&a, &ha, dtype)?, input(&b, &hb, dtype)?);
    elementwise::where_(ctx, view(cond, &cb), ia, ib, view(&out, &ob))?;
    Ok(out)
}

/// Writes `src` (same shape and device) into `dst` through both layouts, converting to `dst`'s
/// dtype (conversions to or from float64 need a device with float64 shaders).
pub fn copy_strided(src: &Tensor, dst: &Tensor) -> Result<()> {
    if src.device() != dst.device() || src.shape() != dst.shape() {
        return Err(Error::Runtime("wgpu copy: operands differ in device or shape".into()));
    }
    let (ctx, sb) = buffer_of(src, "copy")?;
    let (_, db) = buffer_of(dst, "copy")?;
    if src.dtype() != dst.dtype() && (src.dtype() == DType::F64 || dst.dtype() == DType::F64) {
        ctx.require_f64(&format!("to({})", dst.dtype().name()))?;
    }
    elementwise::copy(ctx, view(src, &sb), view(dst, &db))
}

/// `op` over `rdims` of `x` (float32, float64 or int64), into a new tensor of `out_shape` (the
/// kept dims, in order) and `x`'s dtype. Int64 sums and products wrap, as on the CPU.
pub fn reduce(x: &Tensor, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Tensor> {
    let name = op.name();
    let code = reduce_code(op).ok_or_else(|| not_on_device(name, x.device()))?;
    require_reducible(x, name)?;
    let (ctx, xb) = buffer_of(x, name)?;
    let (out, ob) = output(ctx, out_shape, x.dtype())?;
    super::reduce::reduce(ctx, code, (&xb, x.dtype(), x.layout()), rdims, &ob)?;
    Ok(out)
}

/// The int64 indices of the max (or min) of `x` (float32, float64 or int64) along `dim`
/// (non-empty), shaped as `x` without `dim`.
pub fn arg_reduce(x: &Tensor, dim: usize, max: bool) -> Result<Tensor> {
    let name = if max { "argmax" } else { "argmin" };
    require_reducible(x, name)?;
    let (ctx, xb) = buffer_of(x, name)?;
    let shape: Vec<usize> = (0..x.ndim()).filter(|&d| d != dim).map(|d| x.shape()[d]).collect();
    let (out, ob) = output(ctx, &shape, DType::I64)?;
    super::reduce::arg_reduce(ctx, max, (&xb, x.dtype(), x.layout()), dim, &ob)?;
    Ok(out)
}

/// `dim` moved last in `x`'s shape: the layout the scan and sort kernels write.
fn dim_last(x: &Tensor, dim: usize) -> Vec<usize> {
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
fn cumulative_in_chunks(x: &Tensor, dim: usize, product: bool) -> Result<Tensor> {
    let _raw = crate::autograd::GradMode::disabled();
    let len = x.shape()[dim];
    let last = x.ndim() as i64 - 1;
    let rows = x.movedim(dim as i64, last)?;
    let lead: Vec<usize> = rows.shape()[..rows.ndim() - 1].to_vec();
    let chunks = len.div_ceil(SCAN_CHUNK);
    let identity = Scalar::Int(product as i64);
    let padding = chunks * SCAN_CHUNK - len;
    let rows = if padding == 0 {
        rows
    } else {
        let pad = Tensor::full_on(&[lead.clone(), vec![padding]].concat(), identity, x.dtype(), x.device())?;
        Tensor::cat(&[rows, pad], last)?
    };
    let sizes = |tail: &[usize]| -> Vec<i64> { lead.iter().chain(tail).map(|&v| v as i64).collect() };
    let local = cumulative(&rows.reshape(&sizes(&[chunks, SCAN_CHUNK]))?, lead.len() + 1, product)?;
    let totals = local.select(lead.len() as i64 + 1, SCAN_CHUNK as i64 - 1)?.contiguous()?;
    let through = cumulative(&totals, lead.len(), product)?;
    // What comes before each chunk: the running total through the chunk before, shifted by one.
    let first = Tensor::full_on(&[lead.clone(), vec![1]].concat(), identity, x.dtype(), x.device())?;
    let before = Tensor::cat(&[first, through.narrow(lead.len() as i64, 0, chunks as i64 - 1)?], lead.len() as i64)?;
    let op = if product { BinaryOp::Mul } else { BinaryOp::Add };
    let out = local.binary(op, &before.unsqueeze(lead.len() as i64 + 1)?)?;
    out.reshape(&sizes(&[chunks * SCAN_CHUNK]))?.narrow(lead.len() as i64, 0, len as i64)?.contiguous()
}

/// Running sums (or products) of `x` (float32, float64 or int64) along `dim`, in its dtype,
/// shaped as `x` with `dim` moved last.
pub fn cumulative(x: &Tensor, dim: usize, product: bool) -> Result<Tensor> {
    let name = if product { "cumprod" } else { "cumsum" };
    require_reducible(x, name)?;
    if x.shape()[dim] > SCAN_CHUNK {
        return cumulative_in_chunks(x, dim, product);
    }
    let (ctx, xb) = buffer_of(x, name)?;
    let (out, ob) = output(ctx, &dim_last(x, dim), x.dtype())?;
    super::reduce::scan(ctx, product, (&xb, x.dtype(), x.layout()), dim, &ob)?;
    Ok(out)
}

/// The stable sorting permutation (int64) of `x` (float32, float64 or int64) along `dim`,
/// shaped as `x` with `dim` moved last (NaN sorts as the largest value). Rows of any length.
pub fn sort(x: &Tensor, dim: usize, descending: bool) -> Result<Tensor> {
    require_reducible(x, "sort")?;
    let (ctx, xb) = buffer_of(x, "sort")?;
    let (out, ob) = output(ctx, &dim_last(x, dim), DType::I64)?;
    super::reduce::sort(ctx, descending, (&xb, x.dtype(), x.layout()), dim, &ob)?;
    Ok(out)
}

/// A u32 list on `ctx`'s device (storage offsets for the gather and scatter kernels).
fn upload_u32(ctx: &'static Context, values: &[u32]) -> Result<WgpuStorage> {
    super::storage::upload(ctx.ordinal, bytemuck::cast_slice(values), DType::I32)
}

fn offsets_u32(offsets: &[usize]) -> Result<Vec<u32>> {
    let mut words = crate::cpu::buffer::with_capacity(offsets.len())?;
    for &o in offsets {
        words.push(super::strided::u32_of(o)?);
    }
    Ok(words)
}

/// A contiguous tensor of `shape` holding `src`'s elements at storage `offsets`.
pub fn take(src: &Tensor, offsets: &[usize], shape: &[usize]) -> Result<Tensor> {
    let (ctx, sb) = buffer_of(src, "index")?;
    let (out, ob) = output(ctx, shape, src.dtype())?;
    if offsets.is_empty() {
        return Ok(out);
    }
    let list = upload_u32(ctx, &offsets_u32(offsets)?)?;
    let words = Layout::contiguous(shape.to_vec())?;
    let at = View { buffer: list.buffer(), dtype: DType::I32, layout: &words };
    elementwise::take(ctx, &sb, src.dtype(), at, view(&out, &ob))?;
    Ok(out)
}

/// One term of `index_offsets`: an integer index tensor on the device, viewed by `at` at the
/// offsets' shape, selecting along a dim of `stride` and `size`.
pub struct IndexTerm<'a> {
    pub index: &'a Tensor,
    pub at: Layout,
    pub stride: usize,
    pub size: usize,
}

/// The storage offsets (int64, contiguous, of `walk`'s shape) of the elements integer indices
/// select: `walk`'s offset of each element plus, for each term, its index times its stride.
/// The indices never leave the device: they are checked there (negative ones counting from
/// the end of their dim when `wrap`), and one word comes back. None when an index is outside
/// its dim, for the caller to word its own error.
pub fn index_offsets(walk: &Layout, terms: &[IndexTerm<'_>], wrap: bool) -> Result<Option<Tensor>> {
    make_index_offsets(walk, terms, wrap, true)
}

/// `index_offsets` of indices already checked (a gradient's, whose forward pass checked them):
/// no flag is read back, so nothing waits for the device.
pub fn index_offsets_of_checked(walk: &Layout, terms: &[IndexTerm<'_>]) -> Result<Tensor> {
    Ok(make_index_offsets(walk, terms, false, false)?.expect("unread flags pass"))
}

fn make_index_offsets(walk: &Layout, terms: &[IndexTerm<'_>], wrap: bool, read_flag: bool) -> Result<Option<Tensor>> {
    let Some(first) = terms.first() else {
        return Err(Error::Runtime("wgpu index_offsets: no index".into()));
    };
    let (ctx, _) = buffer_of(first.index, "index")?;
    let n = walk.numel();
    let shape = walk.shape.clone();
    if n == 0 && read_flag {
        // No offsets to make, but the indices are checked all the same, as the CPU does: each
        // walked over its own elements.
        for term in terms.iter().filter(|t| t.index.numel() > 0) {
            let own = Layout { shape: term.index.shape().to_vec(), strides: vec![0; term.index.ndim()], offset: 0 };
            let alone = IndexTerm { index: term.index, at: term.index.layout().clone(), stride: 0, size: term.size };
            if index_offsets(&own, &[alone], wrap)?.is_none() {
                return Ok(None);
            }
        }
        return Ok(Some(Tensor::from_storage(Storage::Wgpu(WgpuStorage::new(ctx, DType::I64, 0)?), Layout::contiguous(shape)?)));
    }
    let unwalked = Layout { shape: shape.clone(), strides: vec![0; shape.len()], offset: 0 };
    let dense = Layout::contiguous(shape.clone())?;
    let flag = super::strided::u32_of(2 * n)?;
    let mut total: Option<Tensor> = None;
    for (k, term) in terms.iter().enumerate() {
        // Each term's offsets, then its flag word as one more int64 element, zeroed.
        let s = WgpuStorage::new(ctx, DType::I64, n + 1)?;
        let ob = s.buffer().clone();
        ctx.record(|enc| enc.clear_buffer(&ob, n as u64 * 8, Some(8)));
        let (_, ib) = buffer_of(term.index, "index")?;
        let w = View { buffer: &ib, dtype: term.index.dtype(), layout: if k == 0 { walk } else { &unwalked } };
        let iv = View { buffer: &ib, dtype: term.index.dtype(), layout: &term.at };
        let ov = View { buffer: &ob, dtype: DType::I64, layout: &dense };
        elementwise::index_offsets(ctx, w, iv, (term.stride, term.size), wrap, ov, flag)?;
        let t = Tensor::from_storage(Storage::Wgpu(s), Layout::contiguous(vec![n + 1])?);
        total = Some(match total {
            None => t,
            Some(sum) => sum.binary(BinaryOp::Add, &t)?,
        });
    }
    let total = total.expect("one term at least");
    if !read_flag {
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        return Ok(Some(total.narrow(0, 0, n as i64)?.reshape(&dims)?));
    }
    let flagged = {
        let st = total.storage_cell().read();
        match &*st {
            Storage::Wgpu(s) => s.read_word(2 * n)?,
            Storage::Cpu(_) => unreachable!("offsets are made on the device"),
        }
    };
    if flagged != 0 {
        return Ok(None);
    }
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    Ok(Some(total.narrow(0, 0, n as i64)?.reshape(&dims)?))
}

/// A contiguous tensor of `shape` holding `src`'s elements at the storage offsets `offsets`
/// (int64, on the device, of `shape`, each inside src's storage).
pub fn take_at(src: &Tensor, offsets: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let (ctx, sb) = buffer_of(src, "index")?;
    let (_, tb) = buffer_of(offsets, "index")?;
    let (out, ob) = output(ctx, shape, src.dtype())?;
    // The offsets' low words: every other u32, from twice the int64 offset.
    let l = offsets.layout();
    let words = Layout { shape: l.shape.clone(), strides: l.strides.iter().map(|s| 2 * s).collect(), offset: 2 * l.offset };
    elementwise::take(ctx, &sb, src.dtype(), View { buffer: &tb, dtype: DType::I32, layout: &words }, view(&out, &ob))?;
    Ok(out)
}

/// The `segment_sum` / `segment_last` list for values aimed at row-major `targets` (int64 on
/// the device, each inside `0..n`) of an output of `n` elements, from a contiguous source.
fn segment_list(ctx: &'static Context, n: usize, targets: &Tensor, src: &Tensor) -> Result<WgpuStorage> {
    let m = targets.numel();
    let flat = targets.contiguous()?.reshape(&[m as i64])?;
    let order = sort(&flat, 0, false)?;
    let (_, tb) = buffer_of(&flat, "index_add")?;
    let (_, pb) = buffer_of(&order, "index_add")?;
    let list = WgpuStorage::new(ctx, DType::I32, n + 1 + m)?;
    elementwise::segment_list(ctx, (&tb, flat.storage_offset()), &pb, (n, m), src.storage_offset(), list.buffer())?;
    Ok(list)
}

/// Adds, in order of `k`, element `k` of the contiguous `src` to element `targets[k]` of the
/// contiguous `out` (which starts with its own values): the targets are row-major positions
/// in out, int64 on the device, checked by whoever made them. Repeated targets sum the same
/// way on every run, and as the CPU sums them. Float16/bfloat16 accumulate in float32,
/// integers in int64.
pub fn add_at_positions(out: &Tensor, targets: &Tensor, src: &Tensor) -> Result<()> {
    move_to_positions(out, targets, src, true)
}

/// Writes element `k` of the contiguous `src` to element `targets[k]` of the contiguous `out`,
/// as `add_at_positions` adds; of repeated targets the last in order wins.
pub fn put_at_positions(out: &Tensor, targets: &Tensor, src: &Tensor) -> Result<()> {
    move_to_positions(out, targets, src, false)
}

/// `add_at_positions` (`add`) or `put_at_positions`.
fn move_to_positions(out: &Tensor, targets: &Tensor, src: &Tensor, add: bool) -> Result<()> {
    let op = if add { "index_add" } else { "index_put_" };
    if !out.is_contiguous()
        || src.dtype() != out.dtype()
        || !src.is_contiguous()
        || targets.dtype() != DType::I64
        || targets.numel() != src.numel()
    {
        return Err(Error::Runtime(format!(
            "wgpu {op}: a contiguous output, a contiguous source of its dtype and one int64 target per source element"
        )));
    }
    if targets.numel() == 0 || out.numel() == 0 {
        return Ok(());
    }
    let (ctx, ob) = buffer_of(out, op)?;
    let (_, sb) = buffer_of(src, op)?;
    let list = segment_list(ctx, out.numel(), targets, src)?;
    if add {
        elementwise::segment_sum(ctx, &sb, list.buffer(), view(out, &ob))?;
    } else {
        elementwise::segment_last(ctx, &sb, list.buffer(), view(out, &ob))?;
    }
    out.storage_cell().bump_version();
    Ok(())
}

/// `src` gathered along `dim` by the integer tensor `index` on the same device, into a new
/// contiguous tensor of `shape`: element `i` is `src`'s at `src_at`'s offset of `i` plus
/// `index_at`'s element `i` times `src`'s stride of `dim` (`src_at` and `index_at` view the two
/// storages at `shape`, `src_at` with `dim`'s stride zeroed). The indices never leave the
/// device: bounds are checked there, and one flag word comes back. None when an index is
/// outside the dim, for the caller to raise its own error.
pub fn gather_index(
    src: &Tensor,
    src_at: &Layout,
    dim: usize,
    index: &Tensor,
    index_at: &Layout,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    let (ctx, sb) = buffer_of(src, "gather")?;
    let (_, ib) = buffer_of(index, "gather")?;
    let dt = src.dtype();
    let layout = Layout::contiguous(shape.to_vec())?;
    // The flag word follows the elements in the output's buffer.
    let size = dt.size_in_bytes();
    let flag = (layout.numel() * size).div_ceil(4);
    let s = WgpuStorage::new(ctx, dt, ((flag + 1) * 4).div_ceil(size))?;
    let ob = s.buffer().clone();
    ctx.record(|enc| enc.clear_buffer(&ob, flag as u64 * 4, Some(4)));
    let sv = View { buffer: &sb, dtype: dt, layout: src_at };
    let iv = View { buffer: &ib, dtype: index.dtype(), layout: index_at };
    let ov = View { buffer: &ob, dtype: dt, layout: &layout };
    elementwise::gather_index(ctx, sv, src.strides()[dim], src.shape()[dim], iv, ov, super::strided::u32_of(flag)?)?;
    if s.read_word(flag)? != 0 {
        return Ok(None);
    }
    Ok(Some(Tensor::from_storage(Storage::Wgpu(s), layout)))
}

/// `out` (contiguous, from element 0) with `src` (contiguous, of out's dtype and `index`'s shape)
/// scattered along `dim` by the integer tensor `index` on the same device: element `i` of src
/// goes to out's position `i` with its `dim` coordinate replaced by index's element `i`; of
/// repeated positions the last in index order wins. The indices never leave the device: bounds
/// are checked there and one flag word comes back. False (out partly written) when an index
/// is outside the dim, for the caller to raise its own error.
pub fn scatter_index(out: &Tensor, dim: usize, index: &Tensor, src: &Tensor) -> Result<bool> {
    if !out.is_contiguous()
        || out.storage_offset() != 0
        || !src.is_contiguous()
        || src.dtype() != out.dtype()
        || src.shape() != index.shape()
    {
        return Err(Error::Runtime("wgpu scatter: a contiguous output and a contiguous source of its dtype in the index's shape".into()));
    }
    if index.numel() == 0 {
        return Ok(true);
    }
    let (ctx, ob) = buffer_of(out, "scatter")?;
    let (_, ib) = buffer_of(index, "scatter")?;
    let (_, sb) = buffer_of(src, "scatter")?;
    let n = out.numel();
    // One claim word per output element, then the flag word, all zero.
    let claim = WgpuStorage::new(ctx, DType::I32, n + 1)?;
    let cb = claim.buffer().clone();
    ctx.record(|enc| enc.clear_buffer(&cb, 0, None));
    let mut at = out.layout().clone();
    at.shape = index.shape().to_vec();
    at.strides[dim] = 0;
    let (iv, sv, ov) = (view(index, &ib), view(src, &sb), View { buffer: &ob, dtype: out.dtype(), layout: &at });
    elementwise::scatter_index(ctx, &cb, sv, out.strides()[dim], out.shape()[dim], iv, ov, super::strided::u32_of(n)?)?;
    out.storage_cell().bump_version();
    Ok(claim.read_word(n)? == 0)
}

/// `dst`'s storage at `offsets[k]` = element `k` of `values` (same dtype, contiguous, one per
/// offset); of repeated offsets the last write wins. Bumps `dst`'s version.
pub fn put(dst: &Tensor, offsets: &[usize], values: &Tensor) -> Result<()> {
    if values.dtype() != dst.dtype() || !values.is_contiguous() || values.numel() != offsets.len() {
        return Err(Error::Runtime("wgpu put: values must be contiguous, of the target's dtype, one per offset".into()));
    }
    let (ctx, db) = buffer_of(dst, "index_put_")?;
    let (_, vb) = buffer_of(values, "index_put_")?;
    let mut last = std::collections::HashMap::with_capacity(offsets.len());
    for (k, &o) in offsets.iter().enumerate() {
        last.insert(o, k);
    }
    let mut pairs: Vec<(usize, usize)> = last.into_iter().collect();
    pairs.sort_unstable();
    let mut flat = Vec::with_capacity(2 * pairs.len());
    for (o, k) in &pairs {
        flat.push(super::strided::u32_of(*o)?);
        flat.push(super::strided::u32_of(values.storage_offset() + k)?);
    }
    if pairs.is_empty() {
        return Ok(());
    }
    let list = upload_u32(ctx, &flat)?;
    elementwise::put(ctx, &vb, list.buffer(), pairs.len(), (&db, dst.dtype()))?;
    dst.storage_cell().bump_version();
    Ok(())
}

/// Adds, in order of `k`, element `src_offsets[k]` of `src`'s storage to element `targets[k]`
/// of the contiguous `out` (which starts with its own values). Float16/bfloat16 accumulate in
/// float32, integers in int64.
pub fn add_at(out: &Tensor, targets: &[usize], src: &Tensor, src_offsets: &[usize]) -> Result<()> {
    if !out.is_contiguous() || src.dtype() != out.dtype() || targets.len() != src_offsets.len() {
        return Err(Error::Runtime("wgpu add_at: a contiguous output of the source's dtype, one target per source element".into()));
    }
    let n = out.numel();
    if targets.is_empty() || n == 0 {
        return Ok(());
    }
    let (ctx, ob) = buffer_of(out, "index_add")?;
    let (_, sb) = buffer_of(src, "index_add")?;
    // Per output element, its sources in order: starts[n + 1], then the source offsets.
    let mut list = crate::cpu::buffer::filled(n + 1 + targets.len(), 0u32)?;
    for &t in targets {
        if t >= n {
            return Err(Error::Runtime("wgpu add_at: target out of range".into()));
        }
        list[t + 1] += 1;
    }
    for i in 0..n {
        list[i + 1] += list[i];
    }
    let mut next: Vec<u32> = list[..n].to_vec();
    for (&t, &o) in targets.iter().zip(src_offsets) {
        list[n + 1 + next[t] as usize] = super::strided::u32_of(o)?;
        next[t] += 1;
    }
    let buf = upload_u32(ctx, &list)?;
    elementwise::segment_sum(ctx, &sb, buf.buffer(), view(out, &ob))?;
    out.storage_cell().bump_version();
    Ok(())
}

/// `a @ b` for `[.., m, k]` and `[.., k, n]` tensors with equal batch shapes, both of one
/// dtype. Float16 and bfloat16 operands are converted to float32, multiplied with float32
/// accumulation and the product rounded once to their dtype (as the CPU's half product does);
/// integer and bool products are exact.
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    matmul_add(a, b, None)
}

/// `a @ b + bias` as `matmul`, with `bias` (of the operands' dtype, broadcasting to the product)
/// added to each float sum of products before it is stored (once rounded, for the half types),
/// in the same kernel where its batch dims merge with the operands'.
pub fn matmul_add(a: &Tensor, b: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let dt = a.dtype();
    if b.dtype() != dt {
        return Err(Error::Runtime(format!("wgpu matmul: operands of dtypes {} and {}", dt.name(), b.dtype().name())));
    }
    if bias.is_some_and(|d| d.dtype() != dt || !dt.is_floating_point()) {
        // The sum keeps the binary op's type promotion.
        return matmul(a, b)?.binary(BinaryOp::Add, bias.expect("checked"));
    }
    if !dt.is_floating_point() {
        return matmul_int(a, b);
    }
    if !matches!(dt, DType::F32 | DType::F64 | DType::F16 | DType::BF16) {
        return Err(dtype_not_on_device("matmul", dt, a.device()));
    }
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let batch_shape = &a.shape()[..nd - 2];
    let batches: usize = batch_shape.iter().product();
    let mut out_shape = batch_shape.to_vec();
    out_shape.extend([m, n]);
    let bias = bias.map(|d| d.expand(&out_shape.iter().map(|&s| s as i64).collect::<Vec<_>>())).transpose()?;
    // The kernel takes one batch stride per operand: merge the batch dims, or copy operands
    // whose batch dims do not merge (and add a bias whose dims do not after).
    let mut batch_strides = vec![&a.strides()[..nd - 2], &b.strides()[..nd - 2]];
    if let Some(d) = &bias {
        batch_strides.push(&d.strides()[..nd - 2]);
    }
    let (merged, strides) = super::strided::coalesce(batch_shape, &batch_strides);
    if merged.len() > 1 {
        if let Some(d) = &bias {
            return matmul_add(a, b, None)?.binary(BinaryOp::Add, d);
        }
        return matmul(&a.contiguous()?, &b.contiguous()?);
    }
    let batch_stride = |i: usize| strides[i].first().copied().unwrap_or(0);
    let (ctx, ab) = buffer_of(a, "matmul")?;
    let (_, bb) = buffer_of(b, "matmul")?;
    let db = bias.as_ref().map(|d| buffer_of(d, "matmul")).transpose()?;
    // Half-type products come out in float32 and are rounded once, after.
    let half = matches!(dt, DType::F16 | DType::BF16);
    let (out, ob) = output(ctx, &out_shape, if half { DType::F32 } else { dt })?;
    let mat = |t: &Tensor, buffer, bs| Mat {
        buffer,
        offset: t.storage_offset(),
        batch_stride: bs,
        row_stride: t.strides()[nd - 2],
        col_stride: t.strides()[nd - 1],
    };
    let (ma, mb) = (mat(a, &ab, batch_stride(0)), mat(b, &bb, batch_stride(1)));
    let md = bias.as_ref().zip(db.as_ref()).map(|(d, (_, buffer))| mat(d, buffer, batch_stride(2)));
    let max = ctx.limits.max_compute_workgroups_per_dimension as usize;
    if m.div_ceil(64) > max || n.div_ceil(64) > max {
        return Err(Error::NotImplemented(format!("wgpu matmul of {m}x{k} by {k}x{n}: the output is too large for one grid")));
    }
    super::matmul::matmul(ctx, dt, &ma, &mb, md.as_ref(), batches, (m, k, n), &ob)?;
    if half {
        return out.to_dtype(dt);
    }
    Ok(out)
}

/// The image kernels compute in float32 or float64.
fn require_float(t: &Tensor, op: &str) -> Result<()> {
    if !matches!(t.dtype(), DType::F32 | DType::F64) {
        return Err(dtype_not_on_device(op, t.dtype(), t.device()));
    }
    Ok(())
}

/// max_pool2d of the float32 or float64 planes of `x` (g.planes of them, each g.in_size) in
/// one kernel: the maxima and their int64 positions within each input plane, of `out_shape`.
pub fn max_pool2d(x: &Tensor, g: &PoolGeom, out_shape: &[usize]) -> Result<(Tensor, Tensor)> {
    require_float(x, "max_pool2d")?;
    let x = x.contiguous()?;
    let (ctx, xb) = buffer_of(&x, "max_pool2d")?;
    let (values, vb) = output(ctx, out_shape, x.dtype())?;
    let (positions, pb) = output(ctx, out_shape, DType::I64)?;
    super::image::max_pool2d(ctx, x.dtype(), (&xb, x.storage_offset()), g, &vb, &pb)?;
    Ok((values, positions))
}

/// The input gradient, of `shape`, of max_pool2d from its output gradient `grad` and the
/// `positions` it returned: each input element sums the gradients of the windows it won.
pub fn max_pool2d_backward(grad: &Tensor, positions: &Tensor, g: &PoolGeom, shape: &[usize]) -> Result<Tensor> {
    require_float(grad, "max_pool2d_backward")?;
    let (grad, positions) = (grad.contiguous()?, positions.contiguous()?);
    let (ctx, gb) = buffer_of(&grad, "max_pool2d_backward")?;
    let (_, pb) = buffer_of(&positions, "max_pool2d_backward")?;
    let (out, ob) = output(ctx, shape, grad.dtype())?;
    super::image::max_pool2d_backward(ctx, grad.dtype(), (&gb, grad.storage_offset()), (&pb, positions.storage_offset()), g, &ob)?;
    Ok(out)
}

/// The images, of `shape`, whose patches of geometry `g` have the gradients `cols` (float32 or
/// float64, (planes, kh, kw, oh, ow)): each element sums the gradients of the taps that read it.
pub fn col2im(cols: &Tensor, g: &PoolGeom, shape: &[usize]) -> Result<Tensor> {
    require_float(cols, "convolution")?;
    let cols = cols.contiguous()?;
    let (ctx, cb) = buffer_of(&cols, "convolution")?;
    let (out, ob) = output(ctx, shape, cols.dtype())?;
    super::image::col2im(ctx, cols.dtype(), (&cb, cols.storage_offset()), g, &ob)?;
    Ok(out)
}

/// nll_loss of the float32 or float64 `scores` (rows of `classes`) against the int64 `target`
/// (one per row), with optional per-class `weight`s, in one kernel: the loss (of `out_shape`:
/// one per row without reduction), and per row the slope d loss / d score at the target and
/// that target (0 where ignored), as the backward needs them. None where a target is out of
/// range: the one flag word read back.
pub fn nll_loss(
    scores: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    classes: usize,
    ignore_index: i64,
    reduction: Reduction,
    out_shape: &[usize],
) -> Result<Option<(Tensor, Tensor, Tensor)>> {
    require_float(scores, "nll_loss")?;
    let dt = scores.dtype();
    let n = target.numel();
    let (scores, target) = (scores.contiguous()?, target.contiguous()?);
    let weight = weight.map(|w| w.contiguous()).transpose()?;
    let (ctx, sb) = buffer_of(&scores, "nll_loss")?;
    let (_, tb) = buffer_of(&target, "nll_loss")?;
    let wb = weight.as_ref().map(|w| buffer_of(w, "nll_loss")).transpose()?;
    let (loss, lb) = output(ctx, out_shape, dt)?;
    let (slopes, slb) = output(ctx, &[n], dt)?;
    // The picks, then the flag word as one more int64 element, zeroed.
    let picks = WgpuStorage::new(ctx, DType::I64, n + 1)?;
    let pb = picks.buffer().clone();
    ctx.record(|enc| enc.clear_buffer(&pb, n as u64 * 8, Some(8)));
    let weights = weight.as_ref().zip(wb.as_ref()).map(|(w, (_, b))| (b, w.storage_offset()));
    let outputs = super::loss::Outputs { loss: &lb, slopes: &slb, picks: &pb };
    super::loss::nll_loss(
        ctx,
        dt,
        (&sb, scores.storage_offset()),
        (&tb, target.storage_offset()),
        weights,
        (n, classes),
        ignore_index,
        reduction,
        outputs,
    )?;
    if picks.read_word(2 * n)? != 0 {
        return Ok(None);
    }
    let picks =
        Tensor::from_storage(Storage::Wgpu(picks), Layout::contiguous(vec![n + 1])?).narrow(0, 0, n as i64)?.reshape(&[n as i64, 1])?;
    Ok(Some((loss, slopes, picks)))
}

/// The rows of a softmax of `t` along `dim`, as the kernels take them: (rows, len, inner), each
/// row `len` elements `inner` apart.
fn softmax_rows(t: &Tensor, dim: usize) -> (usize, usize, usize) {
    let (len, inner) = match t.ndim() {
        0 => (1, 1),
        _ => (t.shape()[dim], t.shape()[dim + 1..].iter().product()),
    };
    (t.numel().checked_div(len).unwrap_or(0), len, inner)
}

/// softmax (or with `log` log_softmax) of the float32 or float64 `x` along `dim`, fused: a new
/// contiguous tensor of x's shape and dtype (a non-contiguous `x` is copied contiguous first).
pub fn softmax(x: &Tensor, dim: usize, log: bool) -> Result<Tensor> {
    let name = if log { "log_softmax" } else { "softmax" };
    if !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Err(dtype_not_on_device(name, x.dtype(), x.device()));
    }
    let x = if x.is_contiguous() { x.clone() } else { x.contiguous()? };
    let (ctx, xb) = buffer_of(&x, name)?;
    let (out, ob) = output(ctx, x.shape(), x.dtype())?;
    super::softmax::softmax(ctx, x.dtype(), log, &xb, x.storage_offset(), softmax_rows(&x, dim), &ob)?;
    Ok(out)
}

/// The input gradient of softmax (or with `log` log_softmax) along `dim` from its float32 or
/// float64 output `y` and output gradient `g` (same shape and dtype), fused: a new contiguous
/// tensor of y's shape (non-contiguous operands are copied contiguous first).
pub fn softmax_backward(g: &Tensor, y: &Tensor, dim: usize, log: bool) -> Result<Tensor> {
    let name = if log { "log_softmax_backward" } else { "softmax_backward" };
    if !matches!(y.dtype(), DType::F32 | DType::F64) || g.dtype() != y.dtype() {
        return Err(dtype_not_on_device(name, g.dtype(), y.device()));
    }
    if g.shape() != y.shape() {
        return Err(Error::Runtime(format!("{name}: the gradient's shape {:?} differs from the output's {:?}", g.shape(), y.shape())));
    }
    let y = if y.is_contiguous() { y.clone() } else { y.contiguous()? };
    let g = if g.is_contiguous() { g.clone() } else { g.contiguous()? };
    let (ctx, yb) = buffer_of(&y, name)?;
    let (_, gb) = buffer_of(&g, name)?;
    let (out, ob) = output(ctx, y.shape(), y.dtype())?;
    super::softmax::softmax_backward(
        ctx,
        y.dtype(),
        log,
        (&yb, y.storage_offset()),
        (&gb, g.storage_offset()),
        softmax_rows(&y, dim),
        &ob,
    )?;
    Ok(out)
}

/// An operand of the norm kernels: contiguous (a copy when it is not), of the dtype the launch
/// computes in, with its device, buffer and start.
struct NormOperand {
    t: Tensor,
    ctx: &'static Context,
    buffer: wgpu::Buffer,
}

impl NormOperand {
    /// `t` as an operand of a launch computing in `dtype` (float32 or float64).
    fn new(t: &Tensor, dtype: DType, op: &str) -> Result<NormOperand> {
        if t.dtype() != dtype || !matches!(dtype, DType::F32 | DType::F64) {
            return Err(dtype_not_on_device(op, t.dtype(), t.device()));
        }
        let t = if t.is_contiguous() { t.clone() } else { t.contiguous()? };
        // The kernels index with 32 bits, from the start of the buffer.
        super::strided::u32_of(t.storage_offset() + t.numel())?;
        let (ctx, buffer) = buffer_of(&t, op)?;
        Ok(NormOperand { t, ctx, buffer })
    }

    /// A statistics operand: the kernels read those from element 0.
    fn stats(t: &Tensor, dtype: DType, op: &str) -> Result<NormOperand> {
        let at_start = t.is_contiguous() && t.storage_offset() == 0;
        NormOperand::new(&if at_start { t.clone() } else { t.copy_as(t.dtype())? }, dtype, op)
    }

    fn operand(&self) -> super::float_shaders::Operand<'_> {
        (&self.buffer, self.t.storage_offset())
    }
}

fn norm_operands(t: Option<&Tensor>, dtype: DType, op: &str) -> Result<Option<NormOperand>> {
    t.map(|t| NormOperand::new(t, dtype, op)).transpose()
}

/// Layer norm of the float32 or float64 `x` as rows of its last `cols` elements (weight and
/// bias of x's dtype), fused: a new contiguous output of x's shape and each row's mean and rstd
/// (one per row, in x's dtype).
pub fn layer_norm(x: &Tensor, cols: usize, weight: Option<&Tensor>, bias: Option<&Tensor>, eps: f64) -> Result<(Tensor, Tensor, Tensor)> {
    let op = "layer_norm";
    let dt = x.dtype();
    let x = NormOperand::new(x, dt, op)?;
    let (w, b) = (norm_operands(weight, dt, op)?, norm_operands(bias, dt, op)?);
    let rows = x.t.numel().checked_div(cols).unwrap_or(0);
    let ctx = x.ctx;
    let (out, ob) = output(ctx, x.t.shape(), dt)?;
    let (mean, mb) = output(ctx, &[rows], dt)?;
    let (rstd, rb) = output(ctx, &[rows], dt)?;
    let stats = super::norm::Stats { mean: &mb, rstd: &rb };
    super::norm::layer_norm(
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
    x: &Tensor,
    g: &Tensor,
    weight: Option<&Tensor>,
    (mean, rstd): (&Tensor, &Tensor),
    cols: usize,
    want: [bool; 3],
) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
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
    let stats = || super::norm::Stats { mean: &m.buffer, rstd: &r.buffer };
    let dx = if want[0] {
        let (dx, db) = output(ctx, x.t.shape(), dt)?;
        super::norm::layer_norm_backward(
            ctx,
            dt,
            x.operand(),
            g.operand(),
            w.as_ref().map(NormOperand::operand),
            (rows, cols),
            stats(),
            &db,
        )?;
        Some(dx)
    } else {
        None
    };
    if !want[1] && !want[2] {
        return Ok((dx, None, None));
    }
    let (dw, dwb) = output(ctx, &[cols], dt)?;
    let (db, dbb) = output(ctx, &[cols], dt)?;
    let chunks = super::norm::param_grad_chunks(rows);
    // The partial sums' tensors live until the launches are recorded: dropped, their buffers
    // would go back to the pool (and could serve the second while the first is in use).
    let partials = if chunks > 1 {
        let size = [chunks.checked_mul(cols).ok_or_else(|| Error::Runtime(format!("{op}: {rows} rows of {cols} overflow")))?];
        Some((output(ctx, &size, dt)?, output(ctx, &size, dt)?))
    } else {
        None
    };
    let partials = partials.as_ref().map(|((_, w), (_, b))| (w, b));
    super::norm::layer_norm_param_grads(ctx, dt, x.operand(), g.operand(), (rows, cols), stats(), (&dwb, &dbb), partials)?;
    Ok((dx, want[1].then_some(dw), want[2].then_some(db)))
}

/// An (N, C, ...) tensor as the batch norm kernels see it.
fn planes(x: &Tensor) -> super::norm::Planes {
    let shape = x.shape();
    super::norm::Planes { batch: shape[0], channels: shape[1], plane: shape[2..].iter().product() }
}

/// Batch norm of the float32 or float64 (N, C, ...) `x` (weight, bias and running statistics of
/// x's dtype), fused: a new contiguous output of x's shape and per channel the mean, rstd and
/// biased variance used (in x's dtype): the batch's when `training`, else `running` (mean,
/// variance), copied.
pub fn batch_norm(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running: Option<(&Tensor, &Tensor)>,
    training: bool,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor, Tensor)> {
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
        (false, Some((m, v))) => (m.copy_as(dt)?, v.copy_as(dt)?),
        (false, None) => return Err(Error::Runtime("running_mean and running_var must be defined in evaluation mode".into())),
    };
    let (m, e) = (NormOperand::new(&mean, dt, op)?, NormOperand::new(&extra, dt, op)?);
    let stats = super::norm::Stats { mean: &m.buffer, rstd: &rb };
    super::norm::batch_norm(
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
    let var = extra.narrow(0, 0, s.channels as i64)?;
    Ok((out, mean, rstd, var))
}

/// The gradients of a batch norm from its float32 or float64 input `x`, output gradient `g`,
/// weight and the forward's per channel (mean, rstd), all of x's dtype: x's when `want_x`
/// (through the batch statistics when `training`), and always the weight's and the bias's
/// (flat, one per channel). Fused.
pub fn batch_norm_backward(
    x: &Tensor,
    g: &Tensor,
    weight: Option<&Tensor>,
    (mean, rstd): (&Tensor, &Tensor),
    training: bool,
    want_x: bool,
) -> Result<(Option<Tensor>, Tensor, Tensor)> {
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
    let stats = super::norm::Stats { mean: &m.buffer, rstd: &r.buffer };
    super::norm::batch_norm_backward(
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
    let n = s.channels as i64;
    let (dw, db) = (sums.narrow(0, 0, n)?.copy_as(dt)?, sums.narrow(0, n, n)?.copy_as(dt)?);
    Ok((want_x.then_some(dx), dw, db))
}

/// `matmul` of integer (or bool) operands, exact: each output element sums its `k` products in
/// int64 (wrapping) and keeps the low bits of its dtype, as the CPU's integer product does.
/// Any strides and batch dims; no copies.
fn matmul_int(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let mut out_shape = a.shape()[..nd - 2].to_vec();
    out_shape.extend([m, n]);
    let (ctx, ab) = buffer_of(a, "matmul")?;
    let (_, bb) = buffer_of(b, "matmul")?;
    let (out, ob) = output(ctx, &out_shape, a.dtype())?;
    // a walks out's rows and b its columns; the summed dim is walked by the kernel.
    let at = |t: &Tensor, zeroed: usize| {
        let mut strides = t.strides().to_vec();
        strides[zeroed] = 0;
        Layout { shape: out_shape.clone(), strides, offset: t.storage_offset() }
    };
    let (la, lb) = (at(a, nd - 1), at(b, nd - 2));
    let steps = (a.strides()[nd - 1], b.strides()[nd - 2]);
    elementwise::matmul_int(ctx, View { layout: &la, ..view(a, &ab) }, View { layout: &lb, ..view(b, &bb) }, k, steps, view(&out, &ob))?;
    Ok(out)
}
