
// The backward pass's row statistics, one thread per query row r: stats[2r] is the row's
// logsumexp and stats[2r + 1] = D_r = Σ_c dO[r, c] O[r, c], the softmax backward's row term
// (one buffer, so the tile kernels stay within eight storage bindings).

@group(0) @binding(1) var<storage, read_write> stats: array<f32>;
@group(0) @binding(2) var<storage, read> lse: array<f32>;
@group(0) @binding(3) var<storage, read> o: array<f32>;
@group(0) @binding(4) var<storage, read> g: array<f32>;

@compute @workgroup_size(256)
fn attn_rowdot(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let r = group_index(wid, nwg) * 256u + lid;
    if r >= p.batch * p.l {
        return;
    }
    var d = 0.0;
    for (var c = 0u; c < p.ev; c++) {
        d += g[p.g_off + r * p.ev + c] * o[p.o_off + r * p.ev + c];
    }
    stats[2u * r] = lse[p.lse_off + r];
    stats[2u * r + 1u] = d;
}
