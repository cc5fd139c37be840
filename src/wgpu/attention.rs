//! Launcher of the fused float32 attention kernels (`shaders/attention.wgsl`, the shared Params
//! and helpers, before each kernel's `shaders/attention_*.wgsl`; flash attention):
//! the forward pass (output and per-row logsumexp, online softmax over 16 x 16 tiles, no L x S
//! matrix) and the backward pass (row statistics, then the query gradient and the key/value
//! gradients, each recomputing its tiles' probabilities from the logsumexp). Operands the
//! kernels do not take (float64, head dims over 128, empty sizes, a mask whose leading dims do
//! not merge, a device without the workgroup memory) give None: the tensor layer composes the
//! attention from matmul and softmax then.

use bytemuck::{Pod, Zeroable};

use crate::backend::{Array, AttnGrads};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::attention_dims::AttnDims;

use super::batch::{grid, Launch};
use super::context::Context;
use super::operands::{buffer_of, dense, output};
use super::shader::Shader;
use super::strided::u32_of;

/// The widest head (query/key and value) the kernels' workgroup rows hold (`DM` in the shader).
const MAX_HEAD: usize = 128;
/// Rows of a tile (`BR` in the shader).
const BLOCK: usize = 16;

macro_rules! attention_shader {
    ($name:literal, $storage:expr, $($file:literal),+) => {
        Shader {
            name: $name,
            source: concat!(include_str!("shaders/attention.wgsl"), $(include_str!(concat!("shaders/", $file))),+),
            storage: $storage,
            trusted: false,
        }
    };
}

static FORWARD: Shader =
    attention_shader!("attn_forward", &[true, true, false, false, false, false], "attention_bias.wgsl", "attention_forward.wgsl");
static ROWDOT: Shader = attention_shader!("attn_rowdot", &[true, false, false, false], "attention_rowdot.wgsl");
static DQ: Shader =
    attention_shader!("attn_dq", &[true, true, false, false, false, false, false, false], "attention_bias.wgsl", "attention_dq.wgsl");
static DKDV: Shader =
    attention_shader!("attn_dkdv", &[true, true, false, false, false, false, false, false], "attention_bias.wgsl", "attention_dkdv.wgsl");

/// Workgroup memory of the forward kernel (two 16 x 128 float32 row blocks and a 16 x 16 tile)
/// and of the backward ones (three blocks and a tile): within the 32 KiB most devices (Metal,
/// lavapipe) offer, so the backward kernels read value rows from memory instead of a fourth block.
const FORWARD_BYTES: u32 = ((2 * BLOCK * MAX_HEAD + BLOCK * BLOCK) * 4) as u32;
const BACKWARD_BYTES: u32 = ((3 * BLOCK * MAX_HEAD + BLOCK * BLOCK) * 4) as u32;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Default)]
struct Params {
    batch: u32,
    heads: u32,
    group: u32,
    l: u32,
    s: u32,
    e: u32,
    ev: u32,
    causal: u32,
    scale: f32,
    has_mask: u32,
    m_off: u32,
    m_sb: u32,
    m_sh: u32,
    m_rs: u32,
    m_cs: u32,
    want_mask: u32,
    q_off: u32,
    k_off: u32,
    v_off: u32,
    g_off: u32,
    o_off: u32,
    lse_off: u32,
    pad: [u32; 2],
}

