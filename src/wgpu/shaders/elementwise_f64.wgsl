// The elementwise kernels whose compute class is float64 (appended, with f64.wgsl, to
// elementwise.wgsl's source: a separate module that only devices with shader-f64 compile).
// Operands of any dtype load as float64; op arguments come as float64 bits in `args64`.

// Conversions between float64 and every dtype's bits (they use elementwise.wgsl's helpers, so
// they live here rather than in f64.wgsl, which other modules append on their own).

fn to_f64(dt: u32, v: vec2<u32>) -> f64 {
    switch dt {
        case 0u: { return select(0.0lf, 1.0lf, v.x != 0u); }
        case 1u: { return f64(v.x); }
        case 2u: { return f64(bitcast<i32>(sext(v.x, 8u).x)); }
        case 3u: { return f64(bitcast<i32>(sext(v.x, 16u).x)); }
        case 4u: { return f64(bitcast<i32>(v.x)); }
        case 5u: { return i64_to_f64(v); }
        case 9u: { return f64_of(v); }
        // float16, bfloat16 and float32 widen exactly.
        default: { return f64(to_f32(dt, v)); }
    }
}

// Float64 to `dt`. Half types round through float32 (a tie after the first rounding can round
// the other way than a direct conversion: off by one half-ulp step in rare cases).
fn from_f64(dt: u32, x: f64) -> vec2<u32> {
    switch dt {
        case 0u: { return vec2<u32>(select(0u, 1u, x != 0.0 || is_nan64(x)), 0u); }
        case 6u, 7u, 8u: { return from_f32(dt, f32(x)); }
        case 9u: { return f64_words(x); }
        case 2u, 3u, 4u: { return narrow_int(dt, i64_of(f64_to_i32(x))); }
        default: { return narrow_int(dt, f64_to_i64(x)); }
    }
}

fn alpha64() -> f64 {
    return f64_of(p.args64.xy);
}

fn beta64() -> f64 {
    return f64_of(p.args64.zw);
}

