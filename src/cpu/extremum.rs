//! max / min along one dim with their indices, in one pass over the input: the values come with
//! the indices (before, the indices were found on copied lanes and the values gathered after).
//!
//! The first index wins ties and a NaN wins over numbers (its first occurrence), as in PyTorch.
//! Each output is computed from its own lane in a fixed order, so the results do not depend on
//! how the outputs are split between threads.

use crate::backend::Array;
use crate::cpu::num::Arith;
use crate::cpu::parallel::for_each_chunk_weighted;
use crate::cpu::simd::{fold_slice, vectorized};
use crate::cpu::walk::Walk;
use crate::dtype::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::with_arith_dtype;

/// Independent accumulators of a lane's fold (two AVX-512 registers of f32).
const LANES: usize = 32;

/// Values and int64 indices of the max (`max`) or min along `dim` of `x`, both of `shape` (x's
/// shape without `dim`, or with it of size 1). `x` has at least one dim and `dim` is not empty.
pub fn max_min_dim(x: &Array, dim: usize, max: bool, shape: &[usize]) -> Result<(Array, Array)> {
    let name = if max { "max" } else { "min" };
    with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>(name, |s, l| {
        let (values, indices) = if max { along::<T, true>(s, l, dim)? } else { along::<T, false>(s, l, dim)? };
        Ok::<_, crate::error::Error>((Array::from_vec(values, shape)?, Array::from_vec(indices, shape)?))
    })?)
}

/// Whether `v` replaces the best-so-far `b` (found at a lower index).
#[inline(always)]
#[allow(clippy::bool_comparison)] // also instantiated for bool
fn better<T: Arith + PartialOrd, const MAX: bool>(v: T, b: T) -> bool {
    let beyond = if MAX { v > b } else { v < b };
    beyond || (v.is_nan() && !b.is_nan())
}

/// The best element of a contiguous lane and its index: its max (or min) folded with
/// independent accumulators (a NaN propagates), then the first element equal to it.
#[inline(always)]
fn scan<T: Arith + PartialOrd + Copy, const MAX: bool>(lane: &[T]) -> (T, i64) {
    let step = |a: T, v: T| if MAX { a.max_nan(v) } else { a.min_nan(v) };
    let best = fold_slice::<T, T, LANES>(&lane[1..], lane[0], &step, &step);
    let at = if best.is_nan() { lane.iter().position(|v| v.is_nan()) } else { lane.iter().position(|&v| v == best) };
    let i = at.unwrap_or(0);
    (lane[i], i as i64)
}

fn along<T: Element + Arith + PartialOrd, const MAX: bool>(s: &[T], l: &Layout, dim: usize) -> Result<(Vec<T>, Vec<i64>)> {
    let (len, step) = (l.shape[dim], l.strides[dim]);
    let kept_shape: Vec<usize> = (0..l.ndim()).filter(|&d| d != dim).map(|d| l.shape[d]).collect();
    let kept_strides: Vec<usize> = (0..l.ndim()).filter(|&d| d != dim).map(|d| l.strides[d]).collect();
    let n_out: usize = kept_shape.iter().product();
    let mut out: Vec<(T, i64)> = crate::cpu::buffer::filled(n_out, (T::zero(), 0i64))?;
    if n_out > 0 {
        let walk = Walk::new(&kept_shape, [(&kept_strides, l.offset)]);
        let (n, [ks]) = (walk.inner_len(), walk.inner_strides());
        for_each_chunk_weighted(&mut out, 1, len, |start, chunk| {
            // The chunk's outputs, a piece of one walk row at a time.
            let mut k = start;
            let end = start + chunk.len();
            while k < end {
                let (row, col) = (k / n, k % n);
                let piece = (n - col).min(end - k);
                let mut base = 0;
                walk.for_each_row(row..row + 1, |[o]| base = o + col * ks);
                let o = &mut chunk[k - start..k - start + piece];
                if step == 1 && len > 1 {
                    // Each lane is contiguous: scanned where it lies.
                    for (j, slot) in o.iter_mut().enumerate() {
                        let lane = &s[base + j * ks..base + j * ks + len];
                        *slot = vectorized(
                            #[inline(always)]
                            || scan::<T, MAX>(lane),
                        );
                    }
                } else if ks == 1 {
                    // Neighbouring outputs are neighbours in memory: whole rows of the reduced
                    // dim update them together, reading memory in order.
                    columns::<T, MAX>(s, base, step, len, o);
                } else {
                    for (j, slot) in o.iter_mut().enumerate() {
                        let at = base + j * ks;
                        let (mut b, mut bi) = (s[at], 0usize);
                        for i in 1..len {
                            let v = s[at + i * step];
                            if better::<T, MAX>(v, b) {
                                (b, bi) = (v, i);
                            }
                        }
                        *slot = (b, bi as i64);
                    }
                }
                k += piece;
            }
        });
    }
    Ok(out.into_iter().unzip())
}

