// Float32 reductions (sum, prod, max, min) over any set of strided dims. Results depend only on
// the sizes, never on scheduling: in `reduce` each workgroup owns one output (or one fixed chunk
// of it), thread t folds elements t, t + 256, ... in order and the workgroup then combines its
// 256 partials in a fixed halving tree; `reduce_rows` folds short rows one thread each, in order.

override OP: u32 = 0u; // 0 sum, 1 prod, 2 max, 3 min (NaN wins max and min)

struct Params {
    // Outputs, and elements folded into each.
    rows: u32,
    len: u32,
    // `reduce` may split each row into `chunks` workgroups of `chunk_len` elements; it then
    // writes rows * chunks partial results, row-major, for a second pass to fold.
    chunks: u32,
    chunk_len: u32,
    kept_ndim: u32,
    red_ndim: u32,
    off: u32,
    pad: u32,
    // The kept dims (which output) and the reduced dims (which element of it): sizes and
    // strides in elements, innermost last, up to 8 each.
    kept_shape: array<vec4<u32>, 2>,
    kept_st: array<vec4<u32>, 2>,
    red_shape: array<vec4<u32>, 2>,
    red_st: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;

var<workgroup> partial: array<f32, 256>;

fn is_nan(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn identity() -> f32 {
    switch OP {
        case 0u: { return 0.0; }
        case 1u: { return 1.0; }
        case 2u: { return bitcast<f32>(0xff800000u); }
        default: { return bitcast<f32>(0x7f800000u); }
    }
}

fn combine(acc: f32, v: f32) -> f32 {
    switch OP {
        case 0u: { return acc + v; }
        case 1u: { return acc * v; }
        case 2u: {
            if is_nan(acc) || acc > v { return acc; }
            return v;
        }
        default: {
            if is_nan(acc) || acc < v { return acc; }
            return v;
        }
    }
}

fn row_offset(row: u32) -> u32 {
    var off = p.off;
    var rem = row;
    for (var d = p.kept_ndim; d > 0u; d--) {
        let k = d - 1u;
        let n = p.kept_shape[k / 4u][k % 4u];
        off += (rem % n) * p.kept_st[k / 4u][k % 4u];
        rem = rem / n;
    }
    return off;
}

fn element_offset(i: u32) -> u32 {
    var off = 0u;
    var rem = i;
    for (var d = p.red_ndim; d > 0u; d--) {
        let k = d - 1u;
        let n = p.red_shape[k / 4u][k % 4u];
        off += (rem % n) * p.red_st[k / 4u][k % 4u];
        rem = rem / n;
    }
    return off;
}

@compute @workgroup_size(256)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // One workgroup per (row, chunk); the test is uniform across the workgroup.
    let g = wid.y * nwg.x + wid.x;
    if g >= p.rows * p.chunks { return; }
    let row = g / p.chunks;
    let chunk = g % p.chunks;
    let base = row_offset(row);
    let start = chunk * p.chunk_len;
    let end = min(start + p.chunk_len, p.len);
    var acc = identity();
    for (var i = start + lid; i < end; i += 256u) {
        acc = combine(acc, x[base + element_offset(i)]);
    }
    partial[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if lid < s {
            partial[lid] = combine(partial[lid], partial[lid + s]);
        }
        workgroupBarrier();
    }
    if lid == 0u {
        out[g] = partial[0];
    }
}

@compute @workgroup_size(256)
fn reduce_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = (wid.y * nwg.x + wid.x) * 256u + lid;
    if row >= p.rows { return; }
    let base = row_offset(row);
    var acc = identity();
    for (var i = 0u; i < p.len; i++) {
        acc = combine(acc, x[base + element_offset(i)]);
    }
    out[row] = acc;
}
