//! Launcher of `shaders/elementwise.wgsl` (the frame: parameters, element loads, stores and
//! conversions) and the kernel files that follow it: elementwise kernels over strided operands of
//! any dtype (every operand with its own strides; broadcast dims have stride 0). In
//! `elementwise_math.wgsl`, float32 and float64 unary and binary math, comparisons, the casting
//! copy and segment sums, one source compiled after either prelude (`elementwise_f32.wgsl`,
//! `elementwise_f64.wgsl`); in `elementwise_int.wgsl`, int64-exact integer ops, logical ops and
//! `where`; in `elementwise_index.wgsl`, the take / put / segment kernels that move elements
//! through host-computed offsets, and the gather and scatter kernels that read their indices on
//! the device.

use bytemuck::{Pod, Zeroable};

use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::binary::{BinaryClass, BinaryOp};
use crate::ops::unary::UnaryOp;

use super::batch::{grid, Launch};
use super::context::Context;
use super::shader::Shader;
use super::strided::{coalesce, pack, u32_of, Packed};

/// Every elementwise kernel, its float math in float32: the float32 prelude (the type `T` of
/// `elementwise_math.wgsl` and its math functions), the frame all kernels share, then the
/// kernels.
static SHADER: Shader = Shader {
    name: "elementwise",
    source: concat!(
        include_str!("shaders/elementwise_f32.wgsl"),
        include_str!("shaders/elementwise.wgsl"),
        include_str!("shaders/int64.wgsl"),
        include_str!("shaders/elementwise_math.wgsl"),
        include_str!("shaders/elementwise_int.wgsl"),
        include_str!("shaders/elementwise_index.wgsl")
    ),
    storage: &[true, false, false, false],
    trusted: false,
};

/// The kernels of `elementwise_math.wgsl` computing in float64, from the same source after the
/// float64 prelude (f64.wgsl's math last): a module of its own, compiled only on devices with
/// float64 shaders. The integer and indexing kernels move float64 elements as bits and need no
/// float64 arithmetic, so they are only in the float32 module.
static SHADER_F64: Shader = Shader {
    name: "elementwise_f64",
    source: concat!(
        include_str!("shaders/elementwise_f64.wgsl"),
        include_str!("shaders/elementwise.wgsl"),
        include_str!("shaders/int64.wgsl"),
        include_str!("shaders/elementwise_math.wgsl"),
        include_str!("shaders/f64.wgsl")
    ),
    storage: &[true, false, false, false],
    trusted: false,
};

const GROUP: usize = 256;

/// Flag bits of `Params::flags`.
const SCALAR_A: u32 = 1;
const SCALAR_B: u32 = 2;
const INT_MATH: u32 = 4;
/// `index_offsets`: negative indices count from the end of their dim.
const WRAP: u32 = 8;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    numel: u32,
    ndim: u32,
    flags: u32,
    count: u32,
    off_out: u32,
    off_a: u32,
    off_b: u32,
    off_c: u32,
    dt_out: u32,
    dt_a: u32,
    dt_b: u32,
    dt_c: u32,
    scalar_a: [u32; 2],
    scalar_b: [u32; 2],
    alpha: f32,
    beta: f32,
    steps: [u32; 2],
    args64: [u32; 4],
    shape: Packed,
    st_out: Packed,
    st_a: Packed,
    st_b: Packed,
    st_c: Packed,
}

/// The shader's code of a dtype (its position in `DType`).
pub(crate) fn dtype_code(d: DType) -> u32 {
    d as u32
}

/// A strided operand: a buffer, its dtype and a layout already broadcast to the output's shape.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub dtype: DType,
    pub layout: &'a Layout,
}

/// An operand: a strided view, or a number given as the bits of `dtype` (low word first).
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    Buffer(View<'a>),
    Scalar(DType, [u32; 2]),
}

impl Input<'_> {
    fn dtype(&self) -> DType {
        match self {
            Input::Buffer(v) => v.dtype,
            Input::Scalar(d, _) => *d,
        }
    }
}

/// The low and high words of a float64.
fn f64_words(v: f64) -> [u32; 2] {
    let b = v.to_bits();
    [b as u32, (b >> 32) as u32]
}

/// The bits of `v` as an element of `dtype` (float32, float64 or an integer dtype: the scalar
/// operands of the kernels' compute classes).
pub(crate) fn scalar_bits(v: crate::scalar::Scalar, dtype: DType) -> [u32; 2] {
    if dtype == DType::F64 {
        f64_words(v.to_f64())
    } else if dtype.is_floating_point() {
        [(v.to_f64() as f32).to_bits(), 0]
    } else {
        let i = if dtype == DType::Bool { (v.to_f64() != 0.0) as i64 } else { v.to_i64() };
        [i as u32, (i >> 32) as u32]
    }
}

