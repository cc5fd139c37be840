// Optimizer updates of contiguous float parameters of the element type T (float32, or float64:
// the launcher prepends optim_f32.wgsl or optim_f64.wgsl), in place, one invocation per element,
// with PyTorch's formulas in the order of operations of `src/cpu/optim.rs` (the CPU's): sgd,
// adam (and AdamW), rmsprop, adagrad. `g` is the gradient; s0..s2 are the optimizer's state
// tensors in the order each update documents (unused ones are bound to a scratch buffer).

struct Params {
    n: u32,
    flags: u32,
    off_p: u32,
    off_g: u32,
    off_s0: u32,
    off_s1: u32,
    off_s2: u32,
    pad: u32,
    // Hyperparameters in T; each entry point names its own.
    h: array<vec4<T>, 2>,
}

const MAXIMIZE: u32 = 1u;
const DECAY: u32 = 2u;
// sgd: a momentum buffer; adam: amsgrad's max; rmsprop: a momentum buffer.
const STATE: u32 = 4u;
// sgd: the buffer is new (it takes the gradient as it is).
const FRESH: u32 = 8u;
const NESTEROV: u32 = 16u;
const DECOUPLED: u32 = 32u;
const CENTERED: u32 = 64u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> param: array<T>;
@group(0) @binding(2) var<storage, read> grad: array<T>;
@group(0) @binding(3) var<storage, read_write> s0: array<T>;
@group(0) @binding(4) var<storage, read_write> s1: array<T>;
@group(0) @binding(5) var<storage, read_write> s2: array<T>;

fn h(i: u32) -> T {
    return p.h[i / 4u][i % 4u];
}

fn has(f: u32) -> bool {
    return (p.flags & f) != 0u;
}

fn index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

fn direction(i: u32) -> T {
    let g = grad[p.off_g + i];
    return select(g, 0.0 - g, has(MAXIMIZE));
}

// h: lr, momentum, 1 - dampening, weight_decay. s0: the momentum buffer.
@compute @workgroup_size(256)
fn sgd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if i >= p.n { return; }
    let x = param[p.off_p + i];
    var d = direction(i);
    if has(DECAY) { d = d + h(3) * x; }
    if has(STATE) {
        var b = d;
        if !has(FRESH) { b = s0[p.off_s0 + i] * h(1) + h(2) * d; }
        s0[p.off_s0 + i] = b;
        d = select(b, d + h(1) * b, has(NESTEROV));
    }
    param[p.off_p + i] = x - h(0) * d;
}

// h: 1 - beta1, beta2, 1 - beta2, weight_decay, eps, lr / bias_correction1,
// sqrt(bias_correction2), 1 - lr * weight_decay. s0: exp_avg, s1: exp_avg_sq, s2: max_exp_avg_sq.
@compute @workgroup_size(256)
fn adam(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if i >= p.n { return; }
    var x = param[p.off_p + i];
    var d = direction(i);
    if has(DECAY) {
        if has(DECOUPLED) { x = x * h(7); } else { d = d + h(3) * x; }
    }
    let m = s0[p.off_s0 + i] + h(0) * (d - s0[p.off_s0 + i]);
    s0[p.off_s0 + i] = m;
    let v = s1[p.off_s1 + i] * h(1) + h(2) * d * d;
    s1[p.off_s1 + i] = v;
    var second = v;
    if has(STATE) {
        let old = s2[p.off_s2 + i];
        second = select(v, old, old >= v || t_is_nan(old));
        s2[p.off_s2 + i] = second;
    }
    let denom = sqrt(second) / h(6) + h(4);
    param[p.off_p + i] = x - h(5) * (m / denom);
}

// h: alpha, 1 - alpha, weight_decay, eps, lr, momentum. s0: square_avg, then the momentum
// buffer (STATE) and grad_avg (CENTERED) in s1, s2 in that order.
@compute @workgroup_size(256)
fn rmsprop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if i >= p.n { return; }
    let x = param[p.off_p + i];
    var d = direction(i);
    if has(DECAY) { d = d + h(2) * x; }
    let sq = s0[p.off_s0 + i] * h(0) + h(1) * d * d;
    s0[p.off_s0 + i] = sq;
    var avg: T;
    if has(CENTERED) {
        var ga: T;
        if has(STATE) {
            ga = s2[p.off_s2 + i] + h(1) * (d - s2[p.off_s2 + i]);
            s2[p.off_s2 + i] = ga;
        } else {
            ga = s1[p.off_s1 + i] + h(1) * (d - s1[p.off_s1 + i]);
            s1[p.off_s1 + i] = ga;
        }
        avg = sqrt(sq - ga * ga) + h(3);
    } else {
        avg = sqrt(sq) + h(3);
    }
    if has(STATE) {
        let b = s1[p.off_s1 + i] * h(5) + d / avg;
        s1[p.off_s1 + i] = b;
        param[p.off_p + i] = x - h(4) * b;
    } else {
        param[p.off_p + i] = x - h(4) * (d / avg);
    }
}

// h: weight_decay, eps, the decayed learning rate. s0: the sum of squared gradients.
@compute @workgroup_size(256)
fn adagrad(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = index(wid, nwg, lid);
    if i >= p.n { return; }
    let x = param[p.off_p + i];
    var d = direction(i);
    if has(DECAY) { d = d + h(0) * x; }
    let acc = s0[p.off_s0 + i] + d * d;
    s0[p.off_s0 + i] = acc;
    param[p.off_p + i] = x - h(2) * (d / (sqrt(acc) + h(1)));
}
