//! Launcher of `shaders/elementwise.wgsl`: unary and binary float32 ops and the strided copy,
//! every operand with its own strides (broadcast dims have stride 0).

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::{BinaryOp, UnaryOp};

use super::batch::{grid, Launch};
use super::context::{Context, Shader};
use super::strided::{coalesce, pack, u32_of, Packed};

static SHADER: Shader = Shader { name: "elementwise", source: include_str!("shaders/elementwise.wgsl"), storage: &[true, false, false] };

const GROUP: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    numel: u32,
    ndim: u32,
    words: u32,
    flags: u32,
    off_out: u32,
    off_a: u32,
    off_b: u32,
    pad0: u32,
    scalar_a: f32,
    scalar_b: f32,
    alpha: f32,
    beta: f32,
    shape: Packed,
    st_out: Packed,
    st_a: Packed,
    st_b: Packed,
}

/// An operand: a buffer viewed through a layout (already broadcast to the output's shape), or
/// a number (a Python scalar or a zero-dim CPU tensor).
pub(crate) enum Input<'a> {
    Buffer(&'a wgpu::Buffer, &'a Layout),
    Scalar(f32),
}

/// The shader's op code and arguments of a unary op; None for ops with no float kernel.
pub(crate) fn unary_code(op: UnaryOp) -> Option<(u32, f32, f32)> {
    use UnaryOp::*;
    Some(match op {
        Neg => (1, 0.0, 0.0),
        Abs => (2, 0.0, 0.0),
        Sign => (3, 0.0, 0.0),
        Relu => (4, 0.0, 0.0),
        Floor => (5, 0.0, 0.0),
        Ceil => (6, 0.0, 0.0),
        Round => (7, 0.0, 0.0),
        Trunc => (8, 0.0, 0.0),
        Exp => (9, 0.0, 0.0),
        Exp2 => (10, 0.0, 0.0),
        Log => (11, 0.0, 0.0),
        Log2 => (12, 0.0, 0.0),
        Log10 => (13, 0.0, 0.0),
        Log1p => (14, 0.0, 0.0),
        Expm1 => (15, 0.0, 0.0),
        Sqrt => (16, 0.0, 0.0),
        Rsqrt => (17, 0.0, 0.0),
        Sin => (18, 0.0, 0.0),
        Cos => (19, 0.0, 0.0),
        Tan => (20, 0.0, 0.0),
        Asin => (21, 0.0, 0.0),
        Acos => (22, 0.0, 0.0),
        Atan => (23, 0.0, 0.0),
        Sinh => (24, 0.0, 0.0),
        Cosh => (25, 0.0, 0.0),
        Tanh => (26, 0.0, 0.0),
        Sigmoid => (27, 0.0, 0.0),
        Gelu => (28, 0.0, 0.0),
        GeluTanh => (29, 0.0, 0.0),
        Silu => (30, 0.0, 0.0),
        Erf => (31, 0.0, 0.0),
        Reciprocal => (32, 0.0, 0.0),
        Softplus { beta, threshold } => (33, beta as f32, threshold as f32),
        LeakyRelu { slope } => (34, slope as f32, 0.0),
        Elu { alpha } => (35, alpha as f32, 0.0),
        PowScalar(e) => (36, e as f32, 0.0),
        LogicalNot | BitwiseNot => return None,
    })
}

/// The shader's op code of a float binary op; None for comparisons, logical and bitwise ops
/// (their results are bool or integer).
pub(crate) fn binary_code(op: BinaryOp) -> Option<u32> {
    use BinaryOp::*;
    Some(match op {
        Add => 0,
        Sub => 1,
        Mul => 2,
        Div => 3,
        FloorDiv => 4,
        Rem => 5,
        Pow => 6,
        Maximum => 7,
        Minimum => 8,
        Atan2 => 9,
        ReluGrad => 10,
        _ => return None,
    })
}

struct Kernel<'a> {
    entry: &'static str,
    op: Option<u32>,
    words: u32,
    alpha: f32,
    beta: f32,
    out: (&'a wgpu::Buffer, &'a Layout),
    a: Input<'a>,
    b: Input<'a>,
}

