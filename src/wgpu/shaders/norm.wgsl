// Layer norm and batch norm of T (a prelude, float_f32.wgsl or float_f64.wgsl, defines it), fused,
// forward and backward. Every reduction is deterministic, as in softmax.wgsl: thread t folds
// elements t, t + 256, ... in order, then the workgroup combines its 256 partials in a fixed
// halving tree (and chunks are folded in order), so results depend only on the sizes. Statistics
// take two passes (the mean, then the mean squared deviation from it), as on the CPU, so a large
// mean does not cancel the variance away.
//
// All operands are contiguous; x, g, w and b start at their `off_*` element, the statistics and
// the outputs at 0. Layer norm sees x as `rows` rows of `cols`; batch norm as `batch` images of
// `rows` channels of `cols` elements (its plane), channel c of image n at (n * rows + c) * cols.
//
// One set of bindings serves every entry (unused read slots get any buffer; `layer_norm` and
// `layer_norm_backward` leave `extra` unbound): mean and rstd are written by the forward
// kernels and read by the backward ones, which is why they are read_write.
//
// - `layer_norm`: one workgroup per row: mean, rstd = 1 / sqrt(biased var + eps), then
//   out = (x - mean) * rstd * w + b.
// - `layer_norm_backward`: one workgroup per row: with dxhat = g * w, the sums of dxhat and of
//   dxhat * xhat, then dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)).
// - `layer_norm_param_grads`: the column sums of g * xhat (the weight's gradient, into out) and
//   of g (the bias's, into extra) in two steps, so that a column's many rows are not one
//   thread's work. OP 0: thread (chunk, col) sums column col over the chunk's `batch` rows in
//   order, into element chunk * cols + col. OP 1: thread col sums the `rows` chunk partials of
//   its column in order, read from x and g, into element col. The chunk size is a constant, so
//   the order of the sums depends on the sizes only; with one chunk OP 0 alone writes the sums.
//
// Batch norm splits each channel's batch * cols elements into `chunks` chunks of `chunk_len`
// (fixed by the sizes), so that few channels of many elements still fill the GPU: a workgroup
// per chunk sums it, a workgroup per channel folds the chunk sums in order, and the elementwise
// pass runs a thread per element. `extra` holds per channel results first (the variance in the
// forward pass; the sums of g * xhat, then of g, in the backward) and the chunk sums after them.
// - `batch_norm_partials`: one workgroup per (channel, chunk): the chunk's sum of x (OP 0), of
//   (x - mean)^2 (OP 1), or of g * xhat and of g (OP 2, two sets of chunk sums).
// - `batch_norm_stats`: one workgroup per channel folds its chunk sums: the mean (OP 0); the
//   biased variance and rstd (OP 1); the backward sums (OP 2). OP 3 (evaluation) writes rstd
//   from the running variance, which `extra` holds.
// - `batch_norm_apply`: one thread per element: out = x * scale + shift with scale = rstd * w and
//   shift = b - mean * scale, as the CPU's kernel computes it (OP 0); dx = rstd * w * (g - mean(g)
//   - xhat * mean(g * xhat)) in training (OP 1) or rstd * w * g in evaluation (OP 2).

override OP: u32 = 0u;

struct Params {
    rows: u32,
    cols: u32,
    batch: u32,
    // 1: a weight is given, 2: a bias is given.
    flags: u32,
    off_x: u32,
    off_g: u32,
    off_w: u32,
    off_b: u32,
    // eps's words (see t_of_words).
    eps: vec2<u32>,
    // Batch norm: chunks per channel, and elements per chunk.
    chunks: u32,
    chunk_len: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<storage, read_write> mean: array<T>;
@group(0) @binding(3) var<storage, read_write> rstd: array<T>;
@group(0) @binding(4) var<storage, read> x: array<T>;
@group(0) @binding(5) var<storage, read> w: array<T>;
@group(0) @binding(6) var<storage, read> b: array<T>;
@group(0) @binding(7) var<storage, read> g: array<T>;
@group(0) @binding(8) var<storage, read_write> extra: array<T>;

fn has_weight() -> bool {
    return (p.flags & 1u) != 0u;
}

fn has_bias() -> bool {
    return (p.flags & 2u) != 0u;
}

@compute @workgroup_size(256)
fn layer_norm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // One workgroup per row; the test is uniform across the workgroup.
    let row = wid.y * nwg.x + wid.x;
    if row >= p.rows { return; }
    let n = p.cols;
    let src = p.off_x + row * n;

