// The float64 element of the float kernels (prepended to softmax.wgsl, norm.wgsl, pooling.wgsl,
// loss.wgsl and rnn_cell.wgsl, which workgroup_sum.wgsl and f64.wgsl follow; the device needs
// shader-f64 and shader-int64): the type T and the functions they compute with. SPIR-V has no
// float64 exp or log: f64.wgsl's.

alias T = f64;

fn t_is_nan(v: f64) -> bool {
    return is_nan64(v);
}

fn t_neg_inf() -> f64 {
    return -inf64();
}

fn t_nan() -> f64 {
    return nan64();
}

fn t_exp(v: f64) -> f64 {
    return exp64(v);
}

fn t_log(v: f64) -> f64 {
    return log64(v);
}

// A scalar argument from its (lo, hi) words.
fn t_of_words(w: vec2<u32>) -> f64 {
    return f64_of(w);
}

fn t_sigmoid(v: f64) -> f64 {
    return sigmoid64(v);
}

fn t_tanh(v: f64) -> f64 {
    return tanh64(v);
}
