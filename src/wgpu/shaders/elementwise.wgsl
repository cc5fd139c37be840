// Elementwise kernels over strided, broadcast operands of any dtype: float32 math (unary,
// binary), int64-exact integer arithmetic (the helpers of int64.wgsl, appended to this source), comparisons, logical ops, `where`, the casting copy,
// and the gathers and scatters whose storage offsets the host computed (take, put, segment sums).
// One shader; each op is its own pipeline through the OP override constant, so the switch folds
// away. Buffers are raw 32-bit words: every element is loaded as the bits of its dtype and
// converted to the op's compute class (float32, or int64 as a (lo, hi) pair of u32), and stored
// back into the output's dtype. Outputs are atomic words so that 1- and 2-byte elements sharing
// a word can be written by different invocations.

override OP: u32 = 0u;

const MAX_DIMS: u32 = 8u;

// DType codes, in the order of Rust's `DType`.
const BOOL: u32 = 0u;
const U8: u32 = 1u;
const I8: u32 = 2u;
const I16: u32 = 3u;
const I32: u32 = 4u;
const I64: u32 = 5u;
const F16: u32 = 6u;
const BF16: u32 = 7u;
const F32: u32 = 8u;
const F64: u32 = 9u;

struct Params {
    numel: u32,
    ndim: u32,
    // bit 0: operand a is the scalar `scalar_a`; bit 1: b is `scalar_b`; bit 2: integer math.
    flags: u32,
    // Elements of the offset list in `c` before the entries a kernel indexes (segment sums).
    count: u32,
    off_out: u32,
    off_a: u32,
    off_b: u32,
    off_c: u32,
    dt_out: u32,
    dt_a: u32,
    dt_b: u32,
    dt_c: u32,
    // Scalar operands as the bits of their dtype (`dt_a`, `dt_b`), low word first.
    scalar_a: vec2<u32>,
    scalar_b: vec2<u32>,
    // Op arguments (leaky_relu's slope, softplus' beta and threshold, pow's exponent, ...).
    alpha: f32,
    beta: f32,
    // Strides of a and b along the summed dim (matmul_int).
    step_a: u32,
    step_b: u32,
    // The same two arguments as float64 bits (lo, hi, lo, hi), for the float64 kernels.
    args64: vec4<u32>,
    // Sizes and strides (in elements) of up to MAX_DIMS dims, innermost last.
    shape: array<vec4<u32>, 2>,
    st_out: array<vec4<u32>, 2>,
    st_a: array<vec4<u32>, 2>,
    st_b: array<vec4<u32>, 2>,
    st_c: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> a: array<u32>;
@group(0) @binding(3) var<storage, read> b: array<u32>;
@group(0) @binding(4) var<storage, read> c: array<u32>;

struct Offsets {
    o: u32,
    a: u32,
    b: u32,
    c: u32,
}

// The storage offsets of output element `i` (row-major over `shape`) in each operand.
fn offsets(i: u32) -> Offsets {
    var r = Offsets(p.off_out, p.off_a, p.off_b, p.off_c);
    var rem = i;
    for (var d = p.ndim; d > 0u; d--) {
        let k = d - 1u;
        let n = p.shape[k / 4u][k % 4u];
        let q = rem % n;
        rem = rem / n;
        r.o += q * p.st_out[k / 4u][k % 4u];
        r.a += q * p.st_a[k / 4u][k % 4u];
        r.b += q * p.st_b[k / 4u][k % 4u];
        r.c += q * p.st_c[k / 4u][k % 4u];
    }
    return r;
}

// The flat index of this invocation over a grid that may span two dispatch dimensions (each
// is limited to 65535 workgroups).
fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

// ----- loading and storing elements of any dtype ----------------------------------------------

fn size_of(dt: u32) -> u32 {
    switch dt {
        case 0u, 1u, 2u: { return 1u; }
        case 3u, 6u, 7u: { return 2u; }
        case 5u, 9u: { return 8u; }
        default: { return 4u; }
    }
}

fn word(which: u32, i: u32) -> u32 {
    switch which {
        case 0u: { return a[i]; }
        case 1u: { return b[i]; }
        default: { return c[i]; }
    }
}

// The bits of element `e` of operand `which` (0 a, 1 b, 2 c) of dtype `dt`, zero-extended.
fn load_bits(which: u32, dt: u32, e: u32) -> vec2<u32> {
    switch size_of(dt) {
        case 1u: { return vec2<u32>((word(which, e / 4u) >> ((e % 4u) * 8u)) & 0xffu, 0u); }
        case 2u: { return vec2<u32>((word(which, e / 2u) >> ((e % 2u) * 16u)) & 0xffffu, 0u); }
        case 8u: { return vec2<u32>(word(which, 2u * e), word(which, 2u * e + 1u)); }
        default: { return vec2<u32>(word(which, e), 0u); }
    }
}

// Writes the bits of element `e` of the output. Sub-word elements clear and set only their own
// bits, atomically, so neighbours written by other invocations survive.
fn store_bits(dt: u32, e: u32, v: vec2<u32>) {
    switch size_of(dt) {
        case 1u: {
            let sh = (e % 4u) * 8u;
            atomicAnd(&out[e / 4u], ~(0xffu << sh));
            atomicOr(&out[e / 4u], (v.x & 0xffu) << sh);
        }
        case 2u: {
            let sh = (e % 2u) * 16u;
            atomicAnd(&out[e / 2u], ~(0xffffu << sh));
            atomicOr(&out[e / 2u], (v.x & 0xffffu) << sh);
        }
        case 8u: {
            atomicStore(&out[2u * e], v.x);
            atomicStore(&out[2u * e + 1u], v.y);
        }
        default: { atomicStore(&out[e], v.x); }
    }
}

fn load_out_bits(dt: u32, e: u32) -> vec2<u32> {
    switch size_of(dt) {
        case 1u: { return vec2<u32>((atomicLoad(&out[e / 4u]) >> ((e % 4u) * 8u)) & 0xffu, 0u); }
        case 2u: { return vec2<u32>((atomicLoad(&out[e / 2u]) >> ((e % 2u) * 16u)) & 0xffffu, 0u); }
        case 8u: { return vec2<u32>(atomicLoad(&out[2u * e]), atomicLoad(&out[2u * e + 1u])); }
        default: { return vec2<u32>(atomicLoad(&out[e]), 0u); }
    }
}

fn is_float(dt: u32) -> bool {
    return dt >= F16;
}

fn sext(v: u32, bits: u32) -> vec2<u32> {
    let s = bitcast<i32>(v << (32u - bits)) >> (32u - bits);
    return vec2<u32>(bitcast<u32>(s), select(0u, 0xffffffffu, s < 0));
}

// int64 to float32: the magnitude's high and low words, then the sign.
fn i64_to_f32(x: vec2<u32>) -> f32 {
    let n = is_neg(x);
    let m = select(x, i64_neg(x), n);
    let v = f32(m.y) * 4294967296.0 + f32(m.x);
    return select(v, -v, n);
}

// float32 to int64 as PyTorch's CPU casts give it: truncated toward zero, with NaN and values
// out of range (including 2^63) giving the minimum, -2^63.
fn f32_to_i64(v: f32) -> vec2<u32> {
    let t = trunc(v);
    if is_nan(v) || !(t >= -9223372036854775808.0 && t < 9223372036854775808.0) { return vec2<u32>(0u, 0x80000000u); }
    if abs(t) < 2147483648.0 { return i64_of(i32(t)); }
    let m = abs(t);
    let hi = floor(m / 4294967296.0);
    let r = vec2<u32>(u32(m - hi * 4294967296.0), u32(hi));
    return select(r, i64_neg(r), t < 0.0);
}

// The same through a 32-bit intermediate (for int8, int16 and int32 targets): out of range
// gives -2^31.
fn f32_to_i32(v: f32) -> i32 {
    let t = trunc(v);
    if is_nan(v) || !(t >= -2147483648.0 && t < 2147483648.0) { return i32(-2147483647 - 1); }
    return i32(t);
}

// ----- dtype conversions ------------------------------------------------------------------------

// float32 to float16 bits, rounding to nearest even (written out: drivers' pack2x16float may
// round otherwise or flush subnormals).
fn f16_bits(v: f32) -> u32 {
    let u = bitcast<u32>(v);
    let sign = (u >> 16u) & 0x8000u;
    let m = u & 0x7fffffffu;
    if m > 0x7f800000u { return sign | 0x7e00u; }
    // At and above 65520 (halfway past the largest half, 65504) the result is infinite.
    if m >= 0x477ff000u { return sign | 0x7c00u; }
    if m < 0x38800000u {
        // A subnormal half: a multiple of 2^-24, and `round` ties to even.
        return sign | u32(round(bitcast<f32>(m) * 16777216.0));
    }
    let r = m - 0x38000000u;
    return sign | ((r + 0x0fffu + ((r >> 13u) & 1u)) >> 13u);
}

fn f16_value(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if e == 0u {
        let v = f32(m) * 5.9604644775390625e-8;
        return select(v, -v, sign != 0u);
    }
    if e == 31u { return bitcast<f32>(sign | 0x7f800000u | (m << 13u)); }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

// float32 to bfloat16 bits, rounding to nearest even (NaN stays a quiet NaN).
fn bf16_bits(v: f32) -> u32 {
    let u = bitcast<u32>(v);
    if is_nan(v) { return (u >> 16u) | 0x40u; }
    return (u + 0x7fffu + ((u >> 16u) & 1u)) >> 16u;
}

fn to_f32(dt: u32, v: vec2<u32>) -> f32 {
    switch dt {
        case 0u: { return select(0.0, 1.0, v.x != 0u); }
        case 1u: { return f32(v.x); }
        case 2u: { return f32(bitcast<i32>(sext(v.x, 8u).x)); }
        case 3u: { return f32(bitcast<i32>(sext(v.x, 16u).x)); }
        case 4u: { return f32(bitcast<i32>(v.x)); }
        case 5u: { return i64_to_f32(v); }
        case 6u: { return f16_value(v.x); }
        case 7u: { return bitcast<f32>(v.x << 16u); }
        default: { return bitcast<f32>(v.x); }
    }
}

fn to_i64(dt: u32, v: vec2<u32>) -> vec2<u32> {
    switch dt {
        case 0u: { return vec2<u32>(select(0u, 1u, v.x != 0u), 0u); }
        case 1u: { return v; }
        case 2u: { return sext(v.x, 8u); }
        case 3u: { return sext(v.x, 16u); }
        case 4u: { return i64_of(bitcast<i32>(v.x)); }
        case 5u: { return v; }
        default: { return f32_to_i64(to_f32(dt, v)); }
    }
}

fn nonzero(dt: u32, v: vec2<u32>) -> bool {
    // Float64 by its bits: any set bit but the sign's (NaN included) is nonzero.
    if dt == F64 { return (v.x | (v.y & 0x7fffffffu)) != 0u; }
    if is_float(dt) { return to_f32(dt, v) != 0.0 || is_nan(to_f32(dt, v)); }
    return v.x != 0u || v.y != 0u;
}

// Integers narrow by keeping their low bits (wrapping, as PyTorch's casts do).
fn narrow_int(dt: u32, x: vec2<u32>) -> vec2<u32> {
    switch dt {
        case 0u: { return vec2<u32>(select(0u, 1u, x.x != 0u || x.y != 0u), 0u); }
        case 1u, 2u: { return vec2<u32>(x.x & 0xffu, 0u); }
        case 3u: { return vec2<u32>(x.x & 0xffffu, 0u); }
        case 4u: { return vec2<u32>(x.x, 0u); }
        default: { return x; }
    }
}

fn from_f32(dt: u32, x: f32) -> vec2<u32> {
    switch dt {
        case 0u: { return vec2<u32>(select(0u, 1u, x != 0.0 || is_nan(x)), 0u); }
        case 6u: { return vec2<u32>(f16_bits(x), 0u); }
        case 7u: { return vec2<u32>(bf16_bits(x), 0u); }
        case 8u: { return vec2<u32>(bitcast<u32>(x), 0u); }
        case 2u, 3u, 4u: { return narrow_int(dt, i64_of(f32_to_i32(x))); }
        default: { return narrow_int(dt, f32_to_i64(x)); }
    }
}

fn from_i64(dt: u32, x: vec2<u32>) -> vec2<u32> {
    if is_float(dt) { return from_f32(dt, i64_to_f32(x)); }
    return narrow_int(dt, x);
}

// Operand `which` (0 a, 1 b) at storage offset `e`, or its scalar.
fn operand(which: u32, e: u32) -> vec2<u32> {
    if which == 0u {
        if (p.flags & 1u) != 0u { return p.scalar_a; }
        return load_bits(0u, p.dt_a, e);
    }
    if (p.flags & 2u) != 0u { return p.scalar_b; }
    return load_bits(1u, p.dt_b, e);
}

// ----- float helpers with IEEE results where SPIR-V leaves builtins undefined -------------------

fn nan() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

fn inf() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

// A bit test: compilers may assume `x != x` is false.
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

fn log_(x: f32) -> f32 {
    if x < 0.0 { return nan(); }
    if x == 0.0 { return -inf(); }
    if is_inf(x) { return x; }
    return log(x);
}

fn log2_(x: f32) -> f32 {
    if x < 0.0 { return nan(); }
    if x == 0.0 { return -inf(); }
    if is_inf(x) { return x; }
    return log2(x);
}

fn sqrt_(x: f32) -> f32 {
    if x < 0.0 { return nan(); }
    return sqrt(x);
}

// log(1 + x) without losing the digits of small x: the rounding error of 1 + x is undone by
// scaling with x / (u - 1).
fn log1p_(x: f32) -> f32 {
    let u = 1.0 + x;
    if u == 1.0 { return x; }
    if u <= 0.0 { return log_(u); }
    if is_inf(u) { return u; }
    return log(u) * x / (u - 1.0);
}

// exp(x) - 1, accurate near zero by the same trick.
fn expm1_(x: f32) -> f32 {
    let u = exp(x);
    if u == 1.0 { return x; }
    let um1 = u - 1.0;
    if um1 == -1.0 { return -1.0; }
    if is_inf(u) { return u; }
    return um1 * x / log(u);
}

// tanh that stays finite where exp overflows (tanh(15) is 1 in float32).
fn tanh_(x: f32) -> f32 {
    return tanh(clamp(x, -15.0, 15.0));
}

// erf: its Taylor series near zero (where 1 - tail would cancel), Abramowitz and Stegun 7.1.26
// (absolute error below 1.5e-7) elsewhere.
fn erf_(x: f32) -> f32 {
    let ax = abs(x);
    if ax < 0.5 {
        let x2 = x * x;
        let s = 1.0 + x2 * (-1.0 / 3.0 + x2 * (1.0 / 10.0 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 - x2 / 1320.0))));
        return 1.1283791670955126 * x * s;
    }
    let t = 1.0 / (1.0 + 0.3275911 * ax);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    let r = 1.0 - poly * exp(-ax * ax);
    return select(r, -r, x < 0.0);
}

