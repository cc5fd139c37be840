
// The query gradient: one workgroup per (query pair, block of BR query rows), walking the key
// blocks as the forward pass does. Thread (ty, tx) recomputes P = exp(score - lse) and
// dP = dO · v for its (row, key), then dS = P (dP - D); dQ += scale dS k. Each (row, key) of a
// pair is met exactly once here, so the scores' gradient dS (for a float mask that wants one) is
// written here too when `want_mask` (`dmask` is a dummy otherwise).

@group(0) @binding(1) var<storage, read_write> dq: array<f32>;
@group(0) @binding(2) var<storage, read_write> dmask: array<f32>;
@group(0) @binding(3) var<storage, read> q: array<f32>;
@group(0) @binding(4) var<storage, read> k: array<f32>;
@group(0) @binding(5) var<storage, read> v: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<f32>;
@group(0) @binding(7) var<storage, read> g: array<f32>;
@group(0) @binding(8) var<storage, read> stats: array<f32>;

var<workgroup> qs: array<f32, 2048>;
var<workgroup> gs: array<f32, 2048>;
var<workgroup> ks: array<f32, 2048>;
var<workgroup> dss: array<f32, 256>;

@compute @workgroup_size(256)
fn attn_dq(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let blocks = (p.l + BR - 1u) / BR;
    let id = group_index(wid, nwg);
    if id >= p.batch * blocks {
        return;
    }
    let b = id / blocks;
    let q0 = (id % blocks) * BR;
    let tx = lid % BR;
    let ty = lid / BR;
    let kv = kv_of(b);
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
    let i = q0 + ty;
    var row_lse = 0.0;
    var row_d = 0.0;
    if i < p.l {
        row_lse = stats[2u * (b * p.l + i)];
        row_d = stats[2u * (b * p.l + i) + 1u];
    }
    var acc: array<f32, 8>;
    let k_end = key_end(q0);
    for (var k0 = 0u; k0 < k_end; k0 += BR) {
        workgroupBarrier();
        for (var x = lid; x < BR * p.e; x += 256u) {
            let r = x / p.e;
            let c = x % p.e;
            var val = 0.0;
            if k0 + r < p.s {
                val = k[p.k_off + (kv * p.s + k0 + r) * p.e + c];
            }
            ks[r * DM + c] = val;
        }
        workgroupBarrier();
        let j = k0 + tx;
        var ds = 0.0;
        if i < p.l && j < p.s {
            var dot = 0.0;
            for (var c = 0u; c < p.e; c++) {
                dot += qs[ty * DM + c] * ks[tx * DM + c];
            }
            let pr = exp(dot * p.scale + bias(b, i, j) - row_lse);
            // The value row straight from memory (its 16 readers share it): workgroup memory
            // stays within 32 KiB.
            let v_row = p.v_off + (kv * p.s + j) * p.ev;
            var dp = 0.0;
            for (var c = 0u; c < p.ev; c++) {
                dp += gs[ty * DM + c] * v[v_row + c];
            }
            ds = pr * (dp - row_d);
            if p.want_mask != 0u {
                dmask[(b * p.l + i) * p.s + j] = ds;
            }
        }
        dss[ty * BR + tx] = ds;
        workgroupBarrier();
        for (var c = 0u; c < 8u; c++) {
            let col = tx + BR * c;
            if col < p.e {
                var a = acc[c];
                for (var jj = 0u; jj < BR; jj++) {
                    a += dss[ty * BR + jj] * ks[jj * DM + col];
                }
                acc[c] = a;
            }
        }
    }
    if i < p.l {
        for (var c = 0u; c < 8u; c++) {
            let col = tx + BR * c;
            if col < p.e {
                dq[(b * p.l + i) * p.e + col] = acc[c] * p.scale;
            }
        }
    }
}
