//! Launchers of `shaders/matmul.wgsl` and `matmul_wide.wgsl`: batched matrix products over
//! strided operands of float32 and float64, and of float16 and bfloat16 read as float32.

use bytemuck::{Pod, Zeroable};

use crate::dtype::DType;
use crate::error::Result;

use super::batch::Launch;
use super::context::{Context, Shader};
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
        Shader { name: $name, source: concat!($operands, include_str!("shaders/matmul.wgsl") $(, include_str!($wide))?), storage: &[true, false, false, false] }
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
pub(crate) fn matmul(
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