    var acc = T(0.0);
    for (var i = lid; i < n; i += 256u) {
        acc += x[src + i];
    }
    let m = workgroup_sum(acc, lid) / T(n);
    acc = T(0.0);
    for (var i = lid; i < n; i += 256u) {
        let d = x[src + i] - m;
        acc += d * d;
    }
    let v = workgroup_sum(acc, lid) / T(n);
    let rs = 1.0 / sqrt(v + t_of_words(p.eps));
    if lid == 0u {
        mean[row] = m;
        rstd[row] = rs;
    }
    for (var i = lid; i < n; i += 256u) {
        var o = (x[src + i] - m) * rs;
        if has_weight() {
            o = o * w[p.off_w + i];
        }
        if has_bias() {
            o = o + b[p.off_b + i];
        }
        out[row * n + i] = o;
    }
}

@compute @workgroup_size(256)
fn layer_norm_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.y * nwg.x + wid.x;
    if row >= p.rows { return; }
    let n = p.cols;
    let xs = p.off_x + row * n;
    let gs = p.off_g + row * n;
    let m = mean[row];
    let rs = rstd[row];

    var acc_a = T(0.0);
    var acc_b = T(0.0);
    for (var i = lid; i < n; i += 256u) {
        var dh = g[gs + i];
        if has_weight() {
            dh = dh * w[p.off_w + i];
        }
        acc_a += dh;
        acc_b += dh * ((x[xs + i] - m) * rs);
    }
    let inv_n = 1.0 / T(n);
    let a = workgroup_sum(acc_a, lid) * inv_n;
    let c = workgroup_sum(acc_b, lid) * inv_n;
    for (var i = lid; i < n; i += 256u) {
        var dh = g[gs + i];
        if has_weight() {
            dh = dh * w[p.off_w + i];
        }
        out[row * n + i] = rs * (dh - a - (x[xs + i] - m) * rs * c);
    }
}

@compute @workgroup_size(256)
fn layer_norm_param_grads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // Workgroups walk the column tiles of chunk 0, then of chunk 1, ...
    let tiles = (p.cols + 255u) / 256u;
    let wg = wid.y * nwg.x + wid.x;
    let col = (wg % tiles) * 256u + lid;
    let chunk = wg / tiles;
    if col >= p.cols { return; }
    var dw = T(0.0);
    var db = T(0.0);
    if OP == 0u {
        let first = chunk * p.batch;
        // The grid may hold a few workgroups past the last chunk. Chunk 0 always writes, zeros
        // for zero rows.
        if chunk > 0u && first >= p.rows { return; }
        let last = min(first + p.batch, p.rows);
        for (var r = first; r < last; r++) {
            let gv = g[p.off_g + r * p.cols + col];
            dw += gv * ((x[p.off_x + r * p.cols + col] - mean[r]) * rstd[r]);
            db += gv;
        }
    } else {
        if chunk > 0u { return; }
        for (var r = 0u; r < p.rows; r++) {
            dw += x[r * p.cols + col];
            db += g[r * p.cols + col];
        }
    }
    out[chunk * p.cols + col] = dw;
    extra[chunk * p.cols + col] = db;
}

// Element k of channel c's (batch * plane) elements: image k / plane, position k % plane.
fn channel_index(c: u32, k: u32) -> u32 {
    return ((k / p.cols) * p.rows + c) * p.cols + k % p.cols;
}

