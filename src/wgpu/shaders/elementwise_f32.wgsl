// The float32 element of the elementwise kernels (prepended to elementwise.wgsl and the kernel
// files after it): the type T that elementwise_math.wgsl computes in, its conversions from and to
// every dtype's bits, its op arguments, and the math functions it calls, with IEEE results where
// SPIR-V leaves the builtins undefined. elementwise_f64.wgsl defines the same names for float64.

alias T = f32;

// From here on 1 + x * x rounds to x * x (2^12 squared is 2^24): asinh and acosh take log(2x).
const T_FAR: f32 = 4096.0;

fn to_t(dt: u32, v: vec2<u32>) -> f32 {
    return to_f32(dt, v);
}

fn from_t(dt: u32, x: f32) -> vec2<u32> {
    return from_f32(dt, x);
}

// The op arguments (Params' alpha and beta).
fn t_alpha() -> f32 {
    return p.alpha;
}

fn t_beta() -> f32 {
    return p.beta;
}

fn t_is_nan(x: f32) -> bool {
    return is_nan(x);
}

fn nan() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

fn t_nan() -> f32 {
    return nan();
}

fn t_inf() -> f32 {
    return inf();
}

// Whether the sign bit is set (-0.0 included).
fn t_sign_bit(x: f32) -> bool {
    return (bitcast<u32>(x) >> 31u) == 1u;
}

fn inf() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

// ----- math -----------------------------------------------------------------------------------------

fn t_exp(x: f32) -> f32 {
    return exp(x);
}

fn t_exp2(x: f32) -> f32 {
    return exp2(x);
}

fn t_log(x: f32) -> f32 {
    if x < 0.0 { return nan(); }
    if x == 0.0 { return -inf(); }
    if is_inf(x) { return x; }
    return log(x);
}

fn t_log2(x: f32) -> f32 {
    if x < 0.0 { return nan(); }
    if x == 0.0 { return -inf(); }
    if is_inf(x) { return x; }
    return log2(x);
}

fn t_log10(x: f32) -> f32 {
    return t_log2(x) * 0.30102999566398120;
}

fn t_sqrt(x: f32) -> f32 {
    if x < 0.0 { return nan(); }
    return sqrt(x);
}

// log(1 + x) and exp(x) - 1 keep the digits of small x without calling log near 1: WGSL bounds
// log's error there only absolutely (2^-21), and NVIDIA's driver uses that freedom (acosh of
// 1 + 2^-23 came out 1e-4 off on an H100 through the `log(1 + x) * x / (1 + x - 1)` trick). Near 0
// both are series whose next term is below float32's precision: log1p below a quarter as
// 2 atanh(s), s = x / (2 + x), to s^11 (|s| < 0.143); expm1 below a half as its Taylor series to
// x^8 (past it exp(x) - 1 loses at most 2 bits).
const T_SMALL_LOG: f32 = 0.25;
const T_SMALL_EXP: f32 = 0.5;

fn t_log1p(x: f32) -> f32 {
    if abs(x) < T_SMALL_LOG {
        let s = x / (2.0 + x);
        let s2 = s * s;
        return 2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 * (0.2 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0))))));
    }
    let u = 1.0 + x;
    if u <= 0.0 { return t_log(u); }
    return log(u);
}

fn t_expm1(x: f32) -> f32 {
    if abs(x) < T_SMALL_EXP {
        return x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (1.0 / 720.0
            + x * (1.0 / 5040.0 + x * (1.0 / 40320.0))))))));
    }
    return exp(x) - 1.0;
}

fn t_sin(x: f32) -> f32 {
    return sin(x);
}

fn t_cos(x: f32) -> f32 {
    return cos(x);
}

fn t_tan(x: f32) -> f32 {
    return tan(x);
}

fn t_atan(x: f32) -> f32 {
    return atan(x);
}

fn t_atan2(y: f32, x: f32) -> f32 {
    return atan2(y, x);
}

fn t_sinh(x: f32) -> f32 {
    return sinh(x);
}

fn t_cosh(x: f32) -> f32 {
    return cosh(x);
}

// tanh that stays finite where exp overflows (tanh(15) is 1 in float32).
fn t_tanh(x: f32) -> f32 {
    return tanh(clamp(x, -15.0, 15.0));
}

// erf: its Taylor series near zero (where 1 - tail would cancel), Abramowitz and Stegun 7.1.26
// (absolute error below 1.5e-7) elsewhere.
fn t_erf(x: f32) -> f32 {
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

fn t_sigmoid(x: f32) -> f32 {
    return 1.0 / (1.0 + exp(-x));
}

// x to an integer power by squaring (exact signs, better rounding than exp2 * log2).
fn powi(x: f32, n: i32) -> f32 {
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
fn t_pow(x: f32, y: f32) -> f32 {
    if y == 0.0 || x == 1.0 { return 1.0; }
    if is_nan(x) || is_nan(y) { return nan(); }
    if y == floor(y) && abs(y) <= 64.0 { return powi(x, i32(y)); }
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
