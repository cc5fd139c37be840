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
        // erfc as 1 - erf: the far tail (erfc below T's epsilon) is 0 here, not the CPU's value.
        case 48u: { return 1.0 - t_erf(x); }
        case 49u: { return t_erfinv(x); }
        case 50u: { return t_lgamma(x); }
        case 51u: { return t_digamma(x); }
        case 52u: { return t_bessel_i(0.0, abs(x)); }
        case 53u: { let r = t_bessel_i(1.0, abs(x)); return select(r, -r, x < 0.0); }
        case 54u: {
            if x == 0.0 { return 1.0; }
            let p = 3.14159265358979324 * x;
            return t_sin(p) / p;
        }
        case 55u: { return x * 0.0174532925199432958; }
        case 56u: { return x * 57.2957795130823209; }
        case 57u: { return t_polygamma(t_alpha(), x); }
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

// The special functions of the unary ops above, on the same algorithms as `cpu/special.rs`
// (lgamma through Lanczos' approximation, g = 7).
fn t_erfinv(y: T) -> T {
    let a = abs(y);
    if a > 1.0 { return t_nan(); }
    if a == 1.0 { return select(t_inf(), -t_inf(), y < 0.0); }
    var w = -t_log((1.0 - a) * (1.0 + a));
    var p: T;
    if w < 5.0 {
        w = w - 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w; p = 1.50140941 + p * w;
    } else {
        w = t_sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w; p = 2.83297682 + p * w;
    }
    var x = p * a;
    for (var i = 0; i < 2; i++) {
        x = x - (t_erf(x) - a) / (1.12837916709551257 * t_exp(-x * x));
    }
    return select(x, -x, y < 0.0);
}

fn t_lgamma_pos(x: T) -> T {
    // x >= 0.5
    let z = x - 1.0;
    var a: T = 0.99999999999980993;
    a += 676.5203681218851 / (z + 1.0);
    a += -1259.1392167224028 / (z + 2.0);
    a += 771.32342877765313 / (z + 3.0);
    a += -176.61502916214059 / (z + 4.0);
    a += 12.507343278686905 / (z + 5.0);
    a += -0.13857109526572012 / (z + 6.0);
    a += 9.9843695780195716e-6 / (z + 7.0);
    a += 1.5056327351493116e-7 / (z + 8.0);
    let t = z + 7.5;
    return 0.91893853320467274 + (z + 0.5) * t_log(t) - t + t_log(a);
}

fn t_lgamma(x: T) -> T {
    let inf = t_inf();
    if abs(x) == inf { return inf; }
    if x <= 0.0 && x == floor(x) { return inf; }
    if x >= 0.5 { return t_lgamma_pos(x); }
    // reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    let r = x - floor(x);
    return t_log(3.14159265358979324 / abs(t_sin(3.14159265358979324 * r))) - t_lgamma_pos(1.0 - x);
}

fn t_digamma(x0: T) -> T {
    let inf = t_inf();
    if x0 == 0.0 { return select(-inf, inf, t_sign_bit(x0)); }
    if x0 == -inf { return t_nan(); }
    if x0 == inf { return inf; }
    var x = x0;
    var acc: T = 0.0;
    if x < 0.0 {
        if x == floor(x) { return t_nan(); }
        let r = x - floor(x);
        acc = -3.14159265358979324 / t_tan(3.14159265358979324 * r);
        x = 1.0 - x;
    }
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    var s: T = 1.0 / 12.0;
    s = s * z - 691.0 / 32760.0; s = s * z + 1.0 / 132.0; s = s * z - 1.0 / 240.0;
    s = s * z + 1.0 / 252.0; s = s * z - 1.0 / 120.0; s = s * z + 1.0 / 12.0;
    return acc + t_log(x) - 0.5 / x - s * z;
}

fn t_polygamma(n: T, x: T) -> T {
    if n == 0.0 { return t_digamma(x); }
    if x <= 0.0 && x == floor(x) { return t_inf(); }
    var fact: T = 1.0;
    for (var k: T = 2.0; k <= n; k += 1.0) { fact *= k; }
    let s = n + 1.0;
    // Hurwitz zeta(s, x): the sum up to x + k > 9, then the Euler-Maclaurin tail.
    var sum = t_exp(-s * t_log(abs(x)));
    if x < 0.0 && (s - 2.0 * floor(s / 2.0)) == 1.0 { sum = -sum; }
    var a = x;
    var b: T = 0.0;
    var i = 0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = t_exp(-s * t_log(abs(a)));
        if a < 0.0 && (s - 2.0 * floor(s / 2.0)) == 1.0 { b = -b; }
        sum += b;
    }
    let w = a;
    sum += b * w / (s - 1.0) - 0.5 * b;
    var f: T = 1.0;
    var k: T = 0.0;
    var c = array<T, 6>(12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9);
    for (var j = 0; j < 6; j++) {
        f *= s + k;
        b /= w;
        sum += f * b / c[j];
        k += 1.0;
        f *= s + k;
        b /= w;
        k += 1.0;
    }
    let sign = select(T(-1.0), T(1.0), (n - 2.0 * floor(n / 2.0)) == 1.0);
    return sign * fact * sum;
}

// I0 (nu = 0) or I1 (nu = 1) of a |x|: the series below 30, the asymptotic series above.
fn t_bessel_i(nu: T, x: T) -> T {
    if x < 30.0 {
        let q = 0.25 * x * x;
        var term: T = select(1.0, 0.5 * x, nu == 1.0);
        var sum = term;
        for (var k: T = 1.0; k < 200.0; k += 1.0) {
            term *= q / (k * (k + nu));
            sum += term;
            if term < sum * 1e-17 { break; }
        }
        return sum;
    }
    let mu = 4.0 * nu * nu;
    var term: T = 1.0;
    var sum: T = 1.0;
    for (var k: T = 1.0; k < 60.0; k += 1.0) {
        let j = 2.0 * k - 1.0;
        let next = -term * (mu - j * j) / (k * 8.0 * x);
        if abs(next) >= abs(term) || next == 0.0 { break; }
        sum += next;
        term = next;
    }
    let half = t_exp(0.5 * x);
    return half * (half * sum / t_sqrt(6.28318530717958648 * x));
}
