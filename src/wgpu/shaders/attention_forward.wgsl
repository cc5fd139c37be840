
// The forward pass: one workgroup per (query pair, block of BR query rows), walking the key
// blocks with an online softmax (running maximum `m` and sum `lsum` per row, the output rescaled
// as the maximum grows). Writes the output and each row's logsumexp; a row that sees no key gets
// a zero output and a logsumexp of +inf (its recomputed probabilities are then zero), as the
// CPU kernel gives.

@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> lse: array<f32>;
@group(0) @binding(3) var<storage, read> q: array<f32>;
@group(0) @binding(4) var<storage, read> k: array<f32>;
@group(0) @binding(5) var<storage, read> v: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<f32>;

var<workgroup> qs: array<f32, 2048>;
var<workgroup> kvs: array<f32, 2048>;
var<workgroup> ps: array<f32, 256>;

@compute @workgroup_size(256)
fn attn_forward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let blocks = (p.l + BR - 1u) / BR;
    let id = group_index(wid, nwg);
    // Uniform across the workgroup, as every barrier below needs.
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
    let i = q0 + ty;
    var m = neg_inf();
    var lsum = 0.0;
    var acc: array<f32, 8>;
    let k_end = key_end(q0);
    for (var k0 = 0u; k0 < k_end; k0 += BR) {
        // The previous tile's readers are done with kvs and ps (and qs is loaded).
        workgroupBarrier();
        for (var x = lid; x < BR * p.e; x += 256u) {
            let r = x / p.e;
            let c = x % p.e;
            var val = 0.0;
            if k0 + r < p.s {
                val = k[p.k_off + (kv * p.s + k0 + r) * p.e + c];
            }
            kvs[r * DM + c] = val;
        }
        workgroupBarrier();
        let j = k0 + tx;
        var sc = neg_inf();
        if i < p.l && j < p.s {
            var dot = 0.0;
            for (var c = 0u; c < p.e; c++) {
                dot += qs[ty * DM + c] * kvs[tx * DM + c];
            }
            sc = dot * p.scale + bias(b, i, j);
        }
        ps[ty * BR + tx] = sc;
        workgroupBarrier();
        // Every thread of a row finds the same new maximum (same values, same order).
        var top = m;
        for (var c = 0u; c < BR; c++) {
            top = max(top, ps[ty * BR + c]);
        }
        var pr = 0.0;
        var alpha = 1.0;
        if top != neg_inf() {
            pr = exp(sc - top);
            alpha = exp(m - top);
        }
        workgroupBarrier();
        ps[ty * BR + tx] = pr;
        for (var x = lid; x < BR * p.ev; x += 256u) {
            let r = x / p.ev;
            let c = x % p.ev;
            var val = 0.0;
            if k0 + r < p.s {
                val = v[p.v_off + (kv * p.s + k0 + r) * p.ev + c];
            }
            kvs[r * DM + c] = val;
        }
        workgroupBarrier();
        var rs = 0.0;
        for (var c = 0u; c < BR; c++) {
            rs += ps[ty * BR + c];
        }
        lsum = lsum * alpha + rs;
        m = top;
        for (var c = 0u; c < 8u; c++) {
            let col = tx + BR * c;
            if col < p.ev {
                var a = acc[c] * alpha;
                for (var jj = 0u; jj < BR; jj++) {
                    a += ps[ty * BR + jj] * kvs[jj * DM + col];
                }
                acc[c] = a;
            }
        }
    }
    if i < p.l {
        let row = b * p.l + i;
        for (var c = 0u; c < 8u; c++) {
            let col = tx + BR * c;
            if col < p.ev {
                out[row * p.ev + col] = select(acc[c] / lsum, 0.0, lsum == 0.0);
            }
        }
        if tx == 0u {
            lse[row] = select(m + log(lsum), pos_inf(), lsum == 0.0);
        }
    }
}
