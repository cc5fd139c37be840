//! Float32 lgamma, digamma and trigamma on float64 lanes, branch-free for the vectorised unary
//! loops (`vecmath`'s rules: every `if` picks between values already computed). Float64 keeps
//! its scalar kernels (`special`, the libm crate's lgamma). Each reduces x > 0 to an argument
//! where a series holds and reflects x <= 0 onto 1 - x, computing in float64 so that the one
//! rounding to float32 is what remains: within 0.51 ulp on tests/fixtures/vecgamma.json.

use std::mem::MaybeUninit;

use crate::cpu::elementwise::SliceKernel;
use crate::cpu::simd::{all_pass, map_slice, map_slice_in_place, SPLIT_BLOCK};
use crate::cpu::special::digamma64;
use crate::cpu::vecmath::log;
use crate::cpu::vecmath_core::{poly, SHIFTER};
use crate::cpu::vecmath_special::BERNOULLI;
use crate::dtype::{DType, Element};

/// lgamma(x) / (x - 2) on [2, 3] in t = 2x - 5 (tools/fit_lgamma_f32.py, relative error 1e-17).
#[rustfmt::skip]
const LGAMMA_2_3: [f64; 17] = [0.5693657409458384, 0.13379089969940486, -0.011201460674346141, 0.0013596251892747035, -0.0001934488933512554, 3.0034310267215106e-05, -4.9228007854159545e-06, 8.36720391597027e-07, -1.459116044908227e-07, 2.5929122879379216e-08, -4.674187951426845e-09, 8.523644567881144e-10, -1.5678619885679779e-10, 2.873161281437809e-11, -5.346025309842715e-12, 1.1817628925592215e-12, -2.246152744637142e-13];
/// B2k / (2k (2k - 1)) for k = 1..=7: Stirling's series for lgamma in 1/z^2 (the first omitted
/// term is below 1e-15 from z = 8 on).
const STIRLING: [f64; 7] = [1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0, 1.0 / 1188.0, -691.0 / 360360.0, 1.0 / 156.0];
/// B2k / 2k for k = 1..=7: digamma's asymptotic series in 1/z^2.
const DIGAMMA_SERIES: [f64; 7] = [1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0, 1.0 / 12.0];
/// (-1)^k pi^(2k+1) / (2k+1)! and (-1)^k pi^2k / (2k)!: sin(pi r) / r and cos(pi r) in r^2 for
/// |r| <= 1/2 (Taylor; the first omitted terms are below 2e-17).
#[rustfmt::skip]
const SINPI: [f64; 12] = [PI, -5.16771278004997, 2.5501640398773455, -0.5992645293207921, 0.08214588661112823, -0.0073704309457143504, 0.00046630280576761255, -2.1915353447830217e-05, 7.952054001475513e-07, -2.2948428997269873e-08, 5.392664662608129e-10, -1.0518471716932065e-11];
#[rustfmt::skip]
const COSPI: [f64; 12] = [1.0, -4.934802200544679, 4.0587121264167685, -1.3352627688545895, 0.2353306303588932, -0.02580689139001406, 0.0019295743094039231, -0.0001046381049248457, 4.303069587032947e-06, -1.3878952462213771e-07, 3.604730797462501e-09, -7.700707130601354e-11];
const LN_SQRT_2PI: f64 = 0.9189385332046728;
const PI: f64 = std::f64::consts::PI;
/// Where the asymptotic series take over; below, the recurrences bring the argument there.
const FAR: f64 = 8.0;

/// x - round(x), exact, in [-1/2, 1/2]: sin(pi x) = ±sin(pi r). 0 from 2^51 on, where every
/// float64 (and from 2^23 every float32) is an integer.
#[inline(always)]
fn reduced(x: f64) -> f64 {
    let r = x - ((x + SHIFTER) - SHIFTER);
    if x.abs() < 2251799813685248.0 {
        r
    } else {
        0.0
    }
}

/// The sum of 1/(z + k)^P for k = 0..8 (P = 1 or 2) as one fraction: no division per term.
#[inline(always)]
fn reciprocal_sum<const P: i32>(z: f64) -> f64 {
    let (mut num, mut den) = (0.0f64, 1.0f64);
    for k in 0..8 {
        let a = z + k as f64;
        let a = if P == 2 { a * a } else { a };
        num = num.mul_add(a, den);
        den *= a;
    }
    num / den
}

/// `lgamma` of a float32 value. For z = x (x > 0) or 1 - x (x <= 0): below 8 the recurrence
/// takes z to f in [2, 3), lgamma(z) = (f - 2) P(f) + log(q) with q the recurrence's product
/// (or its inverse below 2); from 8 on, Stirling's series. For x <= 0 the reflection
/// lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), whose logarithm takes q in with it (one
/// logarithm of the product rather than two, and one division). +inf at the poles (x a
/// non-positive integer) and at ±inf, as PyTorch.
#[inline(always)]
pub fn lgamma_f32(x: f64) -> f64 {
    lgamma_f32_pieces::<false, false>(x)
}

