// The int64 element of reduce.wgsl (prepended to it, with int64.wgsl): (lo, hi) word pairs,
// wrapping sums and products as the CPU's.

alias T = vec2<u32>;
const W: u32 = 2u;

fn t_of(w: vec2<u32>) -> vec2<u32> {
    return w;
}

fn t_words(v: vec2<u32>) -> vec2<u32> {
    return v;
}

fn t_is_nan(v: vec2<u32>) -> bool {
    return false;
}

fn t_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
    return i64_lt(a, b);
}

fn t_eq(a: vec2<u32>, b: vec2<u32>) -> bool {
    return all(a == b);
}

fn identity() -> vec2<u32> {
    switch OP {
        case 0u: { return vec2<u32>(0u, 0u); }
        case 1u: { return vec2<u32>(1u, 0u); }
        case 2u: { return vec2<u32>(0u, 0x80000000u); }
        default: { return vec2<u32>(0xffffffffu, 0x7fffffffu); }
    }
}

fn combine(acc: vec2<u32>, v: vec2<u32>) -> vec2<u32> {
    switch OP {
        case 0u: { return i64_add(acc, v); }
        case 1u: { return i64_mul(acc, v); }
        case 2u: { return select(v, acc, i64_lt(v, acc)); }
        default: { return select(v, acc, i64_lt(acc, v)); }
    }
}
