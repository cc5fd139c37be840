// Elementwise kernels over strided, broadcast operands: unary and binary float32 ops and the
// strided copy. One shader; each op is its own pipeline through the OP override constant, so
// the switch folds away. Buffers are raw 32-bit words (floats are bitcast), which lets the copy
// move any 4- or 8-byte dtype bit for bit.

override OP: u32 = 0u;

const MAX_DIMS: u32 = 8u;

struct Params {
    numel: u32,
    ndim: u32,
    // 32-bit words per element: 1, or 2 when copying 8-byte dtypes.
    words: u32,
    // bit 0: operand a is the scalar `scalar_a`; bit 1: b is `scalar_b`.
    flags: u32,
    off_out: u32,
    off_a: u32,
    off_b: u32,
    pad0: u32,
    scalar_a: f32,
    scalar_b: f32,
    // Op arguments (leaky_relu's slope, softplus' beta and threshold, pow's exponent, ...).
    alpha: f32,
    beta: f32,
    // Sizes and strides (in elements) of up to MAX_DIMS dims, innermost last.
    shape: array<vec4<u32>, 2>,
    st_out: array<vec4<u32>, 2>,
    st_a: array<vec4<u32>, 2>,
    st_b: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> a: array<u32>;
@group(0) @binding(3) var<storage, read> b: array<u32>;

struct Offsets {
    o: u32,
    a: u32,
    b: u32,
}

// The storage offsets of output element `i` (row-major over `shape`) in each operand.
fn offsets(i: u32) -> Offsets {
    var r = Offsets(p.off_out, p.off_a, p.off_b);
    var rem = i;
    for (var d = p.ndim; d > 0u; d--) {
        let k = d - 1u;
        let n = p.shape[k / 4u][k % 4u];
        let c = rem % n;
        rem = rem / n;
        r.o += c * p.st_out[k / 4u][k % 4u];
        r.a += c * p.st_a[k / 4u][k % 4u];
        r.b += c * p.st_b[k / 4u][k % 4u];
    }
    return r;
}

// The flat index of this invocation over a grid that may span two dispatch dimensions (each
// is limited to 65535 workgroups).
fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
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
    // Every op maps NaN to NaN except x ** 0, which is 1.
    if is_nan(x) && !(OP == 36u && p.alpha == 0.0) { return x; }
    switch OP {
        case 0u: { return x; }
        case 1u: { return -x; }
        case 2u: { return abs(x); }
        case 3u: { return select(select(0.0, -1.0, x < 0.0), 1.0, x > 0.0); }
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
        case 33u: {
            // softplus(beta = alpha, threshold = beta)
            if x * p.alpha > p.beta { return x; }
            return log1p_(exp(x * p.alpha)) / p.alpha;
        }
        case 34u: { return select(x * p.alpha, x, x > 0.0); }
        case 35u: { return select(p.alpha * expm1_(x), x, x > 0.0); }
        case 36u: {
            if p.alpha == 2.0 { return x * x; }
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
        case 10u: { return select(0.0, x, y > 0.0); }
        default: { return nan(); }
    }
}

@compute @workgroup_size(256)
fn unary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    out[o.o] = bitcast<u32>(unary_op(bitcast<f32>(a[o.a])));
}

@compute @workgroup_size(256)
fn binary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    var x = p.scalar_a;
    var y = p.scalar_b;
    if (p.flags & 1u) == 0u { x = bitcast<f32>(a[o.a]); }
    if (p.flags & 2u) == 0u { y = bitcast<f32>(b[o.b]); }
    out[o.o] = bitcast<u32>(binary_op(x, y));
}

@compute @workgroup_size(256)
fn copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    for (var w = 0u; w < p.words; w++) {
        out[o.o * p.words + w] = a[o.a * p.words + w];
    }
}
