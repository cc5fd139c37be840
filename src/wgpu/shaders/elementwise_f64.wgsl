// The float64 element of the elementwise kernels (prepended to elementwise.wgsl and
// elementwise_math.wgsl, which f64.wgsl follows; the device needs shader-f64 and shader-int64):
// the names elementwise_f32.wgsl defines, for float64. SPIR-V has no float64 exp, log,
// trigonometric functions or pow: f64.wgsl's. Op arguments come as float64 bits in `args64`.

alias T = f64;

// From here on 1 + x * x rounds to x * x (2^28 squared is 2^56): asinh and acosh take log(2x).
const T_FAR: f64 = 268435456.0;

// Conversions between float64 and every dtype's bits (they use elementwise.wgsl's helpers, so
// they live here rather than in f64.wgsl, which other modules append on their own).

fn to_t(dt: u32, v: vec2<u32>) -> f64 {
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
fn from_t(dt: u32, x: f64) -> vec2<u32> {
    switch dt {
        case 0u: { return vec2<u32>(select(0u, 1u, x != 0.0 || is_nan64(x)), 0u); }
        case 6u, 7u, 8u: { return from_f32(dt, f32(x)); }
        case 9u: { return f64_words(x); }
        case 2u, 3u, 4u: { return narrow_int(dt, i64_of(f64_to_i32(x))); }
        default: { return narrow_int(dt, f64_to_i64(x)); }
    }
}

fn t_alpha() -> f64 {
    return f64_of(p.args64.xy);
}

fn t_beta() -> f64 {
    return f64_of(p.args64.zw);
}

fn t_is_nan(x: f64) -> bool {
    return is_nan64(x);
}

fn t_nan() -> f64 {
    return nan64();
}

fn t_inf() -> f64 {
    return inf64();
}

// Whether the sign bit is set (-0.0 included).
fn t_sign_bit(x: f64) -> bool {
    return sign_bit64(x);
}

// ----- math: f64.wgsl's -----------------------------------------------------------------------------

fn t_exp(x: f64) -> f64 {
    return exp64(x);
}

fn t_exp2(x: f64) -> f64 {
    return exp2_64(x);
}

fn t_log(x: f64) -> f64 {
    return log64(x);
}

fn t_log2(x: f64) -> f64 {
    return log2_64(x);
}

fn t_log10(x: f64) -> f64 {
    return log10_64(x);
}

// sqrt is correctly rounded in float64 too; only its domain needs saying.
fn t_sqrt(x: f64) -> f64 {
    if x < 0.0 { return nan64(); }
    return sqrt(x);
}

fn t_log1p(x: f64) -> f64 {
    return log1p64(x);
}

fn t_expm1(x: f64) -> f64 {
    return expm1_64(x);
}

fn t_sin(x: f64) -> f64 {
    return sin64(x);
}

fn t_cos(x: f64) -> f64 {
    return cos64(x);
}

fn t_tan(x: f64) -> f64 {
    return tan64(x);
}

fn t_atan(x: f64) -> f64 {
    return atan64(x);
}

fn t_atan2(y: f64, x: f64) -> f64 {
    return atan2_64(y, x);
}

fn t_sinh(x: f64) -> f64 {
    return sinh64(x);
}

fn t_cosh(x: f64) -> f64 {
    return cosh64(x);
}

fn t_tanh(x: f64) -> f64 {
    return tanh64(x);
}

fn t_erf(x: f64) -> f64 {
    return erf64(x);
}

fn t_sigmoid(x: f64) -> f64 {
    return sigmoid64(x);
}

fn t_pow(x: f64, y: f64) -> f64 {
    return pow64(x, y);
}
