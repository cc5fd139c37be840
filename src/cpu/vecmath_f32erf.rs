//! Float32 erf on float32 lanes (issue 23): 16 per AVX-512 vector where `vecmath`'s float64
//! form takes 8, within 0.74 ulp everywhere (PyTorch 2.15's own float32 erf: 0.998 on
//! tests/fixtures/vecmath_f32grid.json's grid). Branch-free: the three pieces below are all
//! computed and one selected per lane, so the unary kernel's loop vectorises; no table, no
//! gather, no second word but where one rounding would show.
//!
//! - |x| < 0.75: erf(x) = x + x G, G = (2/sqrt(pi) - 1) + z Q(z), z = x^2, the sum rounded once
//!   by a fused multiply-add (G is at most 0.13, so its own rounding is far below the result's;
//!   written x (2/sqrt(pi) + ...) the leading coefficient's rounding alone would cost 0.3 ulp).
//! - [0.75, 1.75): E + s R(s) with s = x - C, E = erf(C) a float32 to 1e-4 ulp: again one
//!   rounding of the sum; R's own rounding is scaled down by |s| <= 1/2.
//! - [1.75, 3.95]: 1 - e^(-x^2) P(x), with e^(-x^2) = 2^n (1 + expm1(r)) from the exact square's
//!   two words; erfc is below 1/40 of erf here, so its errors shrink by as much.
//!
//! Coefficients: tools/fit_erf_f32.py (numpy, mpmath).
#![allow(clippy::excessive_precision, clippy::unreadable_literal)]

use crate::cpu::vecmath_f32::{poly, pow2, reduce, EXP_P};

/// 2/sqrt(pi) - 1.
const C0M1: f32 = 0.12837916612625122;
const Q: [f32; 5] = [-0.3761262595653534, 0.11283453553915024, -0.026837853714823723, 0.005120184738188982, -0.0006787646561861038];
const MID_C: f32 = 1.249633550643921;
const MID_E: f32 = 0.9228134155273438;
const MID_R: [f32; 10] = [
    0.23673787713050842,
    -0.29583558440208435,
    0.1675446331501007,
    -0.006072969175875187,
    -0.047228336334228516,
    0.021291693672537804,
    0.003667722688987851,
    -0.005693449638783932,
    0.0007117894710972905,
    0.0007595817442052066,
];
const TAIL_M: f32 = 2.85;
const TAIL_P: [f32; 8] = [
    0.18752999603748322,
    -0.05945766717195511,
    0.01808256283402443,
    -0.005267632193863392,
    0.0015188800171017647,
    -0.00044952932512387633,
    2.120763747370802e-05,
    -8.331118442583829e-05,
];
/// Past it erf rounds to 1 (erfc(3.95) < 2^-25).
const TOP: f32 = 3.95;

/// The error function, odd, within 0.74 ulp; ±1 at ±inf, NaN at NaN, -0.0 at -0.0, and the
/// subnormals rounded once (x + x G is one fused operation).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let z = a * a;
    let small = a.mul_add(z.mul_add(poly(z, &Q), C0M1), a);
    let s = a - MID_C;
    let mid = s.mul_add(poly(s, &MID_R), MID_E);
    // Comparisons rather than min: a NaN fails it and flows into the result.
    let ac = if a > TOP { TOP } else { a };
    let sq = ac * ac;
    let sql = ac.mul_add(ac, -sq);
    // -sq - sql = n ln2 + r (r's own low word is below 2^-24 r, far below what erfc needs here).
    let (r, _, n) = reduce(-sq);
    let r = r - sql;
    let em1 = (r * r).mul_add(r.mul_add(poly(r, &EXP_P), 0.5), r);
    let p = poly(ac - TAIL_M, &TAIL_P);
    // erfc = 2^n p (1 + em1), n in [-23, -4]: 1 - erfc rounded once.
    let tail = (-p.mul_add(em1, p)).mul_add(pow2(n), 1.0);
    let v = if a < 0.75 {
        small
    } else if a < 1.75 {
        mid
    } else {
        tail
    };
    v.copysign(x)
}
