// The elementwise kernels that compute in the float type T: unary and binary math, comparisons,
// the casting copy and the ordered segment sums. One source for float32 and float64: a prelude
// (elementwise_f32.wgsl or elementwise_f64.wgsl) defines T, to_t and from_t (an element's bits
// to T and back), t_alpha and t_beta (the op arguments) and the t_ math functions, so that each
// op is written once. Literals are abstract and take T's precision; a `let` of one needs its
// type (`let k: T = ...`), as an untyped one would be float32.

fn unary_op(x: T) -> T {
    // Every op maps NaN to NaN except x ** 0, which is 1, and sign, which gives 0.
    if t_is_nan(x) && !(OP == 36u && t_alpha() == 0.0) && OP != 3u { return x; }
    switch OP {
        case 0u: { return x; }
        case 1u: { return -x; }
        case 2u: { return abs(x); }
        // As a difference of truth values: +0.0 for zeros of either sign and NaN.
        case 3u: { return T(x > 0.0) - T(x < 0.0); }
        case 4u: { return select(0.0, x, x > 0.0); }
        case 5u: { return floor(x); }
        case 6u: { return ceil(x); }
        case 7u: { return round(x); }
        case 8u: { return trunc(x); }
        case 9u: { return t_exp(x); }
        case 10u: { return t_exp2(x); }
        case 11u: { return t_log(x); }
        case 12u: { return t_log2(x); }
        case 13u: { return t_log10(x); }
        case 14u: { return t_log1p(x); }
        case 15u: { return t_expm1(x); }
        case 16u: { return t_sqrt(x); }
        case 17u: { return 1.0 / t_sqrt(x); }
        case 18u: { return t_sin(x); }
        case 19u: { return t_cos(x); }
        case 20u: { return t_tan(x); }
        // Through atan2: drivers' asin and acos can be far less accurate than their atan.
        case 21u: { if abs(x) > 1.0 { return t_nan(); } return t_atan2(x, sqrt((1.0 - x) * (1.0 + x))); }
        case 22u: { if abs(x) > 1.0 { return t_nan(); } return t_atan2(sqrt((1.0 - x) * (1.0 + x)), x); }
        case 23u: { return t_atan(x); }
        case 24u: { return t_sinh(x); }
        case 25u: { return t_cosh(x); }
        case 26u: { return t_tanh(x); }
        case 27u: { return t_sigmoid(x); }
        case 28u: { return 0.5 * x * (1.0 + t_erf(x * 0.70710678118654752)); }
        case 29u: {
            let k: T = 0.79788456080286536; // sqrt(2 / pi)
            return 0.5 * x * (1.0 + t_tanh(k * (x + 0.044715 * x * x * x)));
        }
        case 30u: { return x * t_sigmoid(x); }
        case 31u: { return t_erf(x); }
        case 32u: { return 1.0 / x; }
        // asinh, acosh, atanh through log1p, which keeps the digits near 0 (acosh's near 1); far
        // out, where x * x would lose or overflow, log(|x|) + log(2).
        case 37u: {
            let a = abs(x);
            if a == 0.0 { return x; }
            var r = t_log(a) + 0.69314718055994531;
            if a < T_FAR { r = t_log1p(a + a * a / (1.0 + sqrt(1.0 + a * a))); }
            return select(r, -r, x < 0.0);
        }
        case 38u: {
            if x < 1.0 { return t_nan(); }
            if x > T_FAR { return t_log(x) + 0.69314718055994531; }
            let t = x - 1.0;
            return t_log1p(t + sqrt(t * (t + 2.0)));
        }
        case 39u: {
            let a = abs(x);
            if a > 1.0 { return t_nan(); }
            if a == 0.0 { return x; }
            let r = 0.5 * t_log1p(2.0 * a / (1.0 - a));
            return select(r, -r, x < 0.0);
        }
        case 33u: {
            // softplus(beta = alpha, threshold = beta)
            let b = t_alpha();
            if x * b > t_beta() { return x; }
            return t_log1p(t_exp(x * b)) / b;
        }
        case 34u: { return select(x * t_alpha(), x, x > 0.0); }
        case 35u: { return select(t_alpha() * t_expm1(x), x, x > 0.0); }
        // threshold(threshold = alpha, value = beta)
        case 40u: { return select(x, t_beta(), x <= t_alpha()); }
        // hardtanh(min_val = alpha, max_val = beta); a value at a bound is kept (-0.0 at 0).
        case 41u: {
            if x < t_alpha() { return t_alpha(); }
            return select(x, t_beta(), x > t_beta());
        }
        case 42u: { return min(max(x + 3.0, 0.0), 6.0) / 6.0; }
        // As written, so that -inf gives NaN (-inf * 0).
        case 43u: { return x * min(max(x + 3.0, 0.0), 6.0) / 6.0; }
        // x * tanh(log1p(exp(x))): 1 in T from x = 20 on (and no overflow); -inf gives NaN.
        case 44u: {
            if x > 20.0 { return x; }
            return x * t_tanh(t_log1p(t_exp(x)));
        }
        // celu(alpha): elu of x / alpha, scaled back.
        case 45u: { return select(t_expm1(x * (1.0 / t_alpha())) * t_alpha(), x, x > 0.0); }
        // selu: elu with fixed alpha and scale.
        case 46u: {
            let scale: T = 1.0507009873554804934;
            let alpha: T = 1.6732632423543772848;
            return select(t_expm1(x) * (alpha * scale), x * scale, x > 0.0);
        }
        // log_sigmoid: min(x, 0) - log1p(exp(-|x|)), with no overflow either way.
        case 47u: { return min(x, 0.0) - t_log1p(t_exp(-abs(x))); }
        case 36u: {
            let e = t_alpha();
            if e == 2.0 { return x * x; }
            // x ** ±0.5 is sqrt and rsqrt, as PyTorch computes it: (-inf) ** 0.5 is NaN.
            if e == 0.5 { return t_sqrt(x); }
            if e == -0.5 { return 1.0 / t_sqrt(x); }
            return t_pow(x, e);
        }
        default: { return t_nan(); }
    }
}

