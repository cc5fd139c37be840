// Reductions (sum, prod, max, min) and arg-reductions (argmax, argmin: int64 indices) over any
// set of strided dims, cumulative sums and products, and the stable sort, for one element type
// `T`: the source is a prelude (reduce_f32.wgsl, reduce_f64.wgsl or reduce_i64.wgsl) that
// defines T, its words per element W, loading and storing its bits, `identity`, `combine`,
// `t_lt`, `t_eq` and `t_is_nan`, followed by this file. Results depend only on the sizes, never
// on scheduling: in `reduce` and `arg_reduce` each workgroup owns one output (or, for `reduce`,
// one fixed chunk of it), thread t folds elements t, t + 256, ... in order and the workgroup then
// combines its 256 partials in a fixed halving tree; the `_rows` entries fold short rows one
// thread each, in order.

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
    // The long sort's stage: the comparison distance (`chunks` holds the block size).
    pad: u32,
    // The kept dims (which output) and the reduced dims (which element of it): sizes and
    // strides in elements, innermost last, up to 8 each.
    kept_shape: array<vec4<u32>, 2>,
    kept_st: array<vec4<u32>, 2>,
    red_shape: array<vec4<u32>, 2>,
    red_st: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
// Results as the words of T, int64 indices as (lo, hi) word pairs, or the long sort's scratch.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
// The input's words (element e at words W * e ..).
@group(0) @binding(2) var<storage, read> x: array<u32>;

var<workgroup> partial: array<T, 256>;

fn load(e: u32) -> T {
    if W == 2u { return t_of(vec2<u32>(x[2u * e], x[2u * e + 1u])); }
    return t_of(vec2<u32>(x[e], 0u));
}

fn store(i: u32, v: T) {
    let w = t_words(v);
    if W == 2u {
        out[2u * i] = w.x;
        out[2u * i + 1u] = w.y;
    } else {
        out[i] = w.x;
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
        acc = combine(acc, load(base + element_offset(i)));
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
        store(g, partial[0]);
    }
}

@compute @workgroup_size(256)
fn reduce_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = (wid.y * nwg.x + wid.x) * 256u + lid;
    if row >= p.rows { return; }
    let base = row_offset(row);
    var acc = identity();
    for (var i = 0u; i < p.len; i++) {
        acc = combine(acc, load(base + element_offset(i)));
    }
    store(row, acc);
}

// ----- argmax / argmin ---------------------------------------------------------------------------

var<workgroup> partial_index: array<u32, 256>;

// Whether (v, i) beats (w, j): the first NaN wins, then the larger (OP 2) or smaller (OP 3)
// value, then the smaller index. A total order, so any folding order gives the same winner.
fn beats(v: T, i: u32, w: T, j: u32) -> bool {
    let nv = t_is_nan(v);
    let nw = t_is_nan(w);
    if nv || nw {
        if nv && nw { return i < j; }
        return nv;
    }
    if t_eq(v, w) { return i < j; }
    if OP == 2u { return t_lt(w, v); }
    return t_lt(v, w);
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
    var best = identity();
    var best_i = 0xffffffffu;
    for (var i = lid; i < p.len; i += 256u) {
        let v = load(base + element_offset(i));
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
    var best = load(base);
    var best_i = 0u;
    for (var i = 1u; i < p.len; i++) {
        let v = load(base + element_offset(i));
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
        acc = combine(acc, load(base + element_offset(i)));
        store(row * p.len + i, acc);
    }
}

// ----- sorting ---------------------------------------------------------------------------------------

// Rows of up to 1024 elements, sorted by a bitonic network in workgroup memory. The order is
// total (NaN counts as the largest value, ties go by position, padding after everything), so
// the result is the stable sort the CPU gives. OP 0 ascending, 1 descending. The output is each
// row's permutation as int64 indices, [rows, len].
var<workgroup> sort_key: array<T, 1024>;
var<workgroup> sort_index: array<u32, 1024>;

const PAD: u32 = 0xffffffffu;

fn sorts_before(v: T, i: u32, w: T, j: u32) -> bool {
    if i == PAD || j == PAD { return j == PAD && i != PAD; }
    let nv = t_is_nan(v);
    let nw = t_is_nan(w);
    if nv || nw || t_eq(v, w) {
        if nv != nw { return (OP == 1u) == nv; }
        return i < j;
    }
    if OP == 1u { return t_lt(w, v); }
    return t_lt(v, w);
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
            sort_key[t] = load(base + element_offset(t));
            sort_index[t] = t;
        } else {
            sort_key[t] = identity();
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

// ----- sorting rows longer than 1024: the same network over a scratch buffer -----------------------

// The scratch (`out` while sorting) holds rows * n keys (W words each), then rows * n indices,
// n = `chunk_len`, the row length rounded up to a power of two. `sort_init` fills it, one
// `sort_step` per stage (block size `chunks`, distance `pad`) compares and swaps, and
// `sort_finish` writes each row's permutation from the scratch (then `x`) as int64 indices.

fn scratch_key(e: u32) -> T {
    if W == 2u { return t_of(vec2<u32>(out[2u * e], out[2u * e + 1u])); }
    return t_of(vec2<u32>(out[e], 0u));
}

fn set_scratch_key(e: u32, v: T) {
    store(e, v);
}

fn flat_thread(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

@compute @workgroup_size(256)
fn sort_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let n = p.chunk_len;
    let g = flat_thread(wid, nwg, lid);
    if g >= p.rows * n { return; }
    let row = g / n;
    let t = g % n;
    let indices = p.rows * n * W;
    if t < p.len {
        set_scratch_key(g, load(row_offset(row) + element_offset(t)));
        out[indices + g] = t;
    } else {
        set_scratch_key(g, identity());
        out[indices + g] = PAD;
    }
}

@compute @workgroup_size(256)
fn sort_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let n = p.chunk_len;
    let half = n / 2u;
    let g = flat_thread(wid, nwg, lid);
    if g >= p.rows * half { return; }
    let row = g / half;
    let h = g % half;
    let k = p.chunks;
    let j = p.pad;
    // The pair's lower position: h with a zero bit inserted at j.
    let t = (h & (j - 1u)) | ((h & ~(j - 1u)) << 1u);
    let a = row * n + t;
    let b = a + j;
    let indices = p.rows * n * W;
    let up = (t & k) == 0u;
    let ka = scratch_key(a);
    let kb = scratch_key(b);
    let ia = out[indices + a];
    let ib = out[indices + b];
    if sorts_before(ka, ia, kb, ib) != up {
        set_scratch_key(a, kb);
        set_scratch_key(b, ka);
        out[indices + a] = ib;
        out[indices + b] = ia;
    }
}

@compute @workgroup_size(256)
fn sort_finish(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = flat_thread(wid, nwg, lid);
    if g >= p.rows * p.len { return; }
    let row = g / p.len;
    let t = g % p.len;
    out[2u * g] = x[p.rows * p.chunk_len * W + row * p.chunk_len + t];
    out[2u * g + 1u] = 0u;
}