fn channel_count() -> u32 {
    return p.batch * p.cols;
}

@compute @workgroup_size(256)
fn batch_norm_partials(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let wg = wid.y * nwg.x + wid.x;
    let c = wg / p.chunks;
    let chunk = wg % p.chunks;
    // The test is uniform across the workgroup.
    if c >= p.rows { return; }
    let first = chunk * p.chunk_len;
    let last = min(first + p.chunk_len, channel_count());
    var m = T(0.0);
    var rs = T(0.0);
    if OP != 0u {
        m = mean[c];
        rs = rstd[c];
    }
    var acc = T(0.0);
    var acc_g = T(0.0);
    for (var k = first + lid; k < last; k += 256u) {
        let at = channel_index(c, k);
        let xv = x[p.off_x + at];
        if OP == 0u {
            acc += xv;
        } else if OP == 1u {
            let d = xv - m;
            acc += d * d;
        } else {
            let gv = g[p.off_g + at];
            acc += gv * ((xv - m) * rs);
            acc_g += gv;
        }
    }
    // Per channel results come first: the variance (forward) or both backward sums.
    let results = select(p.rows, 2u * p.rows, OP == 2u);
    let sum = workgroup_sum(acc, lid);
    if lid == 0u {
        extra[results + c * p.chunks + chunk] = sum;
    }
    if OP == 2u {
        let sum_g = workgroup_sum(acc_g, lid);
        if lid == 0u {
            extra[results + (p.rows + c) * p.chunks + chunk] = sum_g;
        }
    }
}

// The sum of chunk sums `first`, `first + 1`, ... (`p.chunks` of them) in `extra`, in order.
fn fold_chunks(first: u32, lid: u32) -> T {
    var acc = T(0.0);
    for (var j = lid; j < p.chunks; j += 256u) {
        acc += extra[first + j];
    }
    return workgroup_sum(acc, lid);
}

@compute @workgroup_size(256)
fn batch_norm_stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = wid.y * nwg.x + wid.x;
    if c >= p.rows { return; }
    let eps = t_of_words(p.eps);
    let count = T(channel_count());
    if OP == 3u {
        if lid == 0u {
            rstd[c] = 1.0 / sqrt(extra[c] + eps);
        }
        return;
    }
    if OP == 2u {
        let results = 2u * p.rows;
        let sum_gx = fold_chunks(results + c * p.chunks, lid);
        let sum_g = fold_chunks(results + (p.rows + c) * p.chunks, lid);
        if lid == 0u {
            extra[c] = sum_gx;
            extra[p.rows + c] = sum_g;
        }
        return;
    }
    let moment = fold_chunks(p.rows + c * p.chunks, lid) / count;
    if lid == 0u {
        if OP == 0u {
            mean[c] = moment;
        } else {
            extra[c] = moment;
            rstd[c] = 1.0 / sqrt(moment + eps);
        }
    }
}

@compute @workgroup_size(256)
fn batch_norm_apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.y * nwg.x * 256u + gid.x;
    if i >= p.batch * p.rows * p.cols { return; }
    let c = (i / p.cols) % p.rows;
    let rs = rstd[c];
    var scale = rs;
    if has_weight() {
        scale = rs * w[p.off_w + c];
    }
    if OP == 0u {
        var shift = T(0.0);
        if has_bias() {
            shift = b[p.off_b + c];
        }
        shift = shift - mean[c] * scale;
        out[i] = x[p.off_x + i] * scale + shift;
        return;
    }
    let gv = g[p.off_g + i];
    if OP == 2u {
        out[i] = scale * gv;
        return;
    }
    let inv_count = 1.0 / T(channel_count());
    let a = extra[p.rows + c] * inv_count;
    let bb = extra[c] * inv_count;
    out[i] = scale * (gv - a - (x[p.off_x + i] - mean[c]) * rs * bb);
}
