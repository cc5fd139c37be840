//! The float32 logarithms (log, log2, log10, log1p) on float32 lanes: 16 per AVX-512 vector
//! where `vecmath`'s float64 forms take 8. Branch-free (selects only) and free of tables, so
//! LLVM vectorises them inside pulp's dispatch like the rest of `vecmath`.
//!
//! Plain float32 arithmetic would leave about 0.1 ulp of error before the final rounding; these
//! keep it under 0.004 ulp (every 97th float32: at most 0.5020 ulp after rounding, 0.5032 for
//! log1p; the float64 forms' bound is 0.51) by carrying the big terms in two words. x = m 2^k with m in [sqrt(1/2), sqrt(2)) and m near c, one of
//! 2^(-1/3), 1, 2^(1/3): log x = k ln2 + log c + 2 atanh(s), s = (m - c) / (m + c), |s| <= 0.058.
//! m - c is exact, s is taken as s_hi + s_lo (the division's residual recovered exactly with
//! fused multiply-adds), k ln2 and log c are split so that their leading words add exactly, and
//! those leading words meet 2 s_hi in one exact two-sum. What is left in plain float32 is the
//! tail 2 atanh(s) - 2s (at most 0.12% of the result) and the low words.

/// sqrt(1/2) rounded to float32, as bits: the mantissa's range starts here.
const SQRT_HALF_BITS: i32 = 0x3F35_04F3;
/// The mantissa's three centres c (2^(-1/3), 1, 2^(1/3) rounded to float32) and the bounds
/// between them (2^(-1/6), 2^(1/6)).
const C_LO: f32 = 0.793_700_5;
const C_HI: f32 = 1.259_921_1;
const M_LO: f32 = 0.890_898_7;
const M_HI: f32 = 1.122_462;
/// The leading words below have at most 16 fraction bits, so k times the first (|k| < 256) plus
/// the second is exact.
/// ln 2 and ln c in two words.
const LN2: (f32, f32) = (0.693_145_75, 1.428_606_8e-6);
const LN_C: [(f32, f32); 2] = [(-0.231_048_58, -4.884_993_e-7), (0.231_048_58, 4.952_659e-7)];
/// log2 c, and log2 e (its first word rounded, for the product's exact two-product).
const LOG2_C: [(f32, f32); 2] = [(-0.333_328_25, -5.104_004e-6), (0.333_328_25, 5.113_766e-6)];
const LOG2E: (f32, f32) = (std::f32::consts::LOG2_E, 1.925_963e-8);
/// log10 2, log10 c, log10 e.
const LOG10_2: (f32, f32) = (0.301_025_4, 4.605_039e-6);
const LOG10_C: [(f32, f32); 2] = [(-0.100_341_8, -1.540_353_5e-6), (0.100_341_8, 1.543_292_2e-6)];
const LOG10E: (f32, f32) = (std::f32::consts::LOG10_E, -1.010_305e-8);
/// (2 atanh(s) - 2 s) / s^3 = 2/3 + 2/5 z + 2/7 z^2 (+ 2/9 z^3, below 2^-34 of the result) in
/// z = s^2 <= 0.0034.
const W: [f32; 3] = [0.666_666_7, 0.4, 0.285_714_3];

/// `(k, m)` with x = m 2^k and m in [sqrt(1/2), sqrt(2)) for positive finite `x` (subnormals
/// scaled up first); anything else gives meaningless finite values, which the callers replace.
#[inline(always)]
fn frexp_sqrt2(x: f32) -> (f32, f32) {
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 16_777_216.0 } else { x }; // 2^24
    let ix = (xs.to_bits() as i32).wrapping_sub(SQRT_HALF_BITS);
    let k = (ix >> 23) - if sub { 24 } else { 0 };
    let m = f32::from_bits(((ix & 0x007F_FFFF) + SQRT_HALF_BITS) as u32);
    (k as f32, m)
}

