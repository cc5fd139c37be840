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
use crate::cpu::reduce::RunFolder;
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
        let mut out = [0.0];
        self.rows(simd, x, &[0], x.len(), &mut out);
        out[0]
    }

    /// The folds of the runs `x[b..b + len]`, for each start b in `starts`, into `out`: each
    /// bitwise `run`'s. Two runs a loop, their chains interleaved: one run's chain (len/32
    /// dependent steps, then the merge) left the core idle between runs, and prod along
    /// 1024-wide rows ran at 0.82x PyTorch.
    pub(crate) fn rows(self, simd: V4, x: &[f32], starts: &[usize], len: usize, out: &mut [f32]) {
        // One compiled loop per fold: a fold read at run time inside the loop cost an indirect
        // jump per step.
        match self {
            RunFold::Sum => Self::rows_as::<0>(simd, x, starts, len, out),
            RunFold::Prod => Self::rows_as::<1>(simd, x, starts, len, out),
            RunFold::Max => Self::rows_as::<2>(simd, x, starts, len, out),
            RunFold::Min => Self::rows_as::<3>(simd, x, starts, len, out),
        }
    }

    /// `rows` of the fold numbered `FOLD` in declaration order.
    #[inline(always)]
    fn rows_as<const FOLD: u8>(simd: V4, x: &[f32], starts: &[usize], len: usize, out: &mut [f32]) {
        simd.vectorize(
            #[inline(always)]
            || {
                // Named here, not captured: a captured fold is data the vectorised function
                // reads at run time (a jump table in the loop), FOLD a constant in it.
                let fold = [RunFold::Sum, RunFold::Prod, RunFold::Max, RunFold::Min][FOLD as usize];
                let (pairs, last) = starts.as_chunks::<2>();
                let (out_pairs, out_last) = out.as_chunks_mut::<2>();
                for (&[a, b], o) in pairs.iter().zip(out_pairs) {
                    let runs = [&x[a..a + len], &x[b..b + len]];
                    let folded = fold.in_registers(simd, runs);
                    for r in 0..2 {
                        o[r] = folded[r].unwrap_or_else(|| fold.plain(runs[r]));
                    }
                }
                for (&a, o) in last.iter().zip(out_last) {
                    let run = &x[a..a + len];
                    *o = fold.in_registers(simd, [run])[0].unwrap_or_else(|| fold.plain(run));
                }
            },
        )
    }

    /// The plain fold, taken where a NaN lies in the lanes' part of a max or min: which NaN
    /// comes out (its payload) follows the plain fold's order.
    #[inline(always)]
    fn plain(self, x: &[f32]) -> f32 {
        fold_slice::<f32, f32, LANES>(x, self.init(), &|a, v| self.step(a, v), &|a, b| self.step(a, b))
    }

    /// The folds of `R` runs of one length, each with its lanes in two registers, their steps
    /// interleaved; None for a run where a max or min meets a NaN in its lanes.
    #[inline(always)]
    fn in_registers<const R: usize>(self, simd: V4, runs: [&[f32]; R]) -> [Option<f32>; R] {
        // Plain loops over the runs, no `array::map` or `from_fn`: their closures compile
        // outside the AVX-512 context, each intrinsic in them a call (2.4x slower).
        let f = simd.avx512f;
        let mut chunks: [&[[f32; LANES]]; R] = [&[]; R];
        let mut tails: [&[f32]; R] = [&[]; R];
        for r in 0..R {
            (chunks[r], tails[r]) = runs[r].as_chunks::<LANES>();
        }
        let steps = chunks.iter().fold(usize::MAX, |n, c| n.min(c.len()));
        let mut lo = [f._mm512_set1_ps(self.init()); R];
        let mut hi = lo;
        // All ones while every pair of lanes seen was ordered (neither NaN).
        let mut ordered = [!0u16; R];
        // Step i of every run in turn (clippy reads `chunks[r][i]` as one index).
        #[allow(clippy::needless_range_loop)]
        for i in 0..steps {
            for r in 0..R {
                let [a, b]: [[f32; 16]; 2] = cast(chunks[r][i]);
                let (a, b): (__m512, __m512) = (cast(a), cast(b));
                lo[r] = self.step16(simd, lo[r], a);
                hi[r] = self.step16(simd, hi[r], b);
                if matches!(self, RunFold::Max | RunFold::Min) {
                    ordered[r] = f._kand_mask16(ordered[r], f._mm512_cmp_ps_mask::<_CMP_ORD_Q>(a, b));
                }
            }
        }
        let mut folded = [None; R];
        for r in 0..R {
            if ordered[r] == !0 {
                folded[r] = Some(self.merged(simd, lo[r], hi[r], tails[r]));
            }
        }
        folded
    }

    /// The lanes of `lo` and `hi` merged in the plain fold's tree (lane j takes lane j + width,
    /// for width 16, 8, 4, 2, 1), then the tail folded in sequence.
    #[inline(always)]
    fn merged(self, simd: V4, lo: __m512, hi: __m512, tail: &[f32]) -> f32 {
        let f = simd.avx512f;
        let t = self.step16(simd, lo, hi);
        let t = self.step16(simd, t, f._mm512_shuffle_f32x4::<0x0E>(t, t));
        let t = self.step16(simd, t, f._mm512_shuffle_f32x4::<0x01>(t, t));
        let t = self.step16(simd, t, f._mm512_permute_ps::<0x0E>(t));
        let t = self.step16(simd, t, f._mm512_permute_ps::<0x01>(t));
        let merged = cast::<__m512, [f32; 16]>(t)[0];
        tail.iter().fold(merged, |a, &v| self.step(a, v))
    }
}

/// A fold with the CPU's AVX-512 token, as `reduce_with_runs` takes it.
#[derive(Clone, Copy)]
pub(crate) struct RunFoldF32(pub RunFold, pub V4);

impl RunFolder<f32, f32> for RunFoldF32 {
    #[inline(always)]
    fn run(&self, run: &[f32]) -> f32 {
        self.0.run(self.1, run)
    }

    fn rows(&self, x: &[f32], starts: &[usize], len: usize, out: &mut [f32]) {
        self.0.rows(self.1, x, starts, len, out)
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

    /// `rows` over runs of one length (two a loop and an odd last), each bitwise `run`'s, with
    /// a NaN in some runs only (the plain fold for those alone).
    #[test]
    fn rows_are_each_runs_fold() {
        let Some(simd) = crate::cpu::simd::avx512() else { return };
        for len in [0usize, 1, 31, 32, 70, 200] {
            let x: Vec<f32> = (0..len * 7 + 5).map(|i| 1.0 + ((i * 37 % 101) as f32 - 50.0) * 1e-3).collect();
            let mut with_nan = x.clone();
            if len > 0 {
                with_nan[len + len / 2] = f32::NAN;
            }
            let starts: Vec<usize> = (0..7).map(|r| r * len + (r % 2) * 5 / 7).collect();
            for op in [RunFold::Sum, RunFold::Prod, RunFold::Max, RunFold::Min] {
                for data in [&x, &with_nan] {
                    let mut out = vec![0.0f32; starts.len()];
                    op.rows(simd, data, &starts, len, &mut out);
                    for (&s, got) in starts.iter().zip(out) {
                        let want = op.plain(&data[s..s + len]);
                        assert!(
                            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                            "{op:?} len {len} at {s}: {got} against {want}"
                        );
                    }
                }
            }
        }
    }
}
