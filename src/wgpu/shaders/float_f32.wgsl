// The float32 element of the float kernels (prepended to softmax.wgsl, norm.wgsl, pooling.wgsl,
// loss.wgsl and rnn_cell.wgsl, which workgroup_sum.wgsl follows): the type T and the functions
// they compute with.

alias T = f32;

// A bit test: compilers may assume `x != x` is false.
fn t_is_nan(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn t_neg_inf() -> f32 {
    return bitcast<f32>(0xff800000u);
}

fn t_nan() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

fn t_exp(v: f32) -> f32 {
    return exp(v);
}

fn t_log(v: f32) -> f32 {
    return log(v);
}

// A scalar argument from its words (a float32 uses the first).
fn t_of_words(w: vec2<u32>) -> f32 {
    return bitcast<f32>(w.x);
}

fn t_sigmoid(v: f32) -> f32 {
    return 1.0 / (1.0 + exp(-v));
}

// As the elementwise kernels' tanh: float32 tanh is +-1 beyond 15, and the clamp keeps
// implementations that build it from exp(2v) off inf / inf.
fn t_tanh(v: f32) -> f32 {
    return tanh(clamp(v, -15.0, 15.0));
}