// PyTorch's floor division: the floor of the true quotient, computed from the remainder.
fn floor_div(x: T, y: T) -> T {
    if y == 0.0 { return x / y; }
    let m = x % y;
    var q = (x - m) / y;
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) { q -= 1.0; }
    if q == 0.0 { return 0.0; }
    let fq = floor(q);
    return select(fq, fq + 1.0, q - fq > 0.5);
}

fn binary_op(x: T, y: T) -> T {
    switch OP {
        case 0u: { return x + y; }
        case 1u: { return x - y; }
        case 2u: { return x * y; }
        case 3u: { return x / y; }
        case 4u: { return floor_div(x, y); }
        case 5u: {
            let r = x % y;
            return select(r, r + y, r != 0.0 && ((r < 0.0) != (y < 0.0)));
        }
        case 6u: { return t_pow(x, y); }
        case 7u: {
            if t_is_nan(x) || x > y { return x; }
            return y;
        }
        case 8u: {
            if t_is_nan(x) || x < y { return x; }
            return y;
        }
        case 9u: { return t_atan2(x, y); }
        // relu's gradient: x where y > 0.
        case 10u: { return select(x, 0.0, y <= 0.0); }
        // fmod: WGSL's float % truncates the quotient, as C's fmod does.
        case 14u: { return x % y; }
        default: { return t_nan(); }
    }
}

// eq, ne, lt, le, gt, ge with IEEE NaN semantics (every comparison but ne is false).
fn compare_t(x: T, y: T) -> bool {
    if t_is_nan(x) || t_is_nan(y) { return OP == 1u; }
    switch OP {
        case 0u: { return x == y; }
        case 1u: { return x != y; }
        case 2u: { return x < y; }
        case 3u: { return x <= y; }
        case 4u: { return x > y; }
        default: { return x >= y; }
    }
}

fn compare_i(x: vec2<u32>, y: vec2<u32>) -> bool {
    let eq = x.x == y.x && x.y == y.y;
    switch OP {
        case 0u: { return eq; }
        case 1u: { return !eq; }
        case 2u: { return i64_lt(x, y); }
        case 3u: { return i64_lt(x, y) || eq; }
        case 4u: { return i64_lt(y, x); }
        default: { return i64_lt(y, x) || eq; }
    }
}

// ----- entry points ------------------------------------------------------------------------------

@compute @workgroup_size(256)
fn unary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_t(p.dt_a, operand(0u, o.a));
    store_bits(p.dt_out, o.o, from_t(p.dt_out, unary_op(x)));
}

@compute @workgroup_size(256)
fn binary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_t(p.dt_a, operand(0u, o.a));
    let y = to_t(p.dt_b, operand(1u, o.b));
    store_bits(p.dt_out, o.o, from_t(p.dt_out, binary_op(x, y)));
}

// Comparisons in T, or in int64 with flag bit 2; the output is bool.
@compute @workgroup_size(256)
fn compare(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = operand(0u, o.a);
    let y = operand(1u, o.b);
    var r: bool;
    if (p.flags & 4u) != 0u {
        r = compare_i(to_i64(p.dt_a, x), to_i64(p.dt_b, y));
    } else {
        r = compare_t(to_t(p.dt_a, x), to_t(p.dt_b, y));
    }
    store_bits(p.dt_out, o.o, vec2<u32>(select(0u, 1u, r), 0u));
}

// The strided copy, converting between dtypes (bit for bit when they are the same): a float
// source goes through T, an integer one through int64, except into float64 (which only the
// float64 module is launched for): through T, which holds every integer to one rounding.
@compute @workgroup_size(256)
fn copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = operand(0u, o.a);
    var r = v;
    if p.dt_a != p.dt_out {
        if is_float(p.dt_a) || p.dt_out == F64 {
            r = from_t(p.dt_out, to_t(p.dt_a, v));
        } else {
            r = from_i64(p.dt_out, to_i64(p.dt_a, v));
        }
    }
    store_bits(p.dt_out, o.o, r);
}

// out[i] += a[c[count + j]] for j in c[i]..c[i + 1], in order: the scatter-adds of index_add,
// scatter_add and gradients of gathers, written as one ordered sum per output element so that
// results are the same on every run (and the same as on the CPU). In T, or int64 with flag 2.
@compute @workgroup_size(256)
fn segment_sum(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = p.off_out + i;
    let start = c[i];
    let end = c[i + 1u];
    if start == end { return; }
    if (p.flags & 4u) != 0u {
        var acc = to_i64(p.dt_out, load_out_bits(p.dt_out, o));
        for (var j = start; j < end; j++) {
            acc = i64_add(acc, to_i64(p.dt_a, load_bits(0u, p.dt_a, c[p.count + j])));
        }
        store_bits(p.dt_out, o, from_i64(p.dt_out, acc));
    } else {
        var acc = to_t(p.dt_out, load_out_bits(p.dt_out, o));
        for (var j = start; j < end; j++) {
            acc += to_t(p.dt_a, load_bits(0u, p.dt_a, c[p.count + j]));
        }
        store_bits(p.dt_out, o, from_t(p.dt_out, acc));
    }
}
