// The float32 element of optim.wgsl (prepended to it).

alias T = f32;

// A bit test: compilers may assume `x != x` is false.
fn t_is_nan(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}
