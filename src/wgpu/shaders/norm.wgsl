// Layer norm and batch norm of float32 data, fused, forward and backward. Every reduction is
// deterministic, as in softmax.wgsl: thread t folds elements t, t + 256, ... in order, then the
// workgroup combines its 256 partials in a fixed halving tree, so results depend only on the
// sizes. Statistics take two passes (the mean, then the mean squared deviation from it), as on
// the CPU, so a large mean does not cancel the variance away.
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
// - `batch_norm`: one workgroup per channel. Training (OP 0): the channel's mean and biased
//   variance (written to mean and extra) and rstd; evaluation (OP 1): mean and extra hold the
//   running mean and variance, and rstd is computed from them. Then out = x * scale + shift with
//   scale = rstd * w and shift = b - mean * scale, as the CPU's kernel computes it.
// - `batch_norm_backward`: one workgroup per channel: the sums of g * xhat and of g (to extra[c]
//   and extra[rows + c]), then, when flag 4 is set, dx = rstd * w * (g - mean(g) - xhat *
//   mean(g * xhat)) in training (OP 0) or rstd * w * g in evaluation (OP 1).

override OP: u32 = 0u;

struct Params {
    rows: u32,
    cols: u32,
    batch: u32,
    // 1: a weight is given, 2: a bias is given, 4: dx is wanted (batch_norm_backward).
    flags: u32,
    off_x: u32,
    off_g: u32,
    off_w: u32,
    off_b: u32,
    eps: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> mean: array<f32>;
@group(0) @binding(3) var<storage, read_write> rstd: array<f32>;
@group(0) @binding(4) var<storage, read> x: array<f32>;
@group(0) @binding(5) var<storage, read> w: array<f32>;
@group(0) @binding(6) var<storage, read> b: array<f32>;
@group(0) @binding(7) var<storage, read> g: array<f32>;
@group(0) @binding(8) var<storage, read_write> extra: array<f32>;

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

    var acc = 0.0;
    for (var i = lid; i < n; i += 256u) {
        acc += x[src + i];
    }
    let m = workgroup_sum(acc, lid) / f32(n);
    acc = 0.0;
    for (var i = lid; i < n; i += 256u) {
        let d = x[src + i] - m;
        acc += d * d;
    }
    let v = workgroup_sum(acc, lid) / f32(n);
    let rs = 1.0 / sqrt(v + p.eps);
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

    var acc_a = 0.0;
    var acc_b = 0.0;
    for (var i = lid; i < n; i += 256u) {
        var dh = g[gs + i];
        if has_weight() {
            dh = dh * w[p.off_w + i];
        }
        acc_a += dh;
        acc_b += dh * ((x[xs + i] - m) * rs);
    }
    let inv_n = 1.0 / f32(n);
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
    var dw = 0.0;
    var db = 0.0;
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

@compute @workgroup_size(256)
fn batch_norm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = wid.y * nwg.x + wid.x;
    if c >= p.rows { return; }
    let count = p.batch * p.cols;

    var m: f32;
    var rs: f32;
    if OP == 0u {
        var acc = 0.0;
        for (var k = lid; k < count; k += 256u) {
            acc += x[p.off_x + channel_index(c, k)];
        }
        m = workgroup_sum(acc, lid) / f32(count);
        acc = 0.0;
        for (var k = lid; k < count; k += 256u) {
            let d = x[p.off_x + channel_index(c, k)] - m;
            acc += d * d;
        }
        let v = workgroup_sum(acc, lid) / f32(count);
        rs = 1.0 / sqrt(v + p.eps);
        // Every thread has its copy of the statistics before thread 0 writes them.
        if lid == 0u {
            mean[c] = m;
            extra[c] = v;
            rstd[c] = rs;
        }
    } else {
        m = mean[c];
        rs = 1.0 / sqrt(extra[c] + p.eps);
        if lid == 0u {
            rstd[c] = rs;
        }
    }
    var scale = rs;
    if has_weight() {
        scale = rs * w[p.off_w + c];
    }
    var shift = 0.0;
    if has_bias() {
        shift = b[p.off_b + c];
    }
    shift = shift - m * scale;
    for (var k = lid; k < count; k += 256u) {
        let at = channel_index(c, k);
        out[at] = x[p.off_x + at] * scale + shift;
    }
}

@compute @workgroup_size(256)
fn batch_norm_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = wid.y * nwg.x + wid.x;
    if c >= p.rows { return; }
    let count = p.batch * p.cols;
    let m = mean[c];
    let rs = rstd[c];

    var acc_gx = 0.0;
    var acc_g = 0.0;
    for (var k = lid; k < count; k += 256u) {
        let at = channel_index(c, k);
        let gv = g[p.off_g + at];
        acc_gx += gv * ((x[p.off_x + at] - m) * rs);
        acc_g += gv;
    }
    let sum_gx = workgroup_sum(acc_gx, lid);
    let sum_g = workgroup_sum(acc_g, lid);
    if lid == 0u {
        extra[c] = sum_gx;
        extra[p.rows + c] = sum_g;
    }
    if (p.flags & 4u) == 0u { return; }

    var kx = rs;
    if has_weight() {
        kx = rs * w[p.off_w + c];
    }
    let inv_count = 1.0 / f32(count);
    let a = sum_g * inv_count;
    let bb = sum_gx * inv_count;
    for (var k = lid; k < count; k += 256u) {
        let at = channel_index(c, k);
        let gv = g[p.off_g + at];
        if OP == 0u {
            out[at] = kx * (gv - a - (x[p.off_x + at] - m) * rs * bb);
        } else {
            out[at] = kx * gv;
        }
    }
}
