//! Launchers of `shaders/matmul.wgsl` and `matmul_wide.wgsl`: batched matrix products over
//! strided operands of float32 and float64, and of float16 and bfloat16 read as float32.
//! Below them, the tensor-level entry points the tensor layer calls: they check dtypes, take
//! the operands' buffers, allocate the outputs and launch.

use bytemuck::{Pod, Zeroable};

use crate::backend::Array;
use crate::backend::Operand;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::binary::BinaryOp;
use crate::storage::dtype_not_on_device;

use super::batch::Launch;
use super::context::Context;
use super::elementwise::{self, View};
use super::operands::{buffer_of, dense, dense_as, output, view};
use super::shader::Shader;
use super::strided::u32_of;

/// What matmul.wgsl expects before it: the compute type T, the bindings of A, B and the bias D
/// and their readers `a_at` / `b_at` / `d_at`. Float32 and float64 operands are read as they are stored.
macro_rules! same_type_operands {
    ($t:literal) => {
        concat!(
            "alias T = ",
            $t,
            ";\n",
            "@group(0) @binding(2) var<storage, read> a: array<",
            $t,
            ">;\n",
            "@group(0) @binding(3) var<storage, read> b: array<",
            $t,
            ">;\n",
            "@group(0) @binding(4) var<storage, read> d: array<",
            $t,
            ">;\n",
            "fn a_at(i: u32) -> T { return a[i]; }\n",
            "fn b_at(i: u32) -> T { return b[i]; }\n",
            "fn d_at(i: u32) -> T { return d[i]; }\n",
        )
    };
}

/// Half-type operands are stored two to a 32-bit word (element i in the low half when i is even)
/// and widened to float32 by `$widen` of the word `x`: the products accumulate in float32, as
/// PyTorch's do, and are rounded to the half type once, after.
macro_rules! half_operands {
    ($widen:literal) => {
        concat!(
            "alias T = f32;\n",
            "@group(0) @binding(2) var<storage, read> a: array<u32>;\n",
            "@group(0) @binding(3) var<storage, read> b: array<u32>;\n",
            "@group(0) @binding(4) var<storage, read> d: array<u32>;\n",
            "fn a_at(i: u32) -> T { let x = a[i / 2u]; return ",
            $widen,
            "; }\n",
            "fn b_at(i: u32) -> T { let x = b[i / 2u]; return ",
            $widen,
            "; }\n",
            "fn d_at(i: u32) -> T { let x = d[i / 2u]; return ",
            $widen,
            "; }\n",
        )
    };
}

macro_rules! matmul_shader {
    ($name:literal, $operands:expr $(, $wide:literal)?) => {
        Shader { name: $name, source: concat!($operands, include_str!("shaders/matmul.wgsl") $(, include_str!($wide))?), storage: &[true, false, false, false], trusted: true }
    };
}

static SHADER_F32: Shader = matmul_shader!("matmul_f32", same_type_operands!("f32"), "shaders/matmul_wide.wgsl");
// Float64 keeps to the 64-wide tiles, whose 4x4 accumulators take a quarter of the wide ones' registers.
static SHADER_F64: Shader = matmul_shader!("matmul_f64", same_type_operands!("f64"));
static SHADER_F16: Shader = matmul_shader!("matmul_f16", half_operands!("unpack2x16float(x)[i % 2u]"), "shaders/matmul_wide.wgsl");
static SHADER_BF16: Shader = matmul_shader!(
    "matmul_bf16",
    half_operands!("bitcast<f32>(select(x << 16u, x & 0xffff0000u, i % 2u == 1u))"),
    "shaders/matmul_wide.wgsl"
);

/// Output rows and columns per workgroup of `matmul` and of `matmul_wide` (see the shaders).
const TILE: usize = 64;
const WIDE_TILE: usize = 128;

/// The wide tiles serve products with at least this many of them: fewer would leave a large GPU's
/// cores idle, where the 64-wide tiles give four times as many workgroups.
const WIDE_MIN_TILES: usize = 256;

