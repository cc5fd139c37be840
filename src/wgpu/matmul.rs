//! Launcher of `shaders/matmul.wgsl`: batched float32 and float64 matrix products over strided
//! operands.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;

use super::batch::Launch;
use super::context::{Context, Shader};
use super::strided::u32_of;

static SHADER_F32: Shader = Shader { name: "matmul_f32", source: concat!("alias T = f32;\n", include_str!("shaders/matmul.wgsl")), storage: &[true, false, false] };
static SHADER_F64: Shader = Shader { name: "matmul_f64", source: concat!("alias T = f64;\n", include_str!("shaders/matmul.wgsl")), storage: &[true, false, false] };

/// Output rows and columns per workgroup (see the shader).
const TILE: usize = 64;

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
}

/// A matrix operand: its buffer, offset, and strides per batch, row and column (in elements).
pub(crate) struct Mat<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: usize,
    pub batch_stride: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

/// `out[b] = a[b] @ b[b]` for `batches` products of `m x k` by `k x n`, in float64 with `f64`
/// (else float32); `out` is contiguous.
pub(crate) fn matmul(ctx: &Context, f64: bool, a: &Mat<'_>, b: &Mat<'_>, batches: usize, (m, k, n): (usize, usize, usize), out: &wgpu::Buffer) -> Result<()> {
    if batches == 0 || m == 0 || n == 0 {
        return Ok(());
    }
    if f64 {
        ctx.require_f64("matmul")?;
    }
    let max = ctx.limits.max_compute_workgroups_per_dimension as usize;
    let (gx, gy) = (u32_of(n.div_ceil(TILE))?, u32_of(m.div_ceil(TILE))?);
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
        };
        ctx.launch(Launch {
            shader: if f64 { &SHADER_F64 } else { &SHADER_F32 },
            entry: "matmul",
            op: None,
            params: bytemuck::bytes_of(&params),
            buffers: &[out, a.buffer, b.buffer],
            groups: [gx, gy, count as u32],
        })?;
        base += count;
    }
    Ok(())
}