/// Which centre m is near: below, above or (neither) at 1.
#[derive(Clone, Copy)]
struct Centre {
    lo: bool,
    hi: bool,
}

impl Centre {
    #[inline(always)]
    fn of(m: f32) -> Self {
        Centre { lo: m < M_LO, hi: m >= M_HI }
    }
    /// The centre's value of a constant given at 2^(-1/3) and 2^(1/3) (0 at 1).
    #[inline(always)]
    fn pick(self, v: [(f32, f32); 2]) -> (f32, f32) {
        if self.lo {
            v[0]
        } else if self.hi {
            v[1]
        } else {
            (0.0, 0.0)
        }
    }
    #[inline(always)]
    fn c(self) -> f32 {
        if self.lo {
            C_LO
        } else if self.hi {
            C_HI
        } else {
            1.0
        }
    }
}

/// 2 atanh(f / (2c + f)) = log((c + f) / c) as (t, rest): t = 2 s_hi, |rest| <= 0.2% of |t|.
/// `f` is exact and |f| < c.
#[inline(always)]
fn atanh_part(f: f32, c: f32) -> (f32, f32) {
    // 2c + f in two words (Fast2Sum: |2c| > |f|), its reciprocal, s_hi = f / u to about an ulp,
    // and the residual f - s_hi (u + u_lo), exact to far below s_hi's ulp, giving s_lo.
    let c2 = 2.0 * c;
    let u = c2 + f;
    let u_lo = (c2 - u) + f;
    let r = 1.0 / u;
    let s = f * r;
    let e = (-s).mul_add(u_lo, (-s).mul_add(u, f));
    let s_lo = e * r;
    let z = s * s;
    let w = z * W[2].mul_add(z, W[1]).mul_add(z, W[0]);
    // The tail's derivative, 2 s_lo (1 + z), carries s_lo into it.
    let ds = 2.0 * s_lo;
    (2.0 * s, s.mul_add(w, ds.mul_add(z, ds)))
}

