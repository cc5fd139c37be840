// The float64 element of reduce.wgsl (prepended to it; the device needs shader-f64 and
// shader-int64).

alias T = f64;
const W: u32 = 2u;

fn t_of(w: vec2<u32>) -> f64 {
    return bitcast<f64>((u64(w.y) << 32u) | u64(w.x));
}

fn t_words(v: f64) -> vec2<u32> {
    let b = bitcast<u64>(v);
    return vec2<u32>(u32(b & 0xfffffffflu), u32(b >> 32u));
}

fn t_is_nan(v: f64) -> bool {
    return (bitcast<u64>(v) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}

fn t_lt(a: f64, b: f64) -> bool {
    return a < b;
}

fn t_eq(a: f64, b: f64) -> bool {
    return a == b;
}

fn identity() -> f64 {
    switch OP {
        case 0u: { return 0.0; }
        case 1u: { return 1.0; }
        case 2u: { return t_of(vec2<u32>(0u, 0xfff00000u)); }
        default: { return t_of(vec2<u32>(0u, 0x7ff00000u)); }
    }
}

fn combine(acc: f64, v: f64) -> f64 {
    switch OP {
        case 0u: { return acc + v; }
        case 1u: { return acc * v; }
        case 2u: {
            if t_is_nan(acc) || acc > v { return acc; }
            return v;
        }
        default: {
            if t_is_nan(acc) || acc < v { return acc; }
            return v;
        }
    }
}
