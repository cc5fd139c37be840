//! Float32 exp, exp2, expm1, sigmoid and silu on float32 lanes (issue 23): `vecmath` computes float32
//! in float64 lanes (8 per AVX-512 vector, vector-port bound); these keep 16, carrying the few
//! bits float32 arithmetic would lose in a second word, so that each stays within PyTorch 2.15's
//! own float32 error (tests/fixtures/vecmath_f32grid.json: exp 0.570 ulp, exp2 0.828) and
//! sigmoid/silu stay accurate where PyTorch's are not (its sigmoid returns 0 for the subnormal
//! results below -88.7: 2e6 ulp): exp(-|x|) never overflows, the quotient is corrected for the
//! rounding of 1 + e, and results are scaled by 2^k last.
//!
//! Like `vecmath`, every function is branch-free (each `if` picks between computed values, which
//! LLVM turns into selects), so the unary kernels' loops vectorise inside pulp's dispatch.
//! The polynomial is a least-squares fit made for this module (numpy, Chebyshev nodes, float64)
//! of (exp(r) - 1 - r - r^2/2) / r^3 on |r| <= ln2/2; its error is 5e-11 of exp(r).

/// 1.5 * 2^23: adding it rounds a float32 below 2^22 to an integer held in the low mantissa bits.
const SHIFTER: f32 = 12582912.0;
const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2: f32 = std::f32::consts::LN_2;
/// ln 2 - LN2: exp2's reduced argument in two words.
const LN2_TAIL: f32 = -1.904_654_2e-9;
/// ln 2 in two words: the first has 16 significant bits, so n * LN2_HI is exact for |n| < 2^8.
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
/// exp(r) = 1 + r + r^2/2 + r^3 P(r).
pub(crate) const EXP_P: [f32; 5] = [0.166_666_67, 0.041_666_26, 0.008_333_281, 0.001_394_644_6, 0.000_199_096_47];

/// `c[0] + c[1] x + ...` by Horner's rule with fused multiply-adds.
#[inline(always)]
pub(crate) fn poly(x: f32, c: &[f32]) -> f32 {
    let mut p = c[c.len() - 1];
    for &k in c[..c.len() - 1].iter().rev() {
        p = p.mul_add(x, k);
    }
    p
}

/// 2^k for an integer `k` in [-126, 127] (the bits of the float; others give garbage, no panic).
#[inline(always)]
pub(crate) fn pow2(k: i32) -> f32 {
    f32::from_bits((k.wrapping_add(127) as u32) << 23)
}

/// `v 2^k` for k in [-252, 254] (two factors: neither overflows nor underflows), rounded once
/// where the result is normal.
#[inline(always)]
fn scale2(v: f32, k: i32) -> f32 {
    let h = k >> 1;
    v * pow2(h) * pow2(k - h)
}

/// exp(r + rl) = hi + tail for |r| <= ln2/2 (a reduced argument): hi = 1 + r rounded, tail
/// the rest (r's rounding, r^2/2 with r^2's own error, the series), so that hi + tail rounds
/// once at 1's scale. `rl` is the reduced argument's low word.
#[inline(always)]
fn exp_core(r: f32, rl: f32) -> (f32, f32) {
    let hi = 1.0 + r;
    let lo = (1.0 - hi) + r; // exact
    let r2 = r * r;
    let r2l = r.mul_add(r, -r2);
    // exp(r) rl ~ hi rl: rl is below 2^-24.
    let small = (r2 * r).mul_add(poly(r, &EXP_P), 0.5f32.mul_add(r2l, rl.mul_add(hi, lo)));
    (hi, 0.5f32.mul_add(r2, small))
}

/// x = n ln2 + r + rl (|r| <= ln2/2), as (r, rl, n as an integer), for a clamped `x`.
#[inline(always)]
pub(crate) fn reduce(xc: f32) -> (f32, f32, i32) {
    let t = xc.mul_add(LOG2E, SHIFTER);
    let n = t - SHIFTER;
    let r1 = (-n).mul_add(LN2_HI, xc); // exact: n LN2_HI has at most 24 bits and lies near x
    let r = (-n).mul_add(LN2_LO, r1);
    let rl = (-n).mul_add(LN2_LO, r1 - r);
    (r, rl, (t.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32))
}

