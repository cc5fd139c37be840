// The float32 element of reduce.wgsl (prepended to it).

alias T = f32;
const W: u32 = 1u;

fn t_of(w: vec2<u32>) -> f32 {
    return bitcast<f32>(w.x);
}

fn t_words(v: f32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v), 0u);
}

// A bit test: compilers may assume `x != x` is false.
fn t_is_nan(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn t_lt(a: f32, b: f32) -> bool {
    return a < b;
}

fn t_eq(a: f32, b: f32) -> bool {
    return a == b;
}

fn identity() -> f32 {
    switch OP {
        case 0u: { return 0.0; }
        case 1u: { return 1.0; }
        case 2u: { return bitcast<f32>(0xff800000u); }
        default: { return bitcast<f32>(0x7f800000u); }
    }
}

fn combine(acc: f32, v: f32) -> f32 {
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