fn sigmoid_(x: f32) -> f32 {
    return 1.0 / (1.0 + exp(-x));
}

// x to an integer power by squaring (exact signs, better rounding than exp2 * log2).
fn powi_(x: f32, n: i32) -> f32 {
    var base = x;
    var e = abs(n);
    var acc = 1.0;
    while e > 0 {
        if (e & 1) == 1 { acc *= base; }
        base *= base;
        e = e >> 1u;
    }
    return select(acc, 1.0 / acc, n < 0);
}

// C's pow: pow(x, 0) = 1 and pow(1, y) = 1 even for NaN; negative bases need integer exponents.
fn pow_(x: f32, y: f32) -> f32 {
    if y == 0.0 || x == 1.0 { return 1.0; }
    if is_nan(x) || is_nan(y) { return nan(); }
    if y == floor(y) && abs(y) <= 64.0 { return powi_(x, i32(y)); }
    let ax = abs(x);
    // y is an odd integer (every float of 2^24 and up is even).
    let odd = y == floor(y) && abs(y) < 16777216.0 && fract(y * 0.5) != 0.0;
    var r: f32;
    if is_inf(ax) {
        r = select(inf(), 0.0, y < 0.0);
        return select(r, -r, x < 0.0 && odd);
    }
    if is_inf(y) {
        if ax == 1.0 { return 1.0; }
        r = select(0.0, inf(), (ax > 1.0) == (y > 0.0));
        return r;
    }
    if ax == 0.0 {
        r = select(0.0, inf(), y < 0.0);
    } else {
        r = exp2(y * log2(ax));
    }
    if x < 0.0 {
        if y != floor(y) { return nan(); }
        if odd { r = -r; }
    }
    return r;
}