/// `(hi + tail) 2^i` rounded once, subnormal results included (i in [-152, 129], hi + tail in
/// [0.7, 1.42]). A subnormal result would otherwise round twice (hi + tail, then the scaling):
/// there, in units of 2^-149, m = hi 2^(i + 149) is exact, its integer part exact, and the rest
/// plus the scaled tail rounds to an integer once. Other lanes take i = -120 there, which keeps
/// them clear of subnormal results (microcode-slow on x86): a min, not a select on `sub`, which
/// LLVM would fold away as the value is only kept where `sub` holds.
#[inline(always)]
fn scale_once(hi: f32, tail: f32, i: i32) -> f32 {
    let normal = scale2(hi + tail, i);
    let sub = i < -125;
    let is = i.min(-120);
    let sc = pow2(is + 149 - 23) * 8388608.0; // 2^(is + 149), in [2^-3, 2^29]
    let m = hi * sc;
    let fm = m.round_ties_even();
    let rest = tail.mul_add(sc, m - fm);
    let low = (fm + rest.round_ties_even()) * f32::from_bits(1);
    if sub {
        low
    } else {
        normal
    }
}

/// exp(x) = (hi + tail) 2^i, for `exp` and `exp_normal`.
#[inline(always)]
fn exp_parts(x: f32) -> (f32, f32, i32) {
    // Comparisons rather than min/max: a NaN fails both and flows into the result.
    let xc = if x < -104.0 { -104.0 } else { x };
    let xc = if xc > 89.0 { 89.0 } else { xc };
    let (r, rl, i) = reduce(xc);
    let (hi, tail) = exp_core(r, rl);
    (hi, tail, i)
}

/// `exp(x)`, within 0.57 ulp (PyTorch 2.15's float32 exp: 0.570); overflow to inf, underflow
/// through the subnormals (rounded once) to 0; NaN stays NaN.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let (hi, tail, i) = exp_parts(x);
    scale_once(hi, tail, i)
}

/// From here up exp's results are normal (e^-87.33 is the smallest normal float32): inputs that
/// all pass `x >= EXP_NORMAL_FLOOR` may take `exp_normal`.
pub const EXP_NORMAL_FLOOR: f32 = -87.0;

/// `exp(x)` for `x >= EXP_NORMAL_FLOOR` (and +inf), bit for bit `exp`'s: without `scale_once`'s
/// subnormal path, a third of exp's work. Below the floor its results are wrong (not a panic).
#[inline(always)]
pub fn exp_normal(x: f32) -> f32 {
    let (hi, tail, i) = exp_parts(x);
    scale2(hi + tail, i)
}

/// 2^x = (hi + tail) 2^n: x = n + f exactly, 2^f = exp(f ln2) with f ln2 in two words.
#[inline(always)]
fn exp2_parts(x: f32) -> (f32, f32, i32) {
    let xc = if x < -152.0 { -152.0 } else { x };
    let xc = if xc > 129.0 { 129.0 } else { xc };
    let t = xc + SHIFTER;
    let n = t - SHIFTER;
    let f = xc - n; // exact, in [-1/2, 1/2]
    let r = f * LN2;
    let rl = f.mul_add(LN2, -r) + f * LN2_TAIL;
    let (hi, tail) = exp_core(r, rl);
    (hi, tail, (t.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32))
}

/// `2^x`, within 0.83 ulp (PyTorch 2.15's float32 exp2: 0.828), subnormal results rounded once.
#[inline(always)]
pub fn exp2(x: f32) -> f32 {
    let (hi, tail, i) = exp2_parts(x);
    scale_once(hi, tail, i)
}

/// As `EXP_NORMAL_FLOOR`, for exp2.
pub const EXP2_NORMAL_FLOOR: f32 = -125.5;

/// `2^x` for `x >= EXP2_NORMAL_FLOOR`, bit for bit `exp2`'s (as `exp_normal`).
#[inline(always)]
pub fn exp2_normal(x: f32) -> f32 {
    let (hi, tail, i) = exp2_parts(x);
    scale2(hi + tail, i)
}