/// Whether the wide kernel serves an `m x n` product, `batches` times: enough tiles, and at most
/// a quarter of their work spent past the edges (ten rows would fill 128).
fn wide(m: usize, n: usize, batches: usize) -> bool {
    let (rows, cols) = (m.div_ceil(WIDE_TILE), n.div_ceil(WIDE_TILE));
    let padded = rows * cols * WIDE_TILE * WIDE_TILE;
    rows * cols * batches >= WIDE_MIN_TILES && 3 * padded <= 4 * m * n
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    m: u32,
    n: u32,
    k: u32,
    batch_base: u32,
    off_a: u32,
    off_b: u32,
    a_bs: u32,
    b_bs: u32,
    a_rs: u32,
    a_cs: u32,
    b_rs: u32,
    b_cs: u32,
    has_d: u32,
    off_d: u32,
    d_bs: u32,
    d_rs: u32,
    d_cs: u32,
    pad: [u32; 3],
}

/// A matrix operand: its buffer, offset, and strides per batch, row and column (in elements).
pub(crate) struct Mat<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: usize,
    pub batch_stride: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

/// `out[b] = a[b] @ b[b] (+ d[b])` for `batches` products of `m x k` by `k x n` with operands
/// (and bias `d`, of the product's shape with its own strides) of `dtype`, a floating type;
/// `out` is contiguous, of `dtype` for float32 and float64 and float32 for the half types.
#[allow(clippy::too_many_arguments)]
fn launch_matmul(
    ctx: &Context,
    dtype: DType,
    a: &Mat<'_>,
    b: &Mat<'_>,
    d: Option<&Mat<'_>>,
    batches: usize,
    (m, k, n): (usize, usize, usize),
    out: &wgpu::Buffer,
) -> Result<()> {
    if batches == 0 || m == 0 || n == 0 {
        return Ok(());
    }
    let shader = match dtype {
        DType::F64 => {
            ctx.require_f64("matmul")?;
            &SHADER_F64
        }
        DType::F16 => &SHADER_F16,
        DType::BF16 => &SHADER_BF16,
        _ => &SHADER_F32,
    };
    let (entry, tile) = if dtype != DType::F64 && wide(m, n, batches) { ("matmul_wide", WIDE_TILE) } else { ("matmul", TILE) };
    let max = ctx.limits.max_compute_workgroups_per_dimension as usize;
    let (gx, gy) = (u32_of(n.div_ceil(tile))?, u32_of(m.div_ceil(tile))?);
    let mut base = 0;
    while base < batches {
        let count = (batches - base).min(max);
        let params = Params {
            m: u32_of(m)?,
            n: u32_of(n)?,
            k: u32_of(k)?,
            batch_base: u32_of(base)?,
            off_a: u32_of(a.offset)?,
            off_b: u32_of(b.offset)?,
            a_bs: u32_of(a.batch_stride)?,
            b_bs: u32_of(b.batch_stride)?,
            a_rs: u32_of(a.row_stride)?,
            a_cs: u32_of(a.col_stride)?,
            b_rs: u32_of(b.row_stride)?,
            b_cs: u32_of(b.col_stride)?,
            has_d: d.is_some() as u32,
            off_d: u32_of(d.map_or(0, |d| d.offset))?,
            d_bs: u32_of(d.map_or(0, |d| d.batch_stride))?,
            d_rs: u32_of(d.map_or(0, |d| d.row_stride))?,
            d_cs: u32_of(d.map_or(0, |d| d.col_stride))?,
            pad: [0; 3],
        };
        ctx.launch(Launch {
            shader,
            entry,
            op: None,
            params: bytemuck::bytes_of(&params),
            // Without a bias A stands in for it (has_d tells the kernel not to read it).
            buffers: &[out, a.buffer, b.buffer, d.map_or(a.buffer, |d| d.buffer)],
            groups: [gx, gy, count as u32],
        })?;
        base += count;
    }
    Ok(())
}

// ----- Array-level entry points ---------------------------------------------------------

/// `a @ b` for `[.., m, k]` and `[.., k, n]` tensors with equal batch shapes, both of one
/// dtype. Float16 and bfloat16 operands are converted to float32, multiplied with float32
/// accumulation and the product rounded once to their dtype (as the CPU's half product does);
/// integer and bool products are exact.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    matmul_add(a, b, None)
}