fn unary_op(x: f32) -> f32 {
    // Every op maps NaN to NaN except x ** 0, which is 1, and sign, which gives 0.
    if is_nan(x) && !(OP == 36u && p.alpha == 0.0) && OP != 3u { return x; }
    switch OP {
        case 0u: { return x; }
        case 1u: { return -x; }
        case 2u: { return abs(x); }
        // As a difference of truth values: +0.0 for zeros of either sign and NaN.
        case 3u: { return f32(x > 0.0) - f32(x < 0.0); }
        case 4u: { return select(0.0, x, x > 0.0); }
        case 5u: { return floor(x); }
        case 6u: { return ceil(x); }
        case 7u: { return round(x); }
        case 8u: { return trunc(x); }
        case 9u: { return exp(x); }
        case 10u: { return exp2(x); }
        case 11u: { return log_(x); }
        case 12u: { return log2_(x); }
        case 13u: { return log2_(x) * 0.30102999566398120; }
        case 14u: { return log1p_(x); }
        case 15u: { return expm1_(x); }
        case 16u: { return sqrt_(x); }
        case 17u: { return 1.0 / sqrt_(x); }
        case 18u: { return sin(x); }
        case 19u: { return cos(x); }
        case 20u: { return tan(x); }
        // Through atan2: drivers' asin and acos can be far less accurate than their atan.
        case 21u: { if abs(x) > 1.0 { return nan(); } return atan2(x, sqrt((1.0 - x) * (1.0 + x))); }
        case 22u: { if abs(x) > 1.0 { return nan(); } return atan2(sqrt((1.0 - x) * (1.0 + x)), x); }
        case 23u: { return atan(x); }
        case 24u: { return sinh(x); }
        case 25u: { return cosh(x); }
        case 26u: { return tanh_(x); }
        case 27u: { return sigmoid_(x); }
        case 28u: { return 0.5 * x * (1.0 + erf_(x * 0.70710678118654752)); }
        case 29u: {
            let k = 0.79788456080286536; // sqrt(2 / pi)
            return 0.5 * x * (1.0 + tanh_(k * (x + 0.044715 * x * x * x)));
        }
        case 30u: { return x * sigmoid_(x); }
        case 31u: { return erf_(x); }
        case 32u: { return 1.0 / x; }
        // asinh, acosh, atanh through log1p, which keeps the digits near 0 (acosh's near 1); far
        // out, where x * x would lose or overflow, log(|x|) + log(2).
        case 37u: {
            let a = abs(x);
            if a == 0.0 { return x; }
            var r = log_(a) + 0.69314718055994531;
            if a < 4096.0 { r = log1p_(a + a * a / (1.0 + sqrt(1.0 + a * a))); }
            return select(r, -r, x < 0.0);
        }
        case 38u: {
            if x < 1.0 { return nan(); }
            if x > 4096.0 { return log_(x) + 0.69314718055994531; }
            let t = x - 1.0;
            return log1p_(t + sqrt(t * (t + 2.0)));
        }
        case 39u: {
            let a = abs(x);
            if a > 1.0 { return nan(); }
            if a == 0.0 { return x; }
            let r = 0.5 * log1p_(2.0 * a / (1.0 - a));
            return select(r, -r, x < 0.0);
        }
        case 33u: {
            // softplus(beta = alpha, threshold = beta)
            if x * p.alpha > p.beta { return x; }
            return log1p_(exp(x * p.alpha)) / p.alpha;
        }
        case 34u: { return select(x * p.alpha, x, x > 0.0); }
        case 35u: { return select(p.alpha * expm1_(x), x, x > 0.0); }
        case 36u: {
            if p.alpha == 2.0 { return x * x; }
            // x ** ±0.5 is sqrt and rsqrt, as PyTorch computes it: (-inf) ** 0.5 is NaN.
            if p.alpha == 0.5 { return sqrt_(x); }
            if p.alpha == -0.5 { return 1.0 / sqrt_(x); }
            return pow_(x, p.alpha);
        }
        default: { return nan(); }
    }
}