/// The special values of the log family: -inf at 0, NaN below 0 and at NaN, inf at inf;
/// `value` elsewhere.
#[inline(always)]
fn log_special(x: f32, value: f32) -> f32 {
    // Positive, finite and not zero: the bits minus one below the largest float's.
    let ordinary = x.to_bits().wrapping_sub(1) < f32::MAX.to_bits();
    if ordinary {
        value
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x > 0.0 {
        x
    } else {
        f32::NAN
    }
}

/// b + t + rest, b and t exactly in two words (Fast2Sum: |b| > |t| or b = 0), rounded once.
#[inline(always)]
fn sum3(b: f32, t: f32, rest: f32) -> f32 {
    let hi = b + t;
    let lo = (b - hi) + t;
    hi + (lo + rest)
}

/// x's reduction: k, m's centre, and log(m / c) as (t, rest) from `atanh_part`.
#[inline(always)]
fn reduce(x: f32) -> (f32, Centre, f32, f32) {
    let (k, m) = frexp_sqrt2(x);
    let at = Centre::of(m);
    let (t, rest) = atanh_part(m - at.c(), at.c());
    (k, at, t, rest)
}

/// Natural logarithm of a float32: k ln2 + ln c + (t + rest).
#[inline(always)]
pub fn log_f32(x: f32) -> f32 {
    let (k, at, t, rest) = reduce(x);
    let (lc, lc_lo) = at.pick(LN_C);
    log_special(x, sum3(k.mul_add(LN2.0, lc), t, k.mul_add(LN2.1, lc_lo) + rest))
}

/// (t + rest) (b.0 + b.1) as p + pe, p = t b.0 rounded.
#[inline(always)]
fn scale(t: f32, rest: f32, b: (f32, f32)) -> (f32, f32) {
    let p = t * b.0;
    let pe = t.mul_add(b.0, -p);
    (p, t.mul_add(b.1, rest.mul_add(b.0, pe)))
}

/// Base-2 logarithm of a float32: k + log2 c + (t + rest) log2(e).
#[inline(always)]
pub fn log2_f32(x: f32) -> f32 {
    let (k, at, t, rest) = reduce(x);
    let (p, pe) = scale(t, rest, LOG2E);
    let (lc, lc_lo) = at.pick(LOG2_C);
    log_special(x, sum3(k + lc, p, pe + lc_lo))
}

/// Base-10 logarithm of a float32: k log10(2) + log10 c + (t + rest) log10(e).
#[inline(always)]
pub fn log10_f32(x: f32) -> f32 {
    let (k, at, t, rest) = reduce(x);
    let (p, pe) = scale(t, rest, LOG10E);
    let (lc, lc_lo) = at.pick(LOG10_C);
    log_special(x, sum3(k.mul_add(LOG10_2.0, lc), p, k.mul_add(LOG10_2.1, lc_lo) + pe))
}

/// log(1 + x) of a float32: the logarithm of u = 1 + x (rounded) plus the rounding's first-order
/// correction d / u, d = x - (u - 1) exactly. Where u = m (k = 0, m near 1), m - 1 + d is x
/// itself, exact: x takes its place and no correction is needed.
#[inline(always)]
pub fn log1p_f32(x: f32) -> f32 {
    let u = 1.0 + x;
    // The rounding error of 1 + x, exactly (Fast2Sum with the larger operand first).
    let d = if x.abs() > 1.0 { 1.0 - (u - x) } else { x - (u - 1.0) };
    let (k, m) = frexp_sqrt2(u);
    let at = Centre::of(m);
    let near = k == 0.0 && !at.lo && !at.hi;
    let f = if near { x } else { m - at.c() };
    let (t, rest) = atanh_part(f, at.c());
    let dq = if near { 0.0 } else { d / u };
    let (lc, lc_lo) = at.pick(LN_C);
    let v = sum3(k.mul_add(LN2.0, lc), t, k.mul_add(LN2.1, lc_lo) + (rest + dq));
    // log1p(x) = x - x^2/2 + ...: x itself, to 2^-40 relative, below 2^-40 (where s = x / 2
    // could lose x's last bits to underflow); -0.0 stays -0.0.
    let v = if x.abs() < 9.094_947e-13 { x } else { v };
    if x > -1.0 && x < f32::INFINITY {
        v
    } else if x == -1.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        x
    } else {
        f32::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The special values, bit for bit (the accuracy sweeps of every binade are `vecmath`'s,
    /// through `VecMath for f32`).
    #[test]
    fn special_values() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        for f in [log_f32, log2_f32, log10_f32] {
            assert_eq!((f(0.0), f(-0.0), f(inf), f(1.0)), (-inf, -inf, inf, 0.0));
            assert!(f(-1.0).is_nan() && f(-inf).is_nan() && f(nan).is_nan() && f(-1e-45).is_nan());
            assert!(f(1.0).is_sign_positive());
        }
        // Subnormal and extreme arguments, exact to the last bit here.
        assert_eq!(log2_f32(1e-45), -149.0);
        assert_eq!(log2_f32(f32::MIN_POSITIVE), -126.0);
        assert_eq!(log2_f32(2f32.powi(127)), 127.0);
        assert_eq!(log_f32(1e-45), (1e-45f32 as f64).ln() as f32);
        assert_eq!(log10_f32(f32::MAX), (f32::MAX as f64).log10() as f32);
        assert_eq!((log1p_f32(-1.0), log1p_f32(inf)), (-inf, inf));
        assert!(log1p_f32(-1.5).is_nan() && log1p_f32(-inf).is_nan() && log1p_f32(nan).is_nan());
        assert!(log1p_f32(-0.0).is_sign_negative() && log1p_f32(-0.0) == 0.0);
        for x in [1e-45f32, -1e-45, 1e-38, 3e-13, -3e-13] {
            assert_eq!(log1p_f32(x), x);
        }
        assert_eq!(log1p_f32(f32::MAX), (f32::MAX as f64).ln_1p() as f32);
    }
}
