//! Float32 sums, products, maxima and minima of contiguous runs in AVX-512 registers, for the reductions
//! along rows (`reduce_ops`). They keep exactly the order of the plain fold
//! (`simd::fold_slice::<f32, f32, 32>`: thirty-two lane accumulators, merged pairwise in a fixed
//! tree, then the tail in sequence), so their results are bitwise the plain loop's.
//!
//! Two things made the plain loop slow. Its NaN-propagating max tested each accumulator for NaN
//! before the compare, a chain of three dependent instructions per step (amax along 1024-wide
//! rows ran at 0.6x PyTorch); here the max is one `vmaxps` and NaN is looked for separately, in
//! the inputs, with one compare per two vectors off the accumulators' chain. And its lane merge
//! ran out of line in scalar code, 31 dependent steps a row; here it is five in-register steps.

use std::arch::x86_64::{__m512, _CMP_ORD_Q};

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::num::Arith;
use crate::cpu::simd::fold_slice;

/// The fold a run reduces by.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RunFold {
    Sum,
    Prod,
    /// NaN-propagating, as `Arith::max_nan`.
    Max,
    /// NaN-propagating, as `Arith::min_nan`.
    Min,
}

/// The lane accumulators, as the plain fold has them.
const LANES: usize = 32;

impl RunFold {
    /// The fold's identity, which every lane starts from.
    fn init(self) -> f32 {
        match self {
            RunFold::Sum => 0.0,
            RunFold::Prod => 1.0,
            RunFold::Max => f32::NEG_INFINITY,
            RunFold::Min => f32::INFINITY,
        }
    }

    /// One element (or lane) folded into an accumulator, in scalar code.
    #[inline(always)]
    fn step(self, a: f32, v: f32) -> f32 {
        match self {
            RunFold::Sum => a + v,
            RunFold::Prod => a * v,
            RunFold::Max => a.max_nan(v),
            RunFold::Min => a.min_nan(v),
        }
    }

    /// `step` on sixteen lanes: `vmaxps(a, v)` is `a > v ? a : v`, `max_nan` wherever neither
    /// is NaN (and `vminps` likewise for `min_nan`).
    #[inline(always)]
    fn step16(self, simd: V4, a: __m512, v: __m512) -> __m512 {
        let f = simd.avx512f;
        match self {
            RunFold::Sum => f._mm512_add_ps(a, v),
            RunFold::Prod => f._mm512_mul_ps(a, v),
            RunFold::Max => f._mm512_max_ps(a, v),
            RunFold::Min => f._mm512_min_ps(a, v),
        }
    }

    /// The fold of `x`, bitwise the plain fold's.
    #[inline(always)]
    pub(crate) fn run(self, simd: V4, x: &[f32]) -> f32 {
        simd.vectorize(
            #[inline(always)]
            || self.run_in_registers(simd, x).unwrap_or_else(|| self.plain(x)),
        )
    }

    /// The plain fold, taken where a NaN lies in the lanes' part of a max or min: which NaN
    /// comes out (its payload) follows the plain fold's order.
    #[inline(always)]
    fn plain(self, x: &[f32]) -> f32 {
        fold_slice::<f32, f32, LANES>(x, self.init(), &|a, v| self.step(a, v), &|a, b| self.step(a, b))
    }

    /// The fold with its lanes in two registers, or None where a max or min meets a NaN there.
    #[inline(always)]
    fn run_in_registers(self, simd: V4, x: &[f32]) -> Option<f32> {
        let f = simd.avx512f;
        let (chunks, tail) = x.as_chunks::<LANES>();
        let (mut lo, mut hi) = (f._mm512_set1_ps(self.init()), f._mm512_set1_ps(self.init()));
        // All ones while every pair of lanes seen was ordered (neither NaN).
        let mut ordered: u16 = !0;
        for c in chunks {
            let (a, b): (__m512, __m512) = (cast(*c.first_chunk::<16>()?), cast(*c.last_chunk::<16>()?));
            lo = self.step16(simd, lo, a);
            hi = self.step16(simd, hi, b);
            if matches!(self, RunFold::Max | RunFold::Min) {
                ordered = f._kand_mask16(ordered, f._mm512_cmp_ps_mask::<_CMP_ORD_Q>(a, b));
            }
        }
        if ordered != !0 {
            return None;
        }
        // The plain fold's tree: lane j takes lane j + width, for width 16, 8, 4, 2, 1.
        let t = self.step16(simd, lo, hi);
        let t = self.step16(simd, t, f._mm512_shuffle_f32x4::<0x0E>(t, t));
        let t = self.step16(simd, t, f._mm512_shuffle_f32x4::<0x01>(t, t));
        let t = self.step16(simd, t, f._mm512_permute_ps::<0x0E>(t));
        let t = self.step16(simd, t, f._mm512_permute_ps::<0x01>(t));
        let merged = cast::<__m512, [f32; 16]>(t)[0];
        Some(tail.iter().fold(merged, |a, &v| self.step(a, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fold of runs of every length to 200, with signed zeros, infinities and NaNs at
    /// every position of a short run, bitwise the plain fold's (a NaN result as a NaN).
    #[test]
    fn folds_are_bitwise_the_plain_folds() {
        let Some(simd) = crate::cpu::simd::avx512() else { return };
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5) * 1e3
        };
        let wide: Vec<f32> = (0..200).map(|_| next()).collect();
        // Near 1, so that products stay finite and their rounding shows.
        let near_one: Vec<f32> = wide.iter().map(|v| 1.0 + v * 2e-4).collect();
        for op in [RunFold::Sum, RunFold::Prod, RunFold::Max, RunFold::Min] {
            for base in [&wide, &near_one] {
                for n in 0..=base.len() {
                    let x = &base[..n];
                    assert_eq!(op.run(simd, x).to_bits(), op.plain(x).to_bits(), "{op:?} n={n}");
                }
            }
            for special in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0] {
                for at in 0..70 {
                    let mut x = vec![0.0f32; 70];
                    x[at] = special;
                    x[(at * 7) % 70] = -special;
                    let (got, want) = (op.run(simd, &x), op.plain(&x));
                    // NaN as NaN: which of two NaNs an add or multiply returns is its operand
                    // order, which LLVM may swap (they commute) in either fold.
                    let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                    assert!(same, "{op:?} {special} at {at}: {got} against {want}");
                }
            }
        }
    }
}
