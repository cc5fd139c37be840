// Float32 reductions (sum, prod, max, min) and arg-reductions (argmax, argmin: int64 indices)
// over any set of strided dims. Results depend only on the sizes, never on scheduling: in
// `reduce` and `arg_reduce` each workgroup owns one output (or, for `reduce`, one fixed chunk of
// it), thread t folds elements t, t + 256, ... in order and the workgroup then combines its 256
// partials in a fixed halving tree; the `_rows` entries fold short rows one thread each, in order.

override OP: u32 = 0u; // 0 sum, 1 prod, 2 max, 3 min (NaN wins max and min; arg-reductions take 2 and 3)

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
// Float32 results as their bits, or int64 indices as (lo, hi) word pairs.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
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

// The offset of the `index`-th position (row-major) of a strided box of `ndim` dims.
fn strided_offset(index: u32, ndim: u32, shape: array<vec4<u32>, 2>, st: array<vec4<u32>, 2>) -> u32 {
    var off = 0u;
    var rem = index;
    for (var d = ndim; d > 0u; d--) {
        let k = d - 1u;
        let n = shape[k / 4u][k % 4u];
        off += (rem % n) * st[k / 4u][k % 4u];
        rem = rem / n;
    }
    return off;
}

fn row_offset(row: u32) -> u32 {
    return p.off + strided_offset(row, p.kept_ndim, p.kept_shape, p.kept_st);
}

fn element_offset(i: u32) -> u32 {
    return strided_offset(i, p.red_ndim, p.red_shape, p.red_st);
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
        out[g] = bitcast<u32>(partial[0]);
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
    out[row] = bitcast<u32>(acc);
}

// ----- argmax / argmin ---------------------------------------------------------------------------

var<workgroup> partial_index: array<u32, 256>;

// Whether (v, i) beats (w, j): the first NaN wins, then the larger (OP 2) or smaller (OP 3)
// value, then the smaller index. A total order, so any folding order gives the same winner.
fn beats(v: f32, i: u32, w: f32, j: u32) -> bool {
    let nv = is_nan(v);
    let nw = is_nan(w);
    if nv || nw {
        if nv && nw { return i < j; }
        return nv;
    }
    if v == w { return i < j; }
    if OP == 2u { return v > w; }
    return v < w;
}

fn write_index(row: u32, i: u32) {
    out[2u * row] = i;
    out[2u * row + 1u] = 0u;
}

@compute @workgroup_size(256)
fn arg_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.y * nwg.x + wid.x;
    if row >= p.rows { return; }
    let base = row_offset(row);
    var best = bitcast<f32>(0x7fc00000u);
    var best_i = 0xffffffffu;
    for (var i = lid; i < p.len; i += 256u) {
        let v = x[base + element_offset(i)];
        if best_i == 0xffffffffu || beats(v, i, best, best_i) {
            best = v;
            best_i = i;
        }
    }
    partial[lid] = best;
    partial_index[lid] = best_i;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if lid < s {
            let j = partial_index[lid + s];
            if j != 0xffffffffu && (partial_index[lid] == 0xffffffffu || beats(partial[lid + s], j, partial[lid], partial_index[lid])) {
                partial[lid] = partial[lid + s];
                partial_index[lid] = j;
            }
        }
        workgroupBarrier();
    }
    if lid == 0u {
        write_index(row, partial_index[0]);
    }
}

@compute @workgroup_size(256)
fn arg_reduce_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = (wid.y * nwg.x + wid.x) * 256u + lid;
    if row >= p.rows { return; }
    let base = row_offset(row);
    var best = x[base];
    var best_i = 0u;
    for (var i = 1u; i < p.len; i++) {
        let v = x[base + element_offset(i)];
        if beats(v, i, best, best_i) {
            best = v;
            best_i = i;
        }
    }
    write_index(row, best_i);
}

// ----- cumulative sums and products ----------------------------------------------------------------

// Row `row`'s running sums (OP 0) or products (OP 1), one thread per row, in order, into the
// contiguous [rows, len] output.
@compute @workgroup_size(256)
fn scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = (wid.y * nwg.x + wid.x) * 256u + lid;
    if row >= p.rows { return; }
    let base = row_offset(row);
    var acc = identity();
    for (var i = 0u; i < p.len; i++) {
        acc = combine(acc, x[base + element_offset(i)]);
        out[row * p.len + i] = bitcast<u32>(acc);
    }
}

// ----- sorting ---------------------------------------------------------------------------------------

// Rows of up to 1024 elements, sorted by a bitonic network in workgroup memory. The order is
// total (NaN counts as the largest value, ties go by position, padding after everything), so
// the result is the stable sort the CPU gives. OP 0 ascending, 1 descending. The output is each
// row's permutation as int64 indices, [rows, len].
var<workgroup> sort_key: array<f32, 1024>;
var<workgroup> sort_index: array<u32, 1024>;

const PAD: u32 = 0xffffffffu;

fn sorts_before(v: f32, i: u32, w: f32, j: u32) -> bool {
    if i == PAD || j == PAD { return j == PAD && i != PAD; }
    let nv = is_nan(v);
    let nw = is_nan(w);
    if nv || nw || v == w {
        if nv != nw { return (OP == 1u) == nv; }
        return i < j;
    }
    if OP == 1u { return v > w; }
    return v < w;
}

@compute @workgroup_size(256)
fn sort_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.y * nwg.x + wid.x;
    if row >= p.rows { return; }
    let base = row_offset(row);
    // The network's width: the row length rounded up to a power of two (`chunk_len`).
    let n = p.chunk_len;
    for (var t = lid; t < n; t += 256u) {
        if t < p.len {
            sort_key[t] = x[base + element_offset(t)];
            sort_index[t] = t;
        } else {
            sort_key[t] = 0.0;
            sort_index[t] = PAD;
        }
    }
    workgroupBarrier();
    for (var k = 2u; k <= n; k = k << 1u) {
        for (var j = k >> 1u; j > 0u; j = j >> 1u) {
            for (var t = lid; t < n; t += 256u) {
                let partner = t ^ j;
                if partner > t {
                    // Ascending blocks where bit k of t is clear, descending where it is set.
                    let up = (t & k) == 0u;
                    let a_first = sorts_before(sort_key[t], sort_index[t], sort_key[partner], sort_index[partner]);
                    if a_first != up {
                        let kv = sort_key[t];
                        sort_key[t] = sort_key[partner];
                        sort_key[partner] = kv;
                        let iv = sort_index[t];
                        sort_index[t] = sort_index[partner];
                        sort_index[partner] = iv;
                    }
                }
            }
            workgroupBarrier();
        }
    }
    for (var t = lid; t < p.len; t += 256u) {
        out[2u * (row * p.len + t)] = sort_index[t];
        out[2u * (row * p.len + t) + 1u] = 0u;
    }
}