/// The mask's terms of `Params` (`has_mask`, `m_off`, `m_sb`, `m_sh`, `m_rs`, `m_cs`): the mask
/// is viewed at `(lead..., L, S)`, its leading dims but the last (the heads) merged into one
/// stride. None where they do not merge.
fn mask_terms(m: &Array) -> Result<Option<[u32; 6]>> {
    let (shape, strides) = (m.shape(), m.strides());
    let n = shape.len();
    if n < 3 {
        return Ok(None);
    }
    // The outer dims (before the heads) as one: each non-trivial dim's stride must be the next
    // non-trivial one's stride times its size (zero strides of a broadcast merge as zeros).
    let outer: Vec<(usize, usize)> =
        shape[..n - 3].iter().zip(&strides[..n - 3]).filter(|&(&d, _)| d != 1).map(|(&d, &s)| (d, s)).collect();
    for w in outer.windows(2) {
        if Some(w[0].1) != w[1].0.checked_mul(w[1].1) {
            return Ok(None);
        }
    }
    let sb = outer.last().map_or(0, |&(_, s)| s);
    Ok(Some([1, u32_of(m.storage_offset())?, u32_of(sb)?, u32_of(strides[n - 3])?, u32_of(strides[n - 2])?, u32_of(strides[n - 1])?]))
}

/// Whether kernels of `workgroup_bytes` take a problem of `d` on `ctx`'s device (see the module).
fn supported(ctx: &Context, dtype: DType, d: &AttnDims, workgroup_bytes: u32) -> bool {
    dtype == DType::F32
        && (1..=MAX_HEAD).contains(&d.e)
        && (1..=MAX_HEAD).contains(&d.ev)
        && d.batch > 0
        && d.l > 0
        && d.s > 0
        && ctx.limits.max_compute_workgroup_storage_size >= workgroup_bytes
        && ctx.limits.max_storage_buffers_per_shader_stage >= 8
        && ctx.limits.max_compute_invocations_per_workgroup >= 256
        && ctx.limits.max_compute_workgroup_size_x >= 256
}

/// The parameters shared by every kernel of one attention; offsets are the dense operands'.
fn params(d: &AttnDims, mask: Option<&Array>, (q, k, v): (&Array, &Array, &Array)) -> Result<Option<Params>> {
    let mut p = Params {
        batch: u32_of(d.batch)?,
        heads: u32_of(d.heads)?,
        group: u32_of(d.group)?,
        l: u32_of(d.l)?,
        s: u32_of(d.s)?,
        e: u32_of(d.e)?,
        ev: u32_of(d.ev)?,
        causal: d.causal as u32,
        scale: d.scale as f32,
        q_off: u32_of(q.storage_offset())?,
        k_off: u32_of(k.storage_offset())?,
        v_off: u32_of(v.storage_offset())?,
        ..Params::default()
    };
    // The shader indexes its largest operand with 32 bits.
    let largest = d.batch.checked_mul(d.l).and_then(|r| r.checked_mul(d.s.max(d.e).max(d.ev)));
    if largest.is_none_or(|n| n > u32::MAX as usize) {
        return Ok(None);
    }
    if let Some(m) = mask {
        let Some([has, off, sb, sh, rs, cs]) = mask_terms(m)? else { return Ok(None) };
        (p.has_mask, p.m_off, p.m_sb, p.m_sh, p.m_rs, p.m_cs) = (has, off, sb, sh, rs, cs);
    }
    Ok(Some(p))
}

