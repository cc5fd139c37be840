// softmax (OP 0) and log_softmax (OP 1) of rows of T (a prelude, float_f32.wgsl or float_f64.wgsl,
// defines it and the math functions), fused: one workgroup per row reads it
// three times (its maximum, the sum of exp(x - max), then the results). Both reductions are
// deterministic, as in reduce.wgsl: thread t folds elements t, t + 256, ... in order, then the
// workgroup combines its 256 partials in a fixed halving tree, so results depend only on the
// sizes. e = exp(x - max); softmax is e / sum and log_softmax (x - max) - log(sum), the shift
// applied before the logarithm as on the CPU. A NaN wins the maximum, so its whole row is NaN.
//
// The input is contiguous from element `off`; row r is (outer, inner) = (r / inner, r % inner)
// with its `len` elements `inner` apart. The output is contiguous and laid out as the input.
//
// `softmax_backward` is the input gradient from the output y (binding 2, from `off`) and the
// output gradient g (binding 3, contiguous from `off_g`), one workgroup per row in two passes:
// the same deterministic sum, of g * y for softmax (OP 0) and of g for log_softmax (OP 1), then
// y * (g - sum) or g - exp(y) * sum, as the CPU's kernel computes them.

override OP: u32 = 0u;

struct Params {
    rows: u32,
    len: u32,
    inner: u32,
    off: u32,
    off_g: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<storage, read> x: array<T>;
@group(0) @binding(3) var<storage, read> g: array<T>;

// The larger of a and b; NaN wins.
fn max_nan(a: T, b: T) -> T {
    return select(b, a, t_is_nan(a) || a > b);
}

@compute @workgroup_size(256)
fn softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // One workgroup per row; the test is uniform across the workgroup.
    let row = wid.y * nwg.x + wid.x;
    if row >= p.rows { return; }
    let base = (row / p.inner) * p.len * p.inner + row % p.inner;
    let src = p.off + base;

    var m = t_neg_inf();
    for (var i = lid; i < p.len; i += 256u) {
        m = max_nan(m, x[src + i * p.inner]);
    }
    partial[lid] = m;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if lid < s {
            partial[lid] = max_nan(partial[lid], partial[lid + s]);
        }
        workgroupBarrier();
    }
    let top = partial[0];
    // Every thread has read the maximum before the partials are reused.
    workgroupBarrier();

    var acc = T(0.0);
    for (var i = lid; i < p.len; i += 256u) {
        acc += t_exp(x[src + i * p.inner] - top);
    }
    let total = workgroup_sum(acc, lid);

    let log_total = t_log(total);
    for (var i = lid; i < p.len; i += 256u) {
        let shifted = x[src + i * p.inner] - top;
        if OP == 1u {
            out[base + i * p.inner] = shifted - log_total;
        } else {
            out[base + i * p.inner] = t_exp(shifted) / total;
        }
    }
}

@compute @workgroup_size(256)
fn softmax_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.y * nwg.x + wid.x;
    if row >= p.rows { return; }
    let base = (row / p.inner) * p.len * p.inner + row % p.inner;
    let ys = p.off + base;
    let gs = p.off_g + base;

    var acc = T(0.0);
    for (var i = lid; i < p.len; i += 256u) {
        if OP == 1u {
            acc += g[gs + i * p.inner];
        } else {
            acc += g[gs + i * p.inner] * x[ys + i * p.inner];
        }
    }
    let total = workgroup_sum(acc, lid);

    for (var i = lid; i < p.len; i += 256u) {
        let yv = x[ys + i * p.inner];
        let gv = g[gs + i * p.inner];
        if OP == 1u {
            out[base + i * p.inner] = gv - t_exp(yv) * total;
        } else {
            out[base + i * p.inner] = yv * (gv - total);
        }
    }
}
