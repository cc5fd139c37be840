// Fused, tiled scaled dot-product attention in float32 (flash attention), shared by the
// kernels of attention_{forward,rowdot,dq,dkdv}.wgsl, which are appended to it.
//
// Every tile kernel is a 16 x 16 grid of threads (tx = lid % 16, ty = lid / 16) over one
// (query, key) pair of 16-row blocks at a time: thread (ty, tx) computes one score from rows held
// in workgroup memory (row stride DM, so head dims up to DM = 128; larger ones are composed on
// the host side). No L x S matrix exists: only 16 x 16 tiles, recomputed in the backward pass
// from each row's saved logsumexp. Under `causal`, tiles entirely past the diagonal are skipped.
//
// Operands are contiguous from their element offsets: q (batch, L, E), k / v (batch / group,
// S, E or Ev), the output gradient and output (batch, L, Ev). The additive float mask is read in
// place: element (b, i, j) at m_off + (b / heads) m_sb + (b % heads) m_sh + i m_rs + j m_cs (zero
// strides where it broadcasts).

const BR: u32 = 16u;
const DM: u32 = 128u;

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
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;

fn neg_inf() -> f32 {
    return bitcast<f32>(0xff800000u);
}

fn pos_inf() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

// The key/value pair that query pair `b` reads (grouped-query attention shares one among
// `group` consecutive query heads).
fn kv_of(b: u32) -> u32 {
    return (b / p.heads) * (p.heads / p.group) + (b % p.heads) / p.group;
}

// Key columns that query rows q0..q0 + BR may see.
fn key_end(q0: u32) -> u32 {
    if p.causal != 0u {
        return min(p.s, q0 + BR);
    }
    return p.s;
}

// The linear index of workgroup `wid` in a grid spread over x and y (see `grid`).
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