// PyTorch's floor division: the floor of the true quotient, computed from the remainder.
fn floor_div_(x: f32, y: f32) -> f32 {
    if y == 0.0 { return x / y; }
    let m = x % y;
    var q = (x - m) / y;
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) { q -= 1.0; }
    if q == 0.0 { return 0.0; }
    let fq = floor(q);
    return select(fq, fq + 1.0, q - fq > 0.5);
}

fn binary_op(x: f32, y: f32) -> f32 {
    switch OP {
        case 0u: { return x + y; }
        case 1u: { return x - y; }
        case 2u: { return x * y; }
        case 3u: { return x / y; }
        case 4u: { return floor_div_(x, y); }
        case 5u: {
            let r = x % y;
            return select(r, r + y, r != 0.0 && ((r < 0.0) != (y < 0.0)));
        }
        case 6u: { return pow_(x, y); }
        case 7u: {
            if is_nan(x) || x > y { return x; }
            return y;
        }
        case 8u: {
            if is_nan(x) || x < y { return x; }
            return y;
        }
        case 9u: { return atan2(x, y); }
        // relu's gradient: x where y > 0.
        case 10u: { return select(x, 0.0, y <= 0.0); }
        // fmod: WGSL's float % truncates the quotient, as C's fmod does.
        case 14u: { return x % y; }
        default: { return nan(); }
    }
}

