// The float64 element of optim.wgsl (prepended to it; the device needs shader-f64 and
// shader-int64).

alias T = f64;

fn t_is_nan(v: f64) -> bool {
    return (bitcast<u64>(v) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}