/// lgamma of float32 slices, a kernel chosen per block of `SPLIT_BLOCK`: the pieces its values
/// need, of the recurrence below 8 (z = x or 1 - x), Stirling's series from 8 on, and the
/// reflection for x <= 0. Each kernel gives `lgamma_f32`'s bits on its range (the same
/// operations on the pieces selected there), so a value's result never depends on its
/// neighbours.
pub struct LgammaF32;

/// x in (0, 8): the recurrence alone.
#[inline(always)]
fn positive_near(x: f32) -> bool {
    x > 0.0 && x < FAR as f32
}

/// x in (0, inf): no reflection.
#[inline(always)]
fn positive(x: f32) -> bool {
    x > 0.0 && x < f32::INFINITY
}

/// x in (-7, 8), z below 8: no Stirling series.
#[inline(always)]
fn near(x: f32) -> bool {
    x > 1.0 - FAR as f32 && x < FAR as f32
}

/// The kernel for a block: 0 (x in (0, 8)), 1 (x > 0), 2 (x in (-7, 8)) or 3 (any x), the
/// narrowest range holding all of `x`.
fn block_kind(x: &[f32]) -> usize {
    if all_pass(x, &positive_near) {
        0
    } else if all_pass(x, &positive) {
        1
    } else if all_pass(x, &near) {
        2
    } else {
        3
    }
}

impl SliceKernel<f32> for LgammaF32 {
    fn map(&self, x: &[f32], out: &mut [MaybeUninit<f32>]) {
        let k = lgamma_kernels();
        for (x, out) in x.chunks(SPLIT_BLOCK).zip(out.chunks_mut(SPLIT_BLOCK)) {
            match block_kind(x) {
                0 => map_slice(x, out, &k.0),
                1 => map_slice(x, out, &k.1),
                2 => map_slice(x, out, &k.2),
                _ => map_slice(x, out, &k.3),
            }
        }
    }

    fn map_in_place(&self, x: &mut [f32]) {
        let k = lgamma_kernels();
        for x in x.chunks_mut(SPLIT_BLOCK) {
            match block_kind(x) {
                0 => map_slice_in_place(x, &k.0),
                1 => map_slice_in_place(x, &k.1),
                2 => map_slice_in_place(x, &k.2),
                _ => map_slice_in_place(x, &k.3),
            }
        }
    }
}

/// The four kernels of `block_kind`, as closures marked `#[inline(always)]` (an attribute Rust
/// takes on a closure passed as an argument): as plain functions LLVM left them uninlined in
/// pulp's target-feature loop, every `mul_add` a call to a software FMA.
#[inline(always)]
fn lgamma_kernels() -> (impl Kernel, impl Kernel, impl Kernel, impl Kernel) {
    four(
        #[inline(always)]
        |x: f32| lgamma_f32_pieces::<true, true>(x as f64) as f32,
        #[inline(always)]
        |x: f32| lgamma_f32_pieces::<false, true>(x as f64) as f32,
        #[inline(always)]
        |x: f32| lgamma_f32_pieces::<true, false>(x as f64) as f32,
        #[inline(always)]
        |x: f32| lgamma_f32(x as f64) as f32,
    )
}

/// A float32 kernel of one value.
trait Kernel: Fn(f32) -> f32 {}
impl<F: Fn(f32) -> f32> Kernel for F {}

#[inline(always)]
fn four<A, B, C, D>(a: A, b: B, c: C, d: D) -> (A, B, C, D) {
    (a, b, c, d)
}

/// `lgamma_f32`, or with `NEAR` its pieces for z < 8 alone, or with `POSITIVE` those for x > 0
/// alone (no reflection).
#[inline(always)]
fn lgamma_f32_pieces<const NEAR: bool, const POSITIVE: bool>(x: f64) -> f64 {
    let pos = POSITIVE || x > 0.0;
    let z = if pos { x } else { 1.0 - x };
    let near = NEAR || z < FAR;
    let zn = if near { z } else { 1.0 };
    let (core_near, num_near, den_near) = lgamma_near(zn);
    let (core, num, den) = if NEAR {
        (core_near, num_near, den_near)
    } else {
        // Far: (z - 1/2) log z - z + log(2 pi) / 2 + series, and q = 1.
        let zf = if near { FAR } else { z };
        let r = 1.0 / zf;
        let core_far = (zf - 0.5).mul_add(log::<false>(zf), -zf) + r.mul_add(poly(r * r, &STIRLING), LN_SQRT_2PI);
        if near {
            (core_near, num_near, den_near)
        } else {
            (core_far, 1.0, 1.0)
        }
    };
    if POSITIVE {
        return core + log::<false>(num / den);
    }
    let t = reduced(x);
    let s = (t * poly(t * t, &SINPI)).abs();
    // b = q = num/den for x > 0, pi / (s q) for x <= 0.
    let b = if pos { num } else { PI * den } / if pos { den } else { s * num };
    let lb = log::<false>(b);
    let v = if pos { core + lb } else { lb - core };
    if x.abs() == f64::INFINITY {
        f64::INFINITY
    } else {
        v
    }
}