/// The shader's op code and arguments of a float unary op; None for ops with no float kernel.
pub(crate) fn unary_code(op: UnaryOp) -> Option<(u32, f64, f64)> {
    use UnaryOp::*;
    Some(match op {
        PowScalar(e) => (36, e, 0.0),
        LogicalNot | BitwiseNot => return None,
        // The declared ops carry their code and parameters (`crate::ops::unary`).
        declared => declared.wgpu_kernel()?,
    })
}

/// The shader's op code of an integer unary op (`unary_int`); None for ops that are not
/// integer-valued on integers.
pub(crate) fn unary_int_code(op: UnaryOp) -> Option<u32> {
    use UnaryOp::*;
    Some(match op {
        Neg => 0,
        Abs => 1,
        Sign => 2,
        Relu => 3,
        Floor | Ceil | Round | Trunc => 4,
        BitwiseNot => 5,
        LogicalNot => 6,
        _ => return None,
    })
}

/// Which kernel computes a binary op, and its op code there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryKernel {
    /// Float arithmetic (`binary`, in float32 or float64).
    Float(u32),
    /// Int64 arithmetic (`binary_int`); integer and bool operands.
    Int(u32),
    /// eq .. ge (`compare`), in float32, float64 or, with `int`, in int64.
    Compare(u32),
    /// logical_and, _or, _xor (`logical`).
    Logical(u32),
}

/// The kernel of `op` computed in `compute`; None where the device has none (integer atan2,
/// float bitwise ops).
pub(crate) fn binary_kernel(op: BinaryOp, compute: DType) -> Option<BinaryKernel> {
    let (float, int) = op.wgpu_codes();
    Some(match op.class() {
        BinaryClass::Compare => BinaryKernel::Compare(float?),
        BinaryClass::Logical => BinaryKernel::Logical(float?),
        BinaryClass::Arith | BinaryClass::Bitwise if compute.is_floating_point() => BinaryKernel::Float(float?),
        BinaryClass::Arith | BinaryClass::Bitwise => BinaryKernel::Int(int?),
    })
}

/// One launch of the shader: an entry, its op, the output view and up to three operands
/// (`c` may be a plain u32 offset list, walked through its own strides).
struct Kernel<'a> {
    entry: &'static str,
    /// Whether the entry computes in float64 (the float64 module's; only `elementwise_math.wgsl`'s
    /// kernels are there).
    f64: bool,
    op: Option<u32>,
    flags: u32,
    count: u32,
    /// Strides of `a` and `b` along the summed dim (`matmul_int`).
    steps: [u32; 2],
    alpha: f64,
    beta: f64,
    out: View<'a>,
    a: Input<'a>,
    b: Option<Input<'a>>,
    c: Option<Input<'a>>,
}