fn launch(ctx: &Context, shader: &'static Shader, entry: &'static str, p: &Params, buffers: &[&wgpu::Buffer], groups: usize) -> Result<()> {
    ctx.launch(Launch {
        shader,
        entry,
        op: None,
        params: bytemuck::bytes_of(p),
        buffers,
        groups: grid(u32_of(groups)?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// The fused forward pass: `(out, lse)`, `(batch, L, Ev)` and `(batch, L)`, or None where the
/// kernels do not take the operands (see the module).
pub fn attention(q: &Array, k: &Array, v: &Array, mask: Option<&Array>, d: &AttnDims) -> Result<Option<(Array, Array)>> {
    const OP: &str = "scaled_dot_product_attention";
    let (ctx, _) = buffer_of(q, OP)?;
    if !supported(ctx, q.dtype(), d, FORWARD_BYTES) || mask.is_some_and(|m| m.dtype() != DType::F32) {
        return Ok(None);
    }
    let (q, k, v) = (dense(q)?, dense(k)?, dense(v)?);
    let Some(p) = params(d, mask, (&q, &k, &v))? else { return Ok(None) };
    let (_, qb) = buffer_of(&q, OP)?;
    let (_, kb) = buffer_of(&k, OP)?;
    let (_, vb) = buffer_of(&v, OP)?;
    // Without a mask the query stands in for it (never read).
    let mb = mask.map(|m| buffer_of(m, OP)).transpose()?.map_or_else(|| qb.clone(), |(_, b)| b);
    let (out, ob) = output(ctx, &[d.batch, d.l, d.ev], DType::F32)?;
    let (lse, lb) = output(ctx, &[d.batch, d.l], DType::F32)?;
    launch(ctx, &FORWARD, "attn_forward", &p, &[&ob, &lb, &qb, &kb, &vb, &mb], d.batch * d.l.div_ceil(BLOCK))?;
    Ok(Some((out, lse)))
}

/// The fused backward pass from `(out, lse, g)`: `(dq, dk, dv, dscores)` shaped as the CPU
/// kernel's (`dscores` `(batch, L, S)` only when `want_mask`), or None (see the module).
pub fn attention_backward(
    q: &Array,
    k: &Array,
    v: &Array,
    mask: Option<&Array>,
    (out, lse, g): (&Array, &Array, &Array),
    d: &AttnDims,
    want_mask: bool,
) -> Result<Option<AttnGrads>> {
    const OP: &str = "scaled_dot_product_attention_backward";
    let (ctx, _) = buffer_of(q, OP)?;
    if !supported(ctx, q.dtype(), d, BACKWARD_BYTES)
        || mask.is_some_and(|m| m.dtype() != DType::F32)
        || [out, lse, g].iter().any(|t| t.dtype() != DType::F32)
        || (want_mask && (mask.is_none() || d.causal))
    {
        return Ok(None);
    }
    let (q, k, v, out, lse, g) = (dense(q)?, dense(k)?, dense(v)?, dense(out)?, dense(lse)?, dense(g)?);
    let Some(mut p) = params(d, mask, (&q, &k, &v))? else { return Ok(None) };
    (p.g_off, p.o_off, p.lse_off, p.want_mask) =
        (u32_of(g.storage_offset())?, u32_of(out.storage_offset())?, u32_of(lse.storage_offset())?, want_mask as u32);
    let b = |t: &Array| buffer_of(t, OP).map(|(_, b)| b);
    let (qb, kb, vb, ob, lb, gb) = (b(&q)?, b(&k)?, b(&v)?, b(&out)?, b(&lse)?, b(&g)?);
    let mb = mask.map(b).transpose()?.unwrap_or_else(|| qb.clone());
    let rows = d.batch * d.l;
    let (_stats, sb) = output(ctx, &[rows, 2], DType::F32)?;
    launch(ctx, &ROWDOT, "attn_rowdot", &p, &[&sb, &lb, &ob, &gb], rows.div_ceil(256))?;
    let kv = d.batch / d.group;
    let (dq, dqb) = output(ctx, &[d.batch, d.l, d.e], DType::F32)?;
    let (dk, dkb) = output(ctx, &[kv, d.s, d.e], DType::F32)?;
    let (dv, dvb) = output(ctx, &[kv, d.s, d.ev], DType::F32)?;
    // Without a wanted mask gradient a one-element stand-in is bound (never written).
    let (dmask, dmb) = output(ctx, &if want_mask { vec![d.batch, d.l, d.s] } else { vec![1] }, DType::F32)?;
    launch(ctx, &DQ, "attn_dq", &p, &[&dqb, &dmb, &qb, &kb, &vb, &mb, &gb, &sb], d.batch * d.l.div_ceil(BLOCK))?;
    launch(ctx, &DKDV, "attn_dkdv", &p, &[&dkb, &dvb, &qb, &kb, &vb, &mb, &gb, &sb], kv * d.s.div_ceil(BLOCK))?;
    Ok(Some((dq, dk, dv, want_mask.then_some(dmask))))
}