/// lgamma(z) = core + log(num / den) for 0 < z < 8 (`lgamma_f32`'s near pieces): z = f + n - 2
/// with n = floor(z), f in [2, 3), core the fit on [2, 3) and num / den the recurrence's
/// product over its quotient.
#[inline(always)]
fn lgamma_near(zn: f64) -> (f64, f64, f64) {
    let rn = (zn + SHIFTER) - SHIFTER;
    let n = if rn > zn { rn - 1.0 } else { rn };
    let f = zn - n + 2.0;
    let mut num = 1.0;
    for j in 0..5 {
        let t = f + j as f64;
        num *= if (j as f64) < n - 2.0 { t } else { 1.0 };
    }
    let den = if n < 2.0 { zn } else { 1.0 } * if n < 1.0 { zn + 1.0 } else { 1.0 };
    ((f - 2.0) * poly(2.0f64.mul_add(f, -5.0), &LGAMMA_2_3), num, den)
}

/// `digamma` of a float32 value. For z = x (x > 0) or 1 - x (x <= 0): below 8,
/// psi(z) = psi(z + 8) - sum 1/(z + k); from 8 on, log z - 1/(2z) - series; for x <= 0 the
/// reflection psi(x) = psi(1 - x) - pi cot(pi x). As PyTorch: -inf at +0, inf at -0, NaN at the
/// negative integers and -inf.
#[inline(always)]
pub fn digamma_f32(x: f64) -> f64 {
    let pos = x > 0.0;
    let z = if pos { x } else { 1.0 - x };
    let near = z < FAR;
    let zn = if near { z } else { 1.0 };
    let w = if near { z + FAR } else { z };
    let r = 1.0 / w;
    let r2 = r * r;
    let far = log::<false>(w) - r.mul_add(0.5, r2 * poly(r2, &DIGAMMA_SERIES));
    let psi = if near { far - reciprocal_sum::<1>(zn) } else { far };
    let t = reduced(x);
    let cot = PI * poly(t * t, &COSPI) / (t * poly(t * t, &SINPI));
    if pos {
        psi
    } else if t == 0.0 && x != 0.0 {
        f64::NAN
    } else {
        psi - cot
    }
}

/// `trigamma` (`polygamma(1, x)`) of a float32 value. For z = x (x > 0) or 1 - x (x <= 0): below 8,
/// psi1(z) = psi1(z + 8) + sum 1/(z + k)^2; from 8 on, 1/z + 1/(2z^2) + sum B2k / z^(2k+1); for
/// x <= 0 the reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) (no digits cancel: the first
/// term is at least pi^2, the second at most pi^2 / 6). inf at the poles and at -inf (as
/// rstorch's float64 kernel; PyTorch's NaN there).
#[inline(always)]
pub fn trigamma_f32(x: f64) -> f64 {
    let pos = x > 0.0;
    let z = if pos { x } else { 1.0 - x };
    let near = z < FAR;
    let zn = if near { z } else { 1.0 };
    let w = if near { z + FAR } else { z };
    let r = 1.0 / w;
    let r2 = r * r;
    let far = r + r2.mul_add(0.5, r * r2 * poly(r2, &BERNOULLI));
    let psi1 = if near { far + reciprocal_sum::<2>(zn) } else { far };
    let t = reduced(x);
    let s = t * poly(t * t, &SINPI);
    if pos {
        psi1
    } else if x == f64::NEG_INFINITY {
        f64::INFINITY
    } else {
        (PI * PI) / (s * s) - psi1
    }
}

/// lgamma of a float32 or float64 element (the op table's kernel is generic over the element):
/// float64 keeps the libm crate's.
#[inline(always)]
pub fn lgamma_elem<T: Element>(x: T) -> T {
    if T::DTYPE == DType::F32 {
        T::from_f64(lgamma_f32(x.to_f64()))
    } else {
        T::from_f64(libm::lgamma(x.to_f64()))
    }
}

/// digamma of a float32 or float64 element: float64 keeps `digamma64`.
#[inline(always)]
pub fn digamma_elem<T: Element>(x: T) -> T {
    if T::DTYPE == DType::F32 {
        T::from_f64(digamma_f32(x.to_f64()))
    } else {
        T::from_f64(digamma64(x.to_f64()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lgamma_kernel_gives_the_general_bits_on_its_range() {
        // Every 97th float32 of both signs below 64, and the kernels whose range holds it.
        let k = lgamma_kernels();
        let mut bits = 0u32;
        while f32::from_bits(bits) < 64.0 {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let general = lgamma_f32(x as f64) as f32;
                assert_eq!(k.3(x).to_bits(), general.to_bits(), "{x}");
                for (kind, got) in [(positive_near as fn(f32) -> bool, k.0(x)), (positive, k.1(x)), (near, k.2(x))] {
                    if kind(x) {
                        assert_eq!(got.to_bits(), general.to_bits(), "{x}");
                    }
                }
            }
            bits += 97;
        }
    }
}