fn unary_op64(x: f64) -> f64 {
    // Every op maps NaN to NaN except x ** 0, which is 1.
    if is_nan64(x) && !(OP == 36u && alpha64() == 0.0) && OP != 3u { return x; }
    switch OP {
        case 0u: { return x; }
        case 1u: { return -x; }
        case 2u: { return abs(x); }
        case 3u: { return f64(x > 0.0) - f64(x < 0.0); }
        case 4u: { return select(0.0lf, x, x > 0.0); }
        case 5u: { return floor(x); }
        case 6u: { return ceil(x); }
        case 7u: { return round(x); }
        case 8u: { return trunc(x); }
        case 9u: { return exp64(x); }
        case 10u: { return exp2_64(x); }
        case 11u: { return log64(x); }
        case 12u: { return log2_64(x); }
        case 13u: { return log10_64(x); }
        case 14u: { return log1p64(x); }
        case 15u: { return expm1_64(x); }
        case 16u: { if x < 0.0 { return nan64(); } return sqrt(x); }
        case 17u: { if x < 0.0 { return nan64(); } return 1.0 / sqrt(x); }
        case 18u: { return sin64(x); }
        case 19u: { return cos64(x); }
        case 20u: { return tan64(x); }
        case 21u: { if abs(x) > 1.0 { return nan64(); } return atan2_64(x, sqrt((1.0 - x) * (1.0 + x))); }
        case 22u: { if abs(x) > 1.0 { return nan64(); } return atan2_64(sqrt((1.0 - x) * (1.0 + x)), x); }
        case 23u: { return atan64(x); }
        case 24u: { return sinh64(x); }
        case 25u: { return cosh64(x); }
        case 26u: { return tanh64(x); }
        case 27u: { return sigmoid64(x); }
        case 28u: { return 0.5 * x * (1.0 + erf64(x * 0.7071067811865476)); }
        case 29u: { return 0.5 * x * (1.0 + tanh64(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
        case 30u: { return x * sigmoid64(x); }
        case 31u: { return erf64(x); }
        case 32u: { return 1.0 / x; }
        // asinh, acosh, atanh as in elementwise.wgsl.
        case 37u: {
            let a = abs(x);
            if a == 0.0 { return x; }
            var r = log64(a) + 0.6931471805599453;
            if a < 268435456.0 { r = log1p64(a + a * a / (1.0 + sqrt(1.0 + a * a))); }
            return select(r, -r, x < 0.0);
        }
        case 38u: {
            if x < 1.0 { return nan64(); }
            if x > 268435456.0 { return log64(x) + 0.6931471805599453; }
            let t = x - 1.0;
            return log1p64(t + sqrt(t * (t + 2.0)));
        }
        case 39u: {
            let a = abs(x);
            if a > 1.0 { return nan64(); }
            if a == 0.0 { return x; }
            let r = 0.5 * log1p64(2.0 * a / (1.0 - a));
            return select(r, -r, x < 0.0);
        }
        case 33u: {
            // softplus(beta = alpha, threshold = beta)
            let b = alpha64();
            if x * b > beta64() { return x; }
            return log1p64(exp64(x * b)) / b;
        }
        case 34u: { return select(x * alpha64(), x, x > 0.0); }
        case 35u: { return select(alpha64() * expm1_64(x), x, x > 0.0); }
        case 36u: {
            let e = alpha64();
            if e == 2.0 { return x * x; }
            // x ** ±0.5 is sqrt and rsqrt, as PyTorch computes it: (-inf) ** 0.5 is NaN.
            if e == 0.5 { if x < 0.0 { return nan64(); } return sqrt(x); }
            if e == -0.5 { if x < 0.0 { return nan64(); } return 1.0 / sqrt(x); }
            return pow64(x, e);
        }
        default: { return nan64(); }
    }
}

// PyTorch's floor division: the floor of the true quotient, computed from the remainder.
fn floor_div64(x: f64, y: f64) -> f64 {
    if y == 0.0 { return x / y; }
    let m = x % y;
    var q = (x - m) / y;
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) { q -= 1.0; }
    if q == 0.0 { return 0.0; }
    let fq = floor(q);
    return select(fq, fq + 1.0, q - fq > 0.5);
}

fn binary_op64(x: f64, y: f64) -> f64 {
    switch OP {
        case 0u: { return x + y; }
        case 1u: { return x - y; }
        case 2u: { return x * y; }
        case 3u: { return x / y; }
        case 4u: { return floor_div64(x, y); }
        case 5u: {
            let r = x % y;
            return select(r, r + y, r != 0.0 && ((r < 0.0) != (y < 0.0)));
        }
        case 6u: { return pow64(x, y); }
        case 7u: {
            if is_nan64(x) || x > y { return x; }
            return y;
        }
        case 8u: {
            if is_nan64(x) || x < y { return x; }
            return y;
        }
        case 9u: { return atan2_64(x, y); }
        case 10u: { return select(x, 0.0lf, y <= 0.0); }
        case 14u: { return x % y; }
        default: { return nan64(); }
    }
}

fn compare64(x: f64, y: f64) -> bool {
    if is_nan64(x) || is_nan64(y) { return OP == 1u; }
    switch OP {
        case 0u: { return x == y; }
        case 1u: { return x != y; }
        case 2u: { return x < y; }
        case 3u: { return x <= y; }
        case 4u: { return x > y; }
        default: { return x >= y; }
    }
}

@compute @workgroup_size(256)
fn unary_f64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_f64(p.dt_a, operand(0u, o.a));
    store_bits(p.dt_out, o.o, from_f64(p.dt_out, unary_op64(x)));
}

@compute @workgroup_size(256)
fn binary_f64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_f64(p.dt_a, operand(0u, o.a));
    let y = to_f64(p.dt_b, operand(1u, o.b));
    store_bits(p.dt_out, o.o, from_f64(p.dt_out, binary_op64(x, y)));
}

@compute @workgroup_size(256)
fn compare_f64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let r = compare64(to_f64(p.dt_a, operand(0u, o.a)), to_f64(p.dt_b, operand(1u, o.b)));
    store_bits(p.dt_out, o.o, vec2<u32>(select(0u, 1u, r), 0u));
}

// The casting copy where either side is float64.
@compute @workgroup_size(256)
fn copy_f64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = operand(0u, o.a);
    var r = v;
    if p.dt_a != p.dt_out {
        if p.dt_out == F64 {
            r = f64_words(to_f64(p.dt_a, v));
        } else {
            r = from_f64(p.dt_out, f64_of(v));
        }
    }
    store_bits(p.dt_out, o.o, r);
}

// `segment_sum` for a float64 output.
@compute @workgroup_size(256)
fn segment_sum_f64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = p.off_out + i;
    let start = c[i];
    let end = c[i + 1u];
    if start == end { return; }
    var acc = f64_of(load_out_bits(F64, o));
    for (var j = start; j < end; j++) {
        acc += f64_of(load_bits(0u, F64, c[p.count + j]));
    }
    store_bits(F64, o, f64_words(acc));
}