// ----- integer, comparison and logical ops -------------------------------------------------------

fn binary_int_op(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    switch OP {
        case 0u: { return i64_add(x, y); }
        case 1u: { return i64_sub(x, y); }
        case 2u: { return i64_mul(x, y); }
        case 4u: { return i64_floor_divmod(x, y).q; }
        case 5u: { return i64_floor_divmod(x, y).r; }
        case 6u: { return i64_pow(x, y); }
        case 7u: { return select(y, x, i64_lt(y, x)); }
        case 8u: { return select(y, x, i64_lt(x, y)); }
        case 11u: { return x & y; }
        case 12u: { return x | y; }
        case 13u: { return x ^ y; }
        // fmod: the floored remainder moved to the dividend's sign.
        case 14u: {
            let r = i64_floor_divmod(x, y).r;
            let nonzero = r.x != 0u || r.y != 0u;
            return select(r, i64_sub(r, y), nonzero && (is_neg(r) != is_neg(x)));
        }
        // relu's gradient: x where y > 0.
        case 10u: { return select(vec2<u32>(0u, 0u), x, i64_lt(vec2<u32>(0u, 0u), y)); }
        default: { return vec2<u32>(0u, 0u); }
    }
}

// eq, ne, lt, le, gt, ge with IEEE NaN semantics (every comparison but ne is false).
fn compare_f(x: f32, y: f32) -> bool {
    if is_nan(x) || is_nan(y) { return OP == 1u; }
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

fn unary_int_op(x: vec2<u32>) -> vec2<u32> {
    switch OP {
        case 0u: { return i64_neg(x); }
        case 1u: { return select(x, i64_neg(x), is_neg(x)); }
        case 2u: { return select(select(vec2<u32>(0u, 0u), vec2<u32>(1u, 0u), x.x != 0u || x.y != 0u), vec2<u32>(0xffffffffu, 0xffffffffu), is_neg(x)); }
        case 3u: { return select(x, vec2<u32>(0u, 0u), is_neg(x)); }
        case 5u: { return ~x; }
        case 6u: { return vec2<u32>(select(0u, 1u, x.x == 0u && x.y == 0u), 0u); }
        // Rounding an integer is the identity.
        default: { return x; }
    }
}

// ----- entry points ------------------------------------------------------------------------------

@compute @workgroup_size(256)
fn unary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_f32(p.dt_a, operand(0u, o.a));
    store_bits(p.dt_out, o.o, from_f32(p.dt_out, unary_op(x)));
}

