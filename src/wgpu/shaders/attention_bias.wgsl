// The mask and causal term of the tile kernels (each binds `mask`), appended after attention.wgsl.

// What is added to the scaled score of query row i and key column j of pair b (both in range):
// -inf past the causal diagonal, else the mask's element (each kernel binds `mask`).
fn bias(b: u32, i: u32, j: u32) -> f32 {
    if p.causal != 0u && j > i {
        return neg_inf();
    }
    if p.has_mask != 0u {
        return mask[p.m_off + (b / p.heads) * p.m_sb + (b % p.heads) * p.m_sh + i * p.m_rs + j * p.m_cs];
    }
    return 0.0;
}
