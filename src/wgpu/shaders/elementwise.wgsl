// The frame of the elementwise kernels over strided, broadcast operands of any dtype: their
// parameters and bindings, the walk from an output element to each operand's storage offset, and
// the loading, storing and converting of elements of every dtype. The kernels come after it, in
// elementwise_math.wgsl (float math in T, which a prelude, elementwise_f32.wgsl or
// elementwise_f64.wgsl, defines), elementwise_int.wgsl and elementwise_index.wgsl, with the
// int64 helpers of int64.wgsl. Each op is its own pipeline through the OP override constant, so
// the switches fold away. Buffers are raw 32-bit words: every element is loaded as the bits of
// its dtype and converted to the op's compute class (T, or int64 as a (lo, hi) pair of u32), and
// stored back into the output's dtype. Outputs are atomic words so that 1- and 2-byte elements
// sharing a word can be written by different invocations.

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

// A bit test: compilers may assume `x != x` is false.
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
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