@compute @workgroup_size(256)
fn unary_int(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_i64(p.dt_a, operand(0u, o.a));
    store_bits(p.dt_out, o.o, from_i64(p.dt_out, unary_int_op(x)));
}

@compute @workgroup_size(256)
fn binary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_f32(p.dt_a, operand(0u, o.a));
    let y = to_f32(p.dt_b, operand(1u, o.b));
    store_bits(p.dt_out, o.o, from_f32(p.dt_out, binary_op(x, y)));
}

@compute @workgroup_size(256)
fn binary_int(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_i64(p.dt_a, operand(0u, o.a));
    let y = to_i64(p.dt_b, operand(1u, o.b));
    store_bits(p.dt_out, o.o, from_i64(p.dt_out, binary_int_op(x, y)));
}

// Comparisons in float32, or in int64 with flag bit 2; the output is bool.
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
        r = compare_f(to_f32(p.dt_a, x), to_f32(p.dt_b, y));
    }
    store_bits(p.dt_out, o.o, vec2<u32>(select(0u, 1u, r), 0u));
}

// logical_and, logical_or, logical_xor of the operands' truth values.
@compute @workgroup_size(256)
fn logical(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = nonzero(p.dt_a, operand(0u, o.a));
    let y = nonzero(p.dt_b, operand(1u, o.b));
    var r: bool;
    switch OP {
        case 0u: { r = x && y; }
        case 1u: { r = x || y; }
        default: { r = x != y; }
    }
    store_bits(p.dt_out, o.o, vec2<u32>(select(0u, 1u, r), 0u));
}