/// The outputs `o` whose lanes start at `base`, `base + 1`, ... and step by `step`.
fn columns<T: Element + Arith + PartialOrd, const MAX: bool>(s: &[T], base: usize, step: usize, len: usize, o: &mut [(T, i64)]) {
    let m = o.len();
    let mut best: Vec<T> = s[base..base + m].to_vec();
    let mut at: Vec<i64> = vec![0; m];
    vectorized(
        #[inline(always)]
        || {
            for i in 1..len {
                let row = &s[base + i * step..base + i * step + m];
                let idx = i as i64;
                for ((b, a), &v) in best.iter_mut().zip(at.iter_mut()).zip(row) {
                    let take = better::<T, MAX>(v, *b);
                    *b = if take { v } else { *b };
                    *a = if take { idx } else { *a };
                }
            }
        },
    );
    for ((slot, b), a) in o.iter_mut().zip(best).zip(at) {
        *slot = (b, a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Vec<f64>, shape: &[usize], strides: &[usize], dim: usize, max: bool) -> (Vec<f64>, Vec<i64>) {
        let n = v.len();
        let a = Array::from_vec(v, &[n]).unwrap();
        let l = Layout { shape: shape.to_vec(), strides: strides.to_vec(), offset: 0 };
        let kept: Vec<usize> = (0..shape.len()).filter(|&d| d != dim).map(|d| shape[d]).collect();
        let (vals, idx) = max_min_dim(&a.with_layout(l), dim, max, &kept).unwrap();
        (vals.with_slice::<f64, _>("t", |s, _| s.to_vec()).unwrap(), idx.with_slice::<i64, _>("t", |s, _| s.to_vec()).unwrap())
    }

    #[test]
    fn rows_columns_and_strided_lanes_agree() {
        let nan = f64::NAN;
        // 2x3, row-major: [[1, 5, 5], [nan, 0, nan]].
        let x = vec![1.0, 5.0, 5.0, nan, 0.0, nan];
        let (v, i) = run(x.clone(), &[2, 3], &[3, 1], 1, true);
        assert_eq!((v[0], i[0], i[1]), (5.0, 1, 0));
        assert!(v[1].is_nan());
        // min along dim 0: NaN wins its column (PyTorch 2.15 gives [nan, 0, nan], indices [1, 1, 1]).
        let (v, i) = run(x.clone(), &[2, 3], &[3, 1], 0, false);
        assert!(v[0].is_nan() && v[2].is_nan());
        assert_eq!((v[1], i.clone()), (0.0, vec![1, 1, 1]));
        // The transposed view (3x2, strides (1, 3)) along dim 1 is the same as dim 0 above.
        let (v2, i2) = run(x.clone(), &[3, 2], &[1, 3], 1, false);
        assert_eq!(i2, i);
        assert!(v2[0].is_nan() && v2[2].is_nan());
        assert_eq!(v2[1], v[1]);
        // Along dim 0 of the transposed view: lanes are contiguous, outputs strided.
        let (v3, i3) = run(x, &[3, 2], &[1, 3], 0, true);
        assert_eq!((v3[0], i3[0], i3[1]), (5.0, 1, 0));
    }
}