/// `exp(x) - 1` = hi 2^i - 1 + tail 2^i: hi 2^i - 1 in two words (TwoSum), so the one
/// rounding that matters is the last addition; exp's own scaling where
/// 2^i would overflow (x > 87.3). Within 0.7 ulp (PyTorch 2.15's float32 expm1: 0.999).
#[inline(always)]
pub fn expm1(x: f32) -> f32 {
    // Below -30, e^x < 2^-43: the result is -1 to the last bit.
    let xc = if x < -30.0 { -30.0 } else { x };
    let xc = if xc > 89.0 { 89.0 } else { xc };
    let (r, rl, i) = reduce(xc);
    let (hi, tail) = exp_core(r, rl);
    let s = pow2(i.min(126));
    let hs = hi * s; // exact
    let d = hs - 1.0;
    let b = d - hs;
    let dl = (hs - (d - b)) + (-1.0 - b); // TwoSum: hs - 1 = d + dl exactly
    let near = d + tail.mul_add(s, dl);
    // Where n = 0 the result may be far below hi - 1 and the tail's rounding would show:
    // r + (r^2/2 + r^3 P) instead, rounded once (r2 and the polynomial are exp_core's, shared).
    let r2 = r * r;
    let small = (r2 * r).mul_add(poly(r, &EXP_P), 0.5f32.mul_add(r.mul_add(r, -r2), rl));
    let v0 = r + 0.5f32.mul_add(r2, small);
    let v = if i == 0 { v0 } else { near };
    let v = if i > 126 { scale2(hi + tail, i) } else { v };
    // -0.0 stays -0.0 (the sum above gives +0.0).
    if x == 0.0 {
        x
    } else {
        v
    }
}

/// sigmoid(x) = (q + c) 2^k, q + c in [0.35, 1.42] (c a correction below q's last bit).
/// With e = exp(-|x|) = (p + pl) 2^i (never overflows): 1 / (1 + e) for x >= 0, e / (1 + e)
/// below, the numerator and d = 1 + e in two words and the quotient corrected by the remainder
/// of both, so the one rounding that matters is the caller's. exp is clamped at -118, past which
/// silu (x e^x) is below half the smallest subnormal.
#[inline(always)]
fn sigmoid_parts(x: f32) -> (f32, f32, i32) {
    let a = -x.abs();
    let ac = if a < -118.0 { -118.0 } else { a };
    let (r, rl, i) = reduce(ac);
    let (h, t) = exp_core(r, rl);
    // p + pl = h + t exactly (Fast2Sum: |h| >= |t|).
    let p = h + t;
    let pl = (h - p) + t;
    // Below 2^-60, 1 + e is 1 to the last bit: the clamped scale keeps e normal.
    let s = pow2(if i < -60 { -60 } else { i });
    let e = p * s;
    let d = 1.0 + e;
    let dl = ((1.0 - d) + e) + pl * s;
    let neg = x < 0.0;
    let num = if neg { p } else { 1.0 };
    let num_l = if neg { pl } else { 0.0 };
    let inv = 1.0 / d;
    let q = num * inv;
    // num + num_l - q (d + dl): the first part exact, the second rounded far below q's ulp.
    let rem = (-q).mul_add(d, num) + (-q).mul_add(dl, num_l);
    (q, rem * inv, if neg { i } else { 0 })
}

/// `1 / (1 + exp(-x))`, within 0.57 ulp for normal results and 0.75 for subnormal ones.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let (q, c, k) = sigmoid_parts(x);
    scale2(q + c, k)
}

/// `x sigmoid(x)`: x (q + c) rounded once before the scaling. -inf gives NaN (-inf * 0), as
/// PyTorch's x / (1 + exp(-x)).
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    let (q, c, k) = sigmoid_parts(x);
    let v = scale2(x.mul_add(q, x * c), k);
    // From 32 on, sigmoid(x) > 1 - 2^-46 and silu is x (infinity included: x c would be NaN).
    let v = if x > 32.0 { x } else { v };
    if x < -118.0 {
        x * 0.0
    } else {
        v
    }
}