// out = c ? a : b, with a and b already of the output's dtype.
@compute @workgroup_size(256)
fn where_(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    if nonzero(p.dt_c, load_bits(2u, p.dt_c, o.c)) {
        store_bits(p.dt_out, o.o, operand(0u, o.a));
    } else {
        store_bits(p.dt_out, o.o, operand(1u, o.b));
    }
}

// The strided copy, converting between dtypes (bit for bit when they are the same).
@compute @workgroup_size(256)
fn copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = operand(0u, o.a);
    var r = v;
    if p.dt_a != p.dt_out {
        if is_float(p.dt_a) {
            r = from_f32(p.dt_out, to_f32(p.dt_a, v));
        } else {
            r = from_i64(p.dt_out, to_i64(p.dt_a, v));
        }
    }
    store_bits(p.dt_out, o.o, r);
}

// out[i] = a[c[i]]: a gather through storage offsets the host computed (c walks its own layout).
@compute @workgroup_size(256)
fn take(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    store_bits(p.dt_out, o.o, load_bits(0u, p.dt_a, c[o.c]));
}

// out[i] = a[o.a + c_i * count]: the gather along one dim by an index tensor on the device (c,
// of any integer dtype, walked by its own strides; a walks the source with the gathered dim's
// stride zeroed). An index outside [0, scalar_b.x) writes nothing and sets the flag word
// scalar_b.y of `out` (past the elements), for the host to read back as one word.
@compute @workgroup_size(256)
fn gather_index(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    if v.y != 0u || v.x >= p.scalar_b.x {
        atomicOr(&out[p.scalar_b.y], 1u);
        return;
    }
    store_bits(p.dt_out, o.o, load_bits(0u, p.dt_a, o.a + v.x * p.count));
}

// The scatter along one dim by an index tensor on the device, in two passes over the index's
// elements i (row-major; c, of any integer dtype, walked by its own strides; the target is
// o.o + c_i * count, o walking the output with the scattered dim's stride zeroed). An index
// outside [0, step_a) writes nothing and sets the flag word step_b of the claim buffer.
// scatter_claim: claim[target] = the largest i + 1 aiming there (out is the claim buffer).
@compute @workgroup_size(256)
fn scatter_claim(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    if v.y != 0u || v.x >= p.step_a {
        atomicOr(&out[p.step_b], 1u);
        return;
    }
    atomicMax(&out[o.o + v.x * p.count], i + 1u);
}

// scatter_write: out[target] = a[o.a] for the i that claimed the target (b is the claim
// buffer), so of repeated targets the last in index order wins, as on the CPU.
@compute @workgroup_size(256)
fn scatter_write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    if v.y != 0u || v.x >= p.step_a { return; }
    let t = o.o + v.x * p.count;
    if b[t] == i + 1u {
        store_bits(p.dt_out, t, operand(0u, o.a));
    }
}

