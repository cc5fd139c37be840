
// The key and value gradients: one workgroup per (key/value pair, block of BR key rows), walking
// every query head of its group and their query blocks (from the diagonal on under `causal`), so
// the group's sum needs no atomics. Thread (ty, tx) is (key row, query row): it recomputes P and
// dS as attention_dq.wgsl does; dV += Pᵀ dO and dK += scale dSᵀ q.

@group(0) @binding(1) var<storage, read_write> dk: array<f32>;
@group(0) @binding(2) var<storage, read_write> dv: array<f32>;
@group(0) @binding(3) var<storage, read> q: array<f32>;
@group(0) @binding(4) var<storage, read> k: array<f32>;
@group(0) @binding(5) var<storage, read> v: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<f32>;
@group(0) @binding(7) var<storage, read> g: array<f32>;
@group(0) @binding(8) var<storage, read> stats: array<f32>;

var<workgroup> ks: array<f32, 2048>;
var<workgroup> qs: array<f32, 2048>;
var<workgroup> gs: array<f32, 2048>;
var<workgroup> pt: array<f32, 256>;

@compute @workgroup_size(256)
fn attn_dkdv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let blocks = (p.s + BR - 1u) / BR;
    let kv_pairs = p.batch / p.group;
    let id = group_index(wid, nwg);
    if id >= kv_pairs * blocks {
        return;
    }
    let kv = id / blocks;
    let k0 = (id % blocks) * BR;
    let tx = lid % BR;
    let ty = lid / BR;
    for (var x = lid; x < BR * p.e; x += 256u) {
        let r = x / p.e;
        let c = x % p.e;
        var val = 0.0;
        if k0 + r < p.s {
            val = k[p.k_off + (kv * p.s + k0 + r) * p.e + c];
        }
        ks[r * DM + c] = val;
    }
    let j = k0 + ty;
    let kv_heads = p.heads / p.group;
    // The first query pair of this key/value pair's group.
    let b0 = (kv / kv_heads) * p.heads + (kv % kv_heads) * p.group;
    // Query blocks before the diagonal see none of these keys (blocks are BR aligned).
    let q_start = select(0u, k0, p.causal != 0u);
    var dk_acc: array<f32, 8>;
    var dv_acc: array<f32, 8>;
    for (var h = 0u; h < p.group; h++) {
        let b = b0 + h;
        for (var q0 = q_start; q0 < p.l; q0 += BR) {
            workgroupBarrier();
            for (var x = lid; x < BR * p.e; x += 256u) {
                let r = x / p.e;
                let c = x % p.e;
                var val = 0.0;
                if q0 + r < p.l {
                    val = q[p.q_off + (b * p.l + q0 + r) * p.e + c];
                }
                qs[r * DM + c] = val;
            }
            for (var x = lid; x < BR * p.ev; x += 256u) {
                let r = x / p.ev;
                let c = x % p.ev;
                var val = 0.0;
                if q0 + r < p.l {
                    val = g[p.g_off + (b * p.l + q0 + r) * p.ev + c];
                }
                gs[r * DM + c] = val;
            }
            workgroupBarrier();
            let i = q0 + tx;
            var pr = 0.0;
            var ds = 0.0;
            if i < p.l && j < p.s {
                var dot = 0.0;
                for (var c = 0u; c < p.e; c++) {
                    dot += qs[tx * DM + c] * ks[ty * DM + c];
                }
                let row = b * p.l + i;
                pr = exp(dot * p.scale + bias(b, i, j) - stats[2u * row]);
                // The value row straight from memory (its 16 readers share it): workgroup
                // memory stays within 32 KiB.
                let v_row = p.v_off + (kv * p.s + j) * p.ev;
                var dp = 0.0;
                for (var c = 0u; c < p.ev; c++) {
                    dp += gs[tx * DM + c] * v[v_row + c];
                }
                ds = pr * (dp - stats[2u * row + 1u]);
            }
            pt[ty * BR + tx] = pr;
            workgroupBarrier();
            for (var c = 0u; c < 8u; c++) {
                let col = tx + BR * c;
                if col < p.ev {
                    var a = dv_acc[c];
                    for (var ii = 0u; ii < BR; ii++) {
                        a += pt[ty * BR + ii] * gs[ii * DM + col];
                    }
                    dv_acc[c] = a;
                }
            }
            workgroupBarrier();
            pt[ty * BR + tx] = ds;
            workgroupBarrier();
            for (var c = 0u; c < 8u; c++) {
                let col = tx + BR * c;
                if col < p.e {
                    var a = dk_acc[c];
                    for (var ii = 0u; ii < BR; ii++) {
                        a += pt[ty * BR + ii] * qs[ii * DM + col];
                    }
                    dk_acc[c] = a;
                }
            }
        }
    }
    if j < p.s {
        for (var c = 0u; c < 8u; c++) {
            let col = tx + BR * c;
            if col < p.e {
                dk[(kv * p.s + j) * p.e + col] = dk_acc[c] * p.scale;
            }
            if col < p.ev {
                dv[(kv * p.s + j) * p.ev + col] = dv_acc[c];
            }
        }
    }
}