/// `a @ b + bias` as `matmul`, with `bias` (of the operands' dtype, broadcasting to the product)
/// added to each float sum of products before it is stored (once rounded, for the half types),
/// in the same kernel where its batch dims merge with the operands'.
pub fn matmul_add(a: &Array, b: &Array, bias: Option<&Array>) -> Result<Array> {
    let dt = a.dtype();
    if b.dtype() != dt {
        return Err(Error::Runtime(format!("wgpu matmul: operands of dtypes {} and {}", dt.name(), b.dtype().name())));
    }
    if let Some(d) = bias.filter(|d| d.dtype() != dt || !dt.is_floating_point()) {
        // The sum keeps the binary op's type promotion.
        return add_bias(&matmul(a, b)?, d);
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
    let bias = bias.map(|d| d.broadcast_to(&out_shape));
    // The kernel takes one batch stride per operand: merge the batch dims, or copy operands
    // whose batch dims do not merge (and add a bias whose dims do not after).
    let mut batch_strides = vec![&a.strides()[..nd - 2], &b.strides()[..nd - 2]];
    if let Some(d) = &bias {
        batch_strides.push(&d.strides()[..nd - 2]);
    }
    let (merged, strides) = super::strided::coalesce(batch_shape, &batch_strides);
    if merged.len() > 1 {
        if let Some(d) = &bias {
            return add_bias(&matmul_add(a, b, None)?, d);
        }
        return matmul(&dense(a)?, &dense(b)?);
    }
    let batch_stride = |i: usize| strides[i].first().copied().unwrap_or(0);
    let (ctx, ab) = buffer_of(a, "matmul")?;
    let (_, bb) = buffer_of(b, "matmul")?;
    let db = bias.as_ref().map(|d| buffer_of(d, "matmul")).transpose()?;
    // Half-type products come out in float32 and are rounded once, after.
    let half = matches!(dt, DType::F16 | DType::BF16);
    let (out, ob) = output(ctx, &out_shape, if half { DType::F32 } else { dt })?;
    let mat = |t: &Array, buffer, bs| Mat {
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
    launch_matmul(ctx, dt, &ma, &mb, md.as_ref(), batches, (m, k, n), &ob)?;
    if half {
        return dense_as(&out, dt);
    }
    Ok(out)
}

/// `product + bias` with the binary op's type promotion, `bias` broadcast to the product.
fn add_bias(product: &Array, bias: &Array) -> Result<Array> {
    let dt = DType::promote(product.dtype(), bias.dtype());
    let bias = bias.broadcast_to(product.shape());
    let operands = (Operand::Array(product), Operand::Array(&bias));
    super::ops::binary(BinaryOp::Add, operands.0, operands.1, product.shape(), product.device(), dt, dt)
}

/// `matmul` of integer (or bool) operands, exact: each output element sums its `k` products in
/// int64 (wrapping) and keeps the low bits of its dtype, as the CPU's integer product does.
/// Any strides and batch dims; no copies.
fn matmul_int(a: &Array, b: &Array) -> Result<Array> {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let mut out_shape = a.shape()[..nd - 2].to_vec();
    out_shape.extend([m, n]);
    let (ctx, ab) = buffer_of(a, "matmul")?;
    let (_, bb) = buffer_of(b, "matmul")?;
    let (out, ob) = output(ctx, &out_shape, a.dtype())?;
    // a walks out's rows and b its columns; the summed dim is walked by the kernel.
    let at = |t: &Array, zeroed: usize| {
        let mut strides = t.strides().to_vec();
        strides[zeroed] = 0;
        Layout { shape: out_shape.clone(), strides, offset: t.storage_offset() }
    };
    let (la, lb) = (at(a, nd - 1), at(b, nd - 2));
    let steps = (a.strides()[nd - 1], b.strides()[nd - 2]);
    elementwise::matmul_int(ctx, View { layout: &la, ..view(a, &ab) }, View { layout: &lb, ..view(b, &bb) }, k, steps, view(&out, &ob))?;
    Ok(out)
}