fn launch(ctx: &Context, k: Kernel<'_>) -> Result<()> {
    let (out_buf, out_l) = k.out;
    let numel = out_l.numel();
    if numel == 0 {
        return Ok(());
    }
    let zeros = vec![0usize; out_l.ndim()];
    let strides_of = |i: &Input<'_>| match i {
        Input::Buffer(_, l) => l.strides.clone(),
        Input::Scalar(_) => zeros.clone(),
    };
    let (sa, sb) = (strides_of(&k.a), strides_of(&k.b));
    let (shape, st) = coalesce(&out_l.shape, &[&out_l.strides, &sa, &sb]);
    let offset = |i: &Input<'_>| match i {
        Input::Buffer(_, l) => l.offset,
        Input::Scalar(_) => 0,
    };
    let scalar = |i: &Input<'_>| match i {
        Input::Scalar(v) => *v,
        Input::Buffer(..) => 0.0,
    };
    let flags = matches!(k.a, Input::Scalar(_)) as u32 | (matches!(k.b, Input::Scalar(_)) as u32) << 1;
    let params = Params {
        numel: u32_of(numel)?,
        ndim: shape.len() as u32,
        words: k.words,
        flags,
        off_out: u32_of(out_l.offset)?,
        off_a: u32_of(offset(&k.a))?,
        off_b: u32_of(offset(&k.b))?,
        pad0: 0,
        scalar_a: scalar(&k.a),
        scalar_b: scalar(&k.b),
        alpha: k.alpha,
        beta: k.beta,
        shape: pack(&shape)?,
        st_out: pack(&st[0])?,
        st_a: pack(&st[1])?,
        st_b: pack(&st[2])?,
    };
    // A scalar operand still needs some buffer bound: the other operand's (never the output,
    // which may not be bound twice).
    let (a_buf, b_buf) = match (&k.a, &k.b) {
        (Input::Buffer(a, _), Input::Buffer(b, _)) => (*a, *b),
        (Input::Buffer(a, _), Input::Scalar(_)) => (*a, *a),
        (Input::Scalar(_), Input::Buffer(b, _)) => (*b, *b),
        (Input::Scalar(_), Input::Scalar(_)) => unreachable!("a kernel with no tensor operand"),
    };
    let groups = u32_of(numel.div_ceil(GROUP))?;
    ctx.launch(Launch {
        shader: &SHADER,
        entry: k.entry,
        op: k.op,
        params: bytemuck::bytes_of(&params),
        buffers: &[out_buf, a_buf, b_buf],
        groups: grid(groups, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// `out = op(x)` elementwise in float32.
pub(crate) fn unary(ctx: &Context, op: (u32, f32, f32), x: (&wgpu::Buffer, &Layout), out: (&wgpu::Buffer, &Layout)) -> Result<()> {
    launch(ctx, Kernel { entry: "unary", op: Some(op.0), words: 1, alpha: op.1, beta: op.2, out, a: Input::Buffer(x.0, x.1), b: Input::Buffer(x.0, x.1) })
}

/// `out = a op b` elementwise in float32.
pub(crate) fn binary(ctx: &Context, op: u32, a: Input<'_>, b: Input<'_>, out: (&wgpu::Buffer, &Layout)) -> Result<()> {
    launch(ctx, Kernel { entry: "binary", op: Some(op), words: 1, alpha: 0.0, beta: 0.0, out, a, b })
}

/// Copies `src` into `dst` (same shape, any strides), moving `words` 32-bit words per element.
pub(crate) fn copy(ctx: &Context, words: u32, src: (&wgpu::Buffer, &Layout), dst: (&wgpu::Buffer, &Layout)) -> Result<()> {
    launch(ctx, Kernel { entry: "copy", op: None, words, alpha: 0.0, beta: 0.0, out: dst, a: Input::Buffer(src.0, src.1), b: Input::Buffer(src.0, src.1) })
}