// out[i] = the sum over t < count of a[o.a + t * step_a] * b[o.b + t * step_b], in int64: the
// integer (and bool) matrix product. The host walks a and b at out's shape [.., m, n], a with its
// column stride zeroed and b with its row stride zeroed; step_a and step_b are those two strides.
// Sums and products wrap in int64 and the result keeps its low bits, which are the bits the
// CPU's product wrapping in the output's own dtype gives (bool: nonzero iff some term is).
@compute @workgroup_size(256)
fn matmul_int(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    var acc = vec2<u32>(0u, 0u);
    for (var t = 0u; t < p.count; t++) {
        let x = to_i64(p.dt_a, load_bits(0u, p.dt_a, o.a + t * p.step_a));
        let y = to_i64(p.dt_b, load_bits(1u, p.dt_b, o.b + t * p.step_b));
        acc = i64_add(acc, i64_mul(x, y));
    }
    store_bits(p.dt_out, o.o, from_i64(p.dt_out, acc));
}

// out[c[2i]] = a[c[2i + 1]] for `numel` pairs: a scatter to distinct offsets (the host keeps
// only the last write to each).
@compute @workgroup_size(256)
fn put(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    store_bits(p.dt_out, p.off_out + c[2u * i], load_bits(0u, p.dt_a, p.off_a + c[2u * i + 1u]));
}

// out[i] += a[c[count + j]] for j in c[i]..c[i + 1], in order: the scatter-adds of index_add,
// scatter_add and gradients of gathers, written as one ordered sum per output element so that
// results are the same on every run (and the same as on the CPU). Float32, or int64 with flag 2.
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
        var acc = to_f32(p.dt_out, load_out_bits(p.dt_out, o));
        for (var j = start; j < end; j++) {
            acc += to_f32(p.dt_a, load_bits(0u, p.dt_a, c[p.count + j]));
        }
        store_bits(p.dt_out, o, from_f32(p.dt_out, acc));
    }
}

// ----- scatters through positions computed on the device ---------------------------------------

// out[i] (int64) = o.a + x * count, x the element of the index c at i (any integer dtype,
// walked by its own strides; `a` is walked for its offsets only, never read): the storage
// offset an integer index selects along a dim of stride `count` and size scalar_b.x. With flag
// 8 a negative index counts from the end of the dim. An index outside the dim sets word
// scalar_b.y of out (past the offsets), for the host to read back as one word.
@compute @workgroup_size(256)
fn index_offsets(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    let size = p.scalar_b.x;
    var x = v.x;
    var inside = v.y == 0u;
    if (p.flags & 8u) != 0u && v.y == 0xffffffffu && v.x >= 0u - size {
        // -size <= v < 0: the u32 sum wraps to v + size.
        x = v.x + size;
        inside = true;
    }
    if !inside || x >= size {
        atomicOr(&out[p.scalar_b.y], 1u);
        return;
    }
    store_bits(I64, o.o, vec2<u32>(o.a + x * p.count, 0u));
}

// The list segment_sum and segment_last read, from m = step_a int64 positions a (each below
// count, at a's offset) and their stable sorting permutation b (int64): out[t] for t <= count
// is the number of positions below t (a binary search through the permutation), and out[count
// + 1 + j] = step_b + b[j], the storage offset in the source of the j-th value in target order.
// Values aimed at one target so keep their order, which makes the sums the same on every run.
@compute @workgroup_size(256)
fn segment_list(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    if i > p.count {
        atomicStore(&out[i], p.step_b + load_bits(1u, I64, p.off_b + i - p.count - 1u).x);
        return;
    }
    var lo = 0u;
    var hi = p.step_a;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        let t = load_bits(0u, I64, p.off_a + load_bits(1u, I64, p.off_b + mid).x).x;
        if t < i { lo = mid + 1u; } else { hi = mid; }
    }
    atomicStore(&out[i], lo);
}

// out[i] = a[c[count + end - 1]] where c[i] < c[i + 1] = end: of the values aimed at element i,
// the last in order (the puts of index_put and of gradients through writes).
@compute @workgroup_size(256)
fn segment_last(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let end = c[i + 1u];
    if c[i] == end { return; }
    store_bits(p.dt_out, p.off_out + i, load_bits(0u, p.dt_a, c[p.count + end - 1u]));
}
