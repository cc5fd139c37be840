//! Array-level entry points of the elementwise and indexing kernels (launched by `elementwise`):
//! the tensor layer calls these once it has found its operands on a wgpu device; they check
//! dtypes, allocate outputs and record the launches. The other families' entry points sit in
//! their launcher's file (`reduce`, `matmul`, `pooling`, `loss`, `softmax`, `norm`); what they
//! all share is in `operands`.

use crate::backend::{Array, IndexTerm, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::binary::BinaryOp;
use crate::ops::unary::UnaryOp;
use crate::scalar::Scalar;
use crate::storage::{dtype_not_on_device, not_on_device, Storage};

use super::context::Context;
use super::elementwise::{self, binary_kernel, scalar_bits, unary_code, unary_int_code, BinaryKernel, Input, View};
use super::operands::{buffer_of, context_of, output, view};
use super::storage::WgpuStorage;

/// `op(x)`: float ops in float32 for float16, bfloat16 and float32 tensors and in float64 for
/// float64 (results keep the input's dtype); on integer and bool tensors the ops that keep
/// integers (neg, abs, sign, relu, rounding, bitwise_not) and logical_not (which gives bool).
pub fn unary(x: &Array, op: UnaryOp) -> Result<Array> {
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
            return binary(BinaryOp::Eq, Operand::Array(x), Operand::Scalar(Scalar::Int(0)), x.shape(), x.device(), dt, DType::Bool);
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

/// The operand's buffer (taken before any output is allocated), if it is a tensor.
fn held(x: &Operand<'_>, op: &str) -> Result<Option<wgpu::Buffer>> {
    match x {
        Operand::Array(t) => Ok(Some(buffer_of(t, op)?.1)),
        Operand::Scalar(_) => Ok(None),
    }
}

/// The kernel input of an operand; scalars travel as the bits of `scalar_dtype`.
fn input<'b>(x: &'b Operand<'_>, held: &'b Option<wgpu::Buffer>, scalar_dtype: DType) -> Result<Input<'b>> {
    Ok(match (x, held) {
        (Operand::Array(t), Some(buf)) => Input::Buffer(view(t, buf)),
        (Operand::Scalar(v), _) => Input::Scalar(scalar_dtype, scalar_bits(*v, scalar_dtype)),
        (Operand::Array(_), None) => return Err(Error::Runtime("wgpu: a tensor operand without its buffer".into())),
    })
}