fn launch<'a>(ctx: &Context, k: Kernel<'a>) -> Result<()> {
    let out_l = k.out.layout;
    let numel = out_l.numel();
    if numel == 0 {
        return Ok(());
    }
    let zeros = vec![0usize; out_l.ndim()];
    let strides_of = |i: Option<&Input<'_>>| match i {
        Some(Input::Buffer(v)) => v.layout.strides.clone(),
        _ => zeros.clone(),
    };
    let (sa, sb, sc) = (strides_of(Some(&k.a)), strides_of(k.b.as_ref()), strides_of(k.c.as_ref()));
    let (shape, st) = coalesce(&out_l.shape, &[&out_l.strides, &sa, &sb, &sc]);
    let offset = |i: Option<&Input<'_>>| match i {
        Some(Input::Buffer(v)) => v.layout.offset,
        _ => 0,
    };
    let scalar = |i: Option<&Input<'_>>| match i {
        Some(Input::Scalar(_, bits)) => *bits,
        _ => [0, 0],
    };
    let code = |i: Option<&Input<'_>>| i.map_or(0, |i| dtype_code(i.dtype()));
    let is_scalar = |i: Option<&Input<'_>>| matches!(i, Some(Input::Scalar(..)));
    let flags = k.flags | if is_scalar(Some(&k.a)) { SCALAR_A } else { 0 } | if is_scalar(k.b.as_ref()) { SCALAR_B } else { 0 };
    let params = Params {
        numel: u32_of(numel)?,
        ndim: shape.len() as u32,
        flags,
        count: k.count,
        off_out: u32_of(out_l.offset)?,
        off_a: u32_of(offset(Some(&k.a)))?,
        off_b: u32_of(offset(k.b.as_ref()))?,
        off_c: u32_of(offset(k.c.as_ref()))?,
        dt_out: dtype_code(k.out.dtype),
        dt_a: code(Some(&k.a)),
        dt_b: code(k.b.as_ref()),
        dt_c: code(k.c.as_ref()),
        scalar_a: scalar(Some(&k.a)),
        scalar_b: scalar(k.b.as_ref()),
        alpha: k.alpha as f32,
        beta: k.beta as f32,
        steps: k.steps,
        args64: {
            let (a, b) = (f64_words(k.alpha), f64_words(k.beta));
            [a[0], a[1], b[0], b[1]]
        },
        shape: pack(&shape)?,
        st_out: pack(&st[0])?,
        st_a: pack(&st[1])?,
        st_b: pack(&st[2])?,
        st_c: pack(&st[3])?,
    };
    // Scalar or missing operands still need some buffer bound: a tensor operand's (never the
    // output, which may not be bound twice in one dispatch).
    let buf = |i: Option<&Input<'a>>| match i {
        Some(Input::Buffer(v)) => Some(v.buffer),
        _ => None,
    };
    let any = buf(Some(&k.a))
        .or(buf(k.b.as_ref()))
        .or(buf(k.c.as_ref()))
        .ok_or_else(|| crate::error::Error::Runtime("wgpu elementwise kernel without a tensor operand".into()))?;
    let (ab, bb, cb) = (buf(Some(&k.a)).unwrap_or(any), buf(k.b.as_ref()).unwrap_or(any), buf(k.c.as_ref()).unwrap_or(any));
    let groups = u32_of(numel.div_ceil(GROUP))?;
    if k.f64 {
        // Named as the float64 kernels were when they were entries of their own (`unary_f64`).
        ctx.require_f64(&format!("{}_f64", k.entry))?;
    }
    ctx.launch(Launch {
        shader: if k.f64 { &SHADER_F64 } else { &SHADER },
        entry: k.entry,
        op: k.op,
        params: bytemuck::bytes_of(&params),
        buffers: &[k.out.buffer, ab, bb, cb],
        groups: grid(groups, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

fn base<'a>(entry: &'static str, op: Option<u32>, out: View<'a>, a: Input<'a>) -> Kernel<'a> {
    Kernel { entry, f64: false, op, flags: 0, count: 0, steps: [0, 0], alpha: 0.0, beta: 0.0, out, a, b: None, c: None }
}

/// `out = op(x)` elementwise in float32, or in float64 for a float64 `x` (operands of the other
/// float dtypes are converted to float32).
pub(crate) fn unary(ctx: &Context, op: (u32, f64, f64), x: View<'_>, out: View<'_>) -> Result<()> {
    let f64 = x.dtype == DType::F64;
    launch(ctx, Kernel { f64, alpha: op.1, beta: op.2, ..base("unary", Some(op.0), out, Input::Buffer(x)) })
}

/// `out = op(x)` elementwise in int64 (`unary_int_code`).
pub(crate) fn unary_int(ctx: &Context, op: u32, x: View<'_>, out: View<'_>) -> Result<()> {
    launch(ctx, base("unary_int", Some(op), out, Input::Buffer(x)))
}

/// `out = a op b` elementwise by the kernel `kind` computed in `compute` (float arithmetic and
/// comparisons run in float64 for float64, else in float32; comparisons of integers in int64).
pub(crate) fn binary(ctx: &Context, kind: BinaryKernel, compute: DType, a: Input<'_>, b: Input<'_>, out: View<'_>) -> Result<()> {
    let f64 = compute == DType::F64;
    let int = !compute.is_floating_point();
    let (entry, op, flags) = match kind {
        BinaryKernel::Float(op) => ("binary", op, 0),
        BinaryKernel::Int(op) => ("binary_int", op, INT_MATH),
        BinaryKernel::Compare(op) => ("compare", op, if int { INT_MATH } else { 0 }),
        BinaryKernel::Logical(op) => ("logical", op, 0),
    };
    let f64 = f64 && !matches!(kind, BinaryKernel::Logical(_));
    launch(ctx, Kernel { f64, flags, b: Some(b), ..base(entry, Some(op), out, a) })
}

/// `out = cond ? a : b`; `a` and `b` have the output's dtype.
pub(crate) fn where_(ctx: &Context, cond: View<'_>, a: Input<'_>, b: Input<'_>, out: View<'_>) -> Result<()> {
    launch(ctx, Kernel { b: Some(b), c: Some(Input::Buffer(cond)), ..base("where_", None, out, a) })
}

/// Copies `src` into `dst` (same shape, any strides), converting between their dtypes (a
/// conversion to or from float64 runs in the float64 module; a float64 copy moves bits).
pub(crate) fn copy(ctx: &Context, src: View<'_>, dst: View<'_>) -> Result<()> {
    if src.dtype != dst.dtype && (src.dtype == DType::F64 || dst.dtype == DType::F64) {
        return launch(ctx, Kernel { f64: true, ..base("copy", None, dst, Input::Buffer(src)) });
    }
    launch(ctx, base("copy", None, dst, Input::Buffer(src)))
}

/// `out[i] = src[offsets[i]]` for the contiguous `out`; `offsets` views u32 words holding
/// storage offsets into `src`, at out's shape (the low words of int64 offsets, at doubled
/// strides, serve as well).
pub(crate) fn take(ctx: &Context, src: &wgpu::Buffer, dtype: DType, offsets: View<'_>, out: View<'_>) -> Result<()> {
    // The source is read only through the offsets: walk it with zero strides.
    let unwalked = Layout::contiguous(vec![])?.broadcast_to(&out.layout.shape);
    let a = Input::Buffer(View { buffer: src, dtype, layout: &unwalked });
    launch(ctx, Kernel { c: Some(Input::Buffer(offsets)), ..base("take", None, out, a) })
}

/// `out[i] = src[offset(i) + index(i) * stride]` for the contiguous `out`: `src` is viewed at
/// out's shape with the gathered dim's stride zeroed, `index` (any integer dtype) at out's shape
/// by its own strides. An index outside `0..size` sets word `flag` of out's buffer.
pub(crate) fn gather_index(
    ctx: &Context,
    src: View<'_>,
    stride: usize,
    size: usize,
    index: View<'_>,
    out: View<'_>,
    flag: u32,
) -> Result<()> {
    let bounds = Input::Scalar(DType::I64, [u32_of(size)?, flag]);
    launch(
        ctx,
        Kernel {
            count: u32_of(stride)?,
            b: Some(bounds),
            c: Some(Input::Buffer(index)),
            ..base("gather_index", None, out, Input::Buffer(src))
        },
    )
}

/// `out[target(i)] = src[i]` over the elements `i` of `index` (any integer dtype, at its own
/// strides), `target(i) = offset(i) + index(i) * stride`: `out` is viewed at the index's shape
/// with the scattered dim's stride zeroed (offset 0), `src` likewise. Of repeated targets the
/// last in index order wins. `claim` holds a zeroed u32 per element of out's buffer and the
/// flag word `flag`, which an index outside `0..size` sets.
pub(crate) fn scatter_index(
    ctx: &Context,
    claim: &wgpu::Buffer,
    src: View<'_>,
    stride: usize,
    size: usize,
    index: View<'_>,
    out: View<'_>,
    flag: u32,
) -> Result<()> {
    let steps = [u32_of(size)?, flag];
    let claims = View { buffer: claim, dtype: DType::I32, layout: out.layout };
    let (count, c) = (u32_of(stride)?, Some(Input::Buffer(index)));
    launch(ctx, Kernel { count, steps, c, ..base("scatter_claim", None, claims, Input::Buffer(index)) })?;
    launch(ctx, Kernel { count, steps, b: Some(Input::Buffer(claims)), c, ..base("scatter_write", None, out, Input::Buffer(src)) })
}

/// `out[.., i, j] = sum over t < k of a[.., i, t] * b[.., t, j]` for integer (or bool) operands of
/// out's dtype, exact in int64 and wrapping as the CPU's integer matmul does. `a` and `b` are
/// viewed at out's shape `[.., m, n]`, `a` with its column stride zeroed and `b` with its row
/// stride zeroed; `steps` are those two strides (the walk along the summed dim).
pub(crate) fn matmul_int(ctx: &Context, a: View<'_>, b: View<'_>, k: usize, steps: (usize, usize), out: View<'_>) -> Result<()> {
    let steps = [u32_of(steps.0)?, u32_of(steps.1)?];
    launch(
        ctx,
        Kernel { flags: INT_MATH, count: u32_of(k)?, steps, b: Some(Input::Buffer(b)), ..base("matmul_int", None, out, Input::Buffer(a)) },
    )
}

/// `dst[pairs[2k]] = src[pairs[2k + 1]]` for `n` pairs of storage offsets (distinct targets).
pub(crate) fn put(ctx: &Context, src: &wgpu::Buffer, pairs: &wgpu::Buffer, n: usize, dst: (&wgpu::Buffer, DType)) -> Result<()> {
    let l = Layout::contiguous(vec![n])?;
    let out = View { buffer: dst.0, dtype: dst.1, layout: &l };
    let a = Input::Buffer(View { buffer: src, dtype: dst.1, layout: &l });
    let c = Input::Buffer(View { buffer: pairs, dtype: DType::I32, layout: &l });
    launch(ctx, Kernel { c: Some(c), ..base("put", None, out, a) })
}

/// For each element `i` of the contiguous `out`: `out[i] += src[list[n + 1 + j]]` for `j` in
/// `list[i]..list[i + 1]`, in order (`n` = out's numel). Float32, float64 or integer dtypes.
pub(crate) fn segment_sum(ctx: &Context, src: &wgpu::Buffer, list: &wgpu::Buffer, out: View<'_>) -> Result<()> {
    let flags = if out.dtype.is_floating_point() { 0 } else { INT_MATH };
    launch_segments(ctx, ("segment_sum", out.dtype == DType::F64, flags), src, list, out)
}

/// One segment kernel over the contiguous `out`, reading `src` through `list` (the layout
/// `segment_list` writes).
fn launch_segments(
    ctx: &Context,
    (entry, f64, flags): (&'static str, bool, u32),
    src: &wgpu::Buffer,
    list: &wgpu::Buffer,
    out: View<'_>,
) -> Result<()> {
    let n = out.layout.numel();
    let l = Layout::contiguous(vec![n])?;
    let at = Layout { offset: out.layout.offset, ..l.clone() };
    let flat = View { layout: &at, ..out };
    let a = Input::Buffer(View { buffer: src, dtype: out.dtype, layout: &l });
    let c = Input::Buffer(View { buffer: list, dtype: DType::I32, layout: &l });
    launch(ctx, Kernel { f64, flags, count: u32_of(n + 1)?, c: Some(c), ..base(entry, None, flat, a) })
}

/// `out[i] = walk(i) + index(i) * stride` in int64 for the contiguous `out`: `walk` is walked
/// for its offsets only, `index` (any integer dtype) read at its strides, both at out's shape.
/// Negative indices count from the end of the dim when `wrap`; an index outside `0..size` sets
/// word `flag` of out's buffer.
pub(crate) fn index_offsets(
    ctx: &Context,
    walk: View<'_>,
    index: View<'_>,
    (stride, size): (usize, usize),
    wrap: bool,
    out: View<'_>,
    flag: u32,
) -> Result<()> {
    let bounds = Input::Scalar(DType::I64, [u32_of(size)?, flag]);
    let flags = if wrap { WRAP } else { 0 };
    launch(
        ctx,
        Kernel {
            flags,
            count: u32_of(stride)?,
            b: Some(bounds),
            c: Some(Input::Buffer(index)),
            ..base("index_offsets", None, out, Input::Buffer(walk))
        },
    )
}

/// Fills the u32 `list` (`n + 1 + m` words) that `segment_sum` and `segment_last` read, from
/// `m` int64 target positions below `n` (`targets`, contiguous at its offset) and their stable
/// sorting permutation (`order`, contiguous int64): where each target's values start, then
/// each value's storage offset in a contiguous source starting at `src_offset`.
pub(crate) fn segment_list(
    ctx: &Context,
    targets: (&wgpu::Buffer, usize),
    order: &wgpu::Buffer,
    (n, m): (usize, usize),
    src_offset: usize,
    list: &wgpu::Buffer,
) -> Result<()> {
    let words = Layout::contiguous(vec![n + 1 + m])?;
    // Both operands are indexed directly, never walked: zero strides, their own offsets.
    let oa = Layout { shape: words.shape.clone(), strides: vec![0], offset: 0 };
    let ta = Layout { offset: targets.1, ..oa.clone() };
    let a = Input::Buffer(View { buffer: targets.0, dtype: DType::I64, layout: &ta });
    let b = Input::Buffer(View { buffer: order, dtype: DType::I64, layout: &oa });
    let out = View { buffer: list, dtype: DType::I32, layout: &words };
    let steps = [u32_of(m)?, u32_of(src_offset)?];
    launch(ctx, Kernel { count: u32_of(n)?, steps, b: Some(b), ..base("segment_list", None, out, a) })
}

/// For each element `i` of the contiguous `out` that `list` (as `segment_sum` reads it) aims
/// values at: `out[i] =` the last of them.
pub(crate) fn segment_last(ctx: &Context, src: &wgpu::Buffer, list: &wgpu::Buffer, out: View<'_>) -> Result<()> {
    launch_segments(ctx, ("segment_last", false, 0), src, list, out)
}
