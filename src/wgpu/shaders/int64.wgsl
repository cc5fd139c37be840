// int64 as a (lo, hi) pair of u32 words in two's complement: the integer arithmetic of the
// elementwise and reduction shaders (which include this file), exact on every adapter.

fn i64_of(v: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0));
}

fn i64_neg(x: vec2<u32>) -> vec2<u32> {
    let lo = ~x.x + 1u;
    return vec2<u32>(lo, ~x.y + select(0u, 1u, lo == 0u));
}

fn i64_add(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let lo = x.x + y.x;
    return vec2<u32>(lo, x.y + y.y + select(0u, 1u, lo < x.x));
}

fn i64_sub(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    return i64_add(x, i64_neg(y));
}

fn is_neg(x: vec2<u32>) -> bool {
    return (x.y >> 31u) == 1u;
}

// The full 64-bit product of two u32s, from 16-bit halves.
fn mul_wide(x: u32, y: u32) -> vec2<u32> {
    let x0 = x & 0xffffu;
    let x1 = x >> 16u;
    let y0 = y & 0xffffu;
    let y1 = y >> 16u;
    let p00 = x0 * y0;
    let p01 = x0 * y1;
    let p10 = x1 * y0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), x1 * y1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// The low 64 bits of the product (wrapping, as Rust's and PyTorch's int64 do).
fn i64_mul(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let w = mul_wide(x.x, y.x);
    return vec2<u32>(w.x, w.y + x.x * y.y + x.y * y.x);
}

fn i64_lt(x: vec2<u32>, y: vec2<u32>) -> bool {
    if x.y != y.y { return bitcast<i32>(x.y) < bitcast<i32>(y.y); }
    return x.x < y.x;
}

fn u64_ge(x: vec2<u32>, y: vec2<u32>) -> bool {
    if x.y != y.y { return x.y > y.y; }
    return x.x >= y.x;
}

struct DivMod {
    q: vec2<u32>,
    r: vec2<u32>,
}

// Unsigned long division, one quotient bit per step.
fn u64_divmod(n: vec2<u32>, d: vec2<u32>) -> DivMod {
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 63i; i >= 0; i--) {
        let bit = select((n.x >> u32(i)) & 1u, (n.y >> u32(i - 32)) & 1u, i >= 32);
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if u64_ge(r, d) {
            r = i64_sub(r, d);
            if i >= 32 { q.y |= 1u << u32(i - 32); } else { q.x |= 1u << u32(i); }
        }
    }
    return DivMod(q, r);
}

// Python's floor division and modulo (the remainder takes the divisor's sign). The host rejects
// zero divisors before launching; here they give 0.
fn i64_floor_divmod(x: vec2<u32>, y: vec2<u32>) -> DivMod {
    if y.x == 0u && y.y == 0u { return DivMod(vec2<u32>(0u, 0u), vec2<u32>(0u, 0u)); }
    let nx = is_neg(x);
    let ny = is_neg(y);
    let t = u64_divmod(select(x, i64_neg(x), nx), select(y, i64_neg(y), ny));
    var q = select(t.q, i64_neg(t.q), nx != ny);
    var r = select(t.r, i64_neg(t.r), nx);
    if (r.x != 0u || r.y != 0u) && (nx != ny) {
        q = i64_sub(q, vec2<u32>(1u, 0u));
        r = i64_add(r, y);
    }
    return DivMod(q, r);
}

// x to the power y (y >= 0) by square-and-multiply over all 64 bits of y, wrapping as the CPU's
// integer pow does; negative exponents truncate toward zero (only 1 and -1 keep a magnitude).
fn i64_pow(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let one = vec2<u32>(1u, 0u);
    if is_neg(y) {
        if x.x == 1u && x.y == 0u { return one; }
        if x.x == 0xffffffffu && x.y == 0xffffffffu { return select(x, one, (y.x & 1u) == 0u); }
        return vec2<u32>(0u, 0u);
    }
    var base = x;
    var acc = one;
    for (var i = 0u; i < 64u; i++) {
        let bit = select((y.x >> i) & 1u, (y.y >> (i - 32u)) & 1u, i >= 32u);
        if bit == 1u { acc = i64_mul(acc, base); }
        if i < 32u && (y.x >> i) <= 1u && y.y == 0u { break; }
        base = i64_mul(base, base);
    }
    return acc;
}