/// `a op b` computed in `compute` into a new tensor of `shape` and dtype `out_dtype` on
/// `device`. Array operands of any dtype are converted as they are loaded.
pub fn binary(
    op: BinaryOp,
    a: Operand<'_>,
    b: Operand<'_>,
    shape: &[usize],
    device: crate::Device,
    compute: DType,
    out_dtype: DType,
) -> Result<Array> {
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
pub fn where_(cond: &Array, a: Operand<'_>, b: Operand<'_>, shape: &[usize], dtype: DType) -> Result<Array> {
    let (ctx, cb) = buffer_of(cond, "where")?;
    let (ha, hb) = (held(&a, "where")?, held(&b, "where")?);
    for x in [&a, &b] {
        if let Operand::Array(t) = x {
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
pub fn copy_strided(src: &Array, dst: &Array) -> Result<()> {
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
pub fn take(src: &Array, offsets: &[usize], shape: &[usize]) -> Result<Array> {
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

/// The storage offsets (int64, contiguous, of `walk`'s shape) of the elements integer indices
/// select: `walk`'s offset of each element plus, for each term, its index times its stride.
/// The indices never leave the device: they are checked there (negative ones counting from
/// the end of their dim when `wrap`), and one word comes back. None when an index is outside
/// its dim, for the caller to word its own error.
pub fn index_offsets(walk: &Layout, terms: &[IndexTerm<'_>], wrap: bool) -> Result<Option<Array>> {
    make_index_offsets(walk, terms, wrap, true)
}

/// `index_offsets` of indices already checked (a gradient's, whose forward pass checked them):
/// no flag is read back, so nothing waits for the device.
pub fn index_offsets_of_checked(walk: &Layout, terms: &[IndexTerm<'_>]) -> Result<Array> {
    Ok(make_index_offsets(walk, terms, false, false)?.expect("unread flags pass"))
}

fn make_index_offsets(walk: &Layout, terms: &[IndexTerm<'_>], wrap: bool, read_flag: bool) -> Result<Option<Array>> {
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
        return Ok(Some(Array::new(Storage::Wgpu(WgpuStorage::new(ctx, DType::I64, 0)?), Layout::contiguous(shape)?)));
    }
    let unwalked = Layout { shape: shape.clone(), strides: vec![0; shape.len()], offset: 0 };
    let dense = Layout::contiguous(shape.clone())?;
    let flag = super::strided::u32_of(2 * n)?;
    let mut total: Option<Array> = None;
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
        let t = Array::new(Storage::Wgpu(s), Layout::contiguous(vec![n + 1])?);
        total = Some(match total {
            None => t,
            Some(sum) => binary(BinaryOp::Add, Operand::Array(&sum), Operand::Array(&t), &[n + 1], sum.device(), DType::I64, DType::I64)?,
        });
    }
    let total = total.expect("one term at least");
    if !read_flag {
        return Ok(Some(total.narrow(0, 0, n)?.view_as(&shape)?));
    }
    let flagged = {
        let st = total.storage().read();
        match &*st {
            Storage::Wgpu(s) => s.read_word(2 * n)?,
            Storage::Cpu(_) => unreachable!("offsets are made on the device"),
        }
    };
    if flagged != 0 {
        return Ok(None);
    }
    Ok(Some(total.narrow(0, 0, n)?.view_as(&shape)?))
}

/// A contiguous tensor of `shape` holding `src`'s elements at the storage offsets `offsets`
/// (int64, on the device, of `shape`, each inside src's storage).
pub fn take_at(src: &Array, offsets: &Array, shape: &[usize]) -> Result<Array> {
    let (ctx, sb) = buffer_of(src, "index")?;
    let (_, tb) = buffer_of(offsets, "index")?;
    let (out, ob) = output(ctx, shape, src.dtype())?;
    // The offsets' low words: every other u32, from twice the int64 offset.
    let l = offsets.layout();
    let words = Layout { shape: l.shape.clone(), strides: l.strides.iter().map(|s| 2 * s).collect(), offset: 2 * l.offset };
    elementwise::take(ctx, &sb, src.dtype(), View { buffer: &tb, dtype: DType::I32, layout: &words }, view(&out, &ob))?;
    Ok(out)
}

/// `src` gathered along `dim` by the integer tensor `index` on the same device, into a new
/// contiguous tensor of `shape`: element `i` is `src`'s at `src_at`'s offset of `i` plus
/// `index_at`'s element `i` times `src`'s stride of `dim` (`src_at` and `index_at` view the two
/// storages at `shape`, `src_at` with `dim`'s stride zeroed). The indices never leave the
/// device: bounds are checked there, and one flag word comes back. None when an index is
/// outside the dim, for the caller to raise its own error.
pub fn gather_index(src: &Array, src_at: &Layout, dim: usize, index: &Array, index_at: &Layout, shape: &[usize]) -> Result<Option<Array>> {
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
    Ok(Some(Array::new(Storage::Wgpu(s), layout)))
}

/// `out` (contiguous, from element 0) with `src` (contiguous, of out's dtype and `index`'s shape)
/// scattered along `dim` by the integer tensor `index` on the same device: element `i` of src
/// goes to out's position `i` with its `dim` coordinate replaced by index's element `i`; of
/// repeated positions the last in index order wins. The indices never leave the device: bounds
/// are checked there and one flag word comes back. False (out partly written) when an index
/// is outside the dim, for the caller to raise its own error.
pub fn scatter_index(out: &Array, dim: usize, index: &Array, src: &Array) -> Result<bool> {
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
    out.storage().bump_version();
    Ok(claim.read_word(n)? == 0)
}

/// `dst`'s storage at `offsets[k]` = element `k` of `values` (same dtype, contiguous, one per
/// offset); of repeated offsets the last write wins. Bumps `dst`'s version.
pub fn put(dst: &Array, offsets: &[usize], values: &Array) -> Result<()> {
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
    dst.storage().bump_version();
    Ok(())
}

/// Adds, in order of `k`, element `k` of the contiguous `src` to element `targets[k]` of the
/// contiguous `out` (which starts with its own values). Float16/bfloat16 accumulate in
/// float32, integers in int64.
pub fn add_at(out: &Array, targets: &[usize], src: &Array) -> Result<()> {
    if !out.is_contiguous() || !src.is_contiguous() || src.dtype() != out.dtype() || targets.len() != src.numel() {
        return Err(Error::Runtime("wgpu add_at: contiguous operands of one dtype, one target per source element".into()));
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
    for (k, &t) in targets.iter().enumerate() {
        list[n + 1 + next[t] as usize] = super::strided::u32_of(src.storage_offset() + k)?;
        next[t] += 1;
    }
    let buf = upload_u32(ctx, &list)?;
    elementwise::segment_sum(ctx, &sb, buf.buffer(), view(out, &ob))?;
    out.storage().bump_version();
    Ok(())
}

/// `out[.., idx[j], ..] += src[.., j, ..]` along `dim` in order of `j` (both contiguous, `src`
/// of out's shape but `idx.len()` along `dim`): `add_at` over the targets of src's elements.
pub fn index_add(out: &Array, dim: usize, idx: &[usize], src: &Array) -> Result<()> {
    let outer: usize = out.shape()[..dim].iter().product();
    let (size, inner) = (out.shape()[dim], out.shape()[dim + 1..].iter().product::<usize>());
    let mut targets = crate::cpu::buffer::with_capacity(outer * idx.len() * inner)?;
    for o in 0..outer {
        for &i in idx {
            targets.extend((0..inner).map(|k| (o * size + i) * inner + k));
        }
    }
    add_at(out, &targets, src)
}
