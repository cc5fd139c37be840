//! Reductions over any set of dims of a strided tensor, and maps over the 1-D lanes along one
//! dim. Work is split only between outputs or between fixed-size blocks, never in a way that
//! depends on the thread count, so results are bitwise the same on 1 or N threads.

use crate::cpu::buffer::{filled, with_capacity, FirstError};
use crate::cpu::parallel::{for_each_chunk_weighted, map_blocks};
use crate::cpu::simd::{fold_slice, vectorized};
use crate::cpu::walk::Walk;
use crate::error::Result;
use crate::layout::Layout;

/// Elements per block when one output reduces a long contiguous run.
const BLOCK: usize = 1 << 14;
/// Independent accumulators in a contiguous reduction: enough for two AVX-512 registers of f32.
const LANES: usize = 32;

/// The storage offset of every element of `layout`, in row-major order.
pub fn element_offsets(layout: &Layout) -> Result<Vec<usize>> {
    let mut out = with_capacity(layout.numel())?;
    if layout.numel() == 0 {
        return Ok(out);
    }
    let walk = Walk::new(&layout.shape, [(&layout.strides, layout.offset)]);
    let (len, [stride]) = (walk.inner_len(), walk.inner_strides());
    walk.for_each_row(0..walk.rows(), |[o]| out.extend((0..len).map(|i| o + i * stride)));
    Ok(out)
}

/// Splits `layout` into the kept dims (outer, in order) and the reduced dims (inner).
fn split(layout: &Layout, dims: &[usize]) -> (Layout, Layout) {
    let kept: Vec<usize> = (0..layout.ndim()).filter(|d| !dims.contains(d)).collect();
    let outer = Layout {
        shape: kept.iter().map(|&d| layout.shape[d]).collect(),
        strides: kept.iter().map(|&d| layout.strides[d]).collect(),
        offset: layout.offset,
    };
    let inner = Layout {
        shape: dims.iter().map(|&d| layout.shape[d]).collect(),
        strides: dims.iter().map(|&d| layout.strides[d]).collect(),
        offset: 0,
    };
    (outer, inner)
}

/// Folds a contiguous run through the SIMD layer.
#[inline(always)]
fn fold_contiguous<T: Copy, A: Copy>(x: &[T], init: A, step: &impl Fn(A, T) -> A, merge: &impl Fn(A, A) -> A) -> A {
    fold_slice::<T, A, LANES>(x, init, step, merge)
}

/// Reduces `x` over `dims`, giving one value per kept index in row-major order.
/// `step` folds an element into an accumulator; `merge` combines two accumulators.
pub fn reduce<T: Copy + Send + Sync, A: Copy + Send + Sync>(
    x: &[T],
    layout: &Layout,
    dims: &[usize],
    init: A,
    step: impl Fn(A, T) -> A + Sync,
    merge: impl Fn(A, A) -> A + Sync,
) -> Result<Vec<A>> {
    let fold_run = |run: &[T]| fold_contiguous(run, init, &step, &merge);
    reduce_with_runs(x, layout, dims, init, &step, &merge, fold_run)
}

/// What `reduce_with_runs` folds contiguous runs with: a kernel that must give what
/// `fold_contiguous` gives with the same `init`, `step` and `merge` (the float32 folds in
/// registers). Any `Fn(&[T]) -> A` is one, folding rows one by one.
pub trait RunFolder<T, A>: Sync {
    /// The fold of one run.
    fn run(&self, run: &[T]) -> A;

    /// The folds of the runs `x[s..s + len]`, for each start s in `starts`, into `out`.
    fn rows(&self, x: &[T], starts: &[usize], len: usize, out: &mut [A]) {
        for (&s, o) in starts.iter().zip(out) {
            *o = self.run(&x[s..s + len]);
        }
    }
}

impl<T, A, F: Fn(&[T]) -> A + Sync> RunFolder<T, A> for F {
    #[inline(always)]
    fn run(&self, run: &[T]) -> A {
        self(run)
    }
}

/// `reduce` with contiguous runs folded by `fold` (see `RunFolder`). Never inlined, so each
/// instantiation's closures inline into its loops.
#[inline(never)]
pub fn reduce_with_runs<T: Copy + Send + Sync, A: Copy + Send + Sync>(
    x: &[T],
    layout: &Layout,
    dims: &[usize],
    init: A,
    step: impl Fn(A, T) -> A + Sync,
    merge: impl Fn(A, A) -> A + Sync,
    fold: impl RunFolder<T, A>,
) -> Result<Vec<A>> {
    let (outer, inner) = split(layout, dims);
    let n_out: usize = outer.shape.iter().product();
    let inner_walk = Walk::new(&inner.shape, [(&inner.strides, 0)]);
    let (ilen, [istride]) = (inner_walk.inner_len(), inner_walk.inner_strides());
    let inner_n: usize = inner.shape.iter().product();
    let contiguous_inner = inner_walk.rows() == 1 && (istride == 1 || ilen == 1);

    let reduce_one = |base: usize| -> A {
        if inner_n == 0 {
            return init;
        }
        if contiguous_inner {
            return fold.run(&x[base..base + ilen]);
        }
        let mut acc = init;
        inner_walk.for_each_row(0..inner_walk.rows(), |[o]| {
            let o = base + o;
            if istride == 1 {
                // Contiguous rows (e.g. the H*W planes of a sum over dims 0, 2, 3) fold through
                // the SIMD layer; one running accumulator would serialise on the add latency.
                acc = merge(acc, fold.run(&x[o..o + ilen]));
            } else {
                for i in 0..ilen {
                    acc = step(acc, x[o + i * istride]);
                }
            }
        });
        acc
    };

    if n_out == 1 && contiguous_inner {
        // One long run: fixed blocks, reduced in parallel, merged in order.
        let run = &x[outer.offset..outer.offset + inner_n];
        let partials = map_blocks(inner_n, BLOCK, |r| fold.run(&run[r]));
        return Ok(vec![partials.into_iter().fold(init, &merge)]);
    }

    let mut out = filled(n_out, init)?;
    if n_out == 0 {
        return Ok(out);
    }
    let outer_walk = Walk::new(&outer.shape, [(&outer.strides, outer.offset)]);
    if inner_walk.rows() == 1 && outer_walk.rows() == 1 && outer_walk.inner_strides()[0] == 1 && inner_n > 0 {
        // Reducing down columns (e.g. sum(0) of a row-major matrix): accumulate whole rows
        // into the outputs, which are contiguous, instead of striding through memory per output.
        // Each output still folds its elements in the same sequential order.
        let base = outer.offset;
        for_each_chunk_weighted(&mut out, 1, inner_n, |start, chunk| {
            for i in 0..ilen {
                let row = &x[base + i * istride + start..base + i * istride + start + chunk.len()];
                vectorized(
                    #[inline(always)]
                    || {
                        for (o, &v) in chunk.iter_mut().zip(row) {
                            *o = step(*o, v);
                        }
                    },
                )
            }
        });
        return Ok(out);
    }
    let bases = element_offsets(&outer)?;
    for_each_chunk_weighted(&mut out, 1, inner_n, |start, chunk| {
        if contiguous_inner && inner_n > 0 {
            return fold.rows(x, &bases[start..start + chunk.len()], ilen, chunk);
        }
        for (k, o) in chunk.iter_mut().enumerate() {
            *o = reduce_one(bases[start + k]);
        }
    });
    Ok(out)
}

/// Calls `f(lane, out)` for every 1-D lane of `x` along `dim`: `lane` holds the lane's elements
/// (copied contiguous), `out` is that lane's `out_len` outputs. Outputs are laid out with `dim`
/// moved last. `f` fails only for scratch it cannot allocate; the first failure is returned.
pub fn map_lanes<T: Copy + Send + Sync, U: Copy + Default + Send + Sync>(
    x: &[T],
    layout: &Layout,
    dim: usize,
    out_len: usize,
    f: impl Fn(&[T], &mut [U]) -> Result<()> + Sync,
) -> Result<Vec<U>> {
    let (outer, inner) = split(layout, &[dim]);
    let n_lanes: usize = outer.shape.iter().product();
    let (len, stride) = (inner.shape[0], inner.strides[0]);
    let mut out = filled(n_lanes.saturating_mul(out_len), U::default())?;
    if n_lanes == 0 || out_len == 0 {
        return Ok(out);
    }
    let bases = element_offsets(&outer)?;
    let per = out_len.max(1);
    let failed = FirstError::default();
    for_each_chunk_weighted(&mut out, per, len, |start, chunk| {
        // A lane can be longer than the output (argmax of an expanded tensor).
        let mut lane = match with_capacity(len) {
            Ok(lane) => lane,
            Err(e) => return failed.set(e),
        };
        for (k, o) in chunk.chunks_mut(per).enumerate() {
            let base = bases[start / per + k];
            if stride == 1 {
                // A contiguous lane is read where it lies, not copied.
                if let Err(e) = f(&x[base..base + len], o) {
                    return failed.set(e);
                }
                continue;
            }
            lane.clear();
            lane.extend((0..len).map(|j| x[base + j * stride]));
            if let Err(e) = f(&lane, o) {
                return failed.set(e);
            }
        }
    });
    failed.or_ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_over_dims() {
        let x: Vec<f64> = (0..24).map(|v| v as f64).collect();
        let l = Layout::contiguous(vec![2, 3, 4]).unwrap();
        let s = reduce(&x, &l, &[1], 0.0, |a, v| a + v, |a, b| a + b).unwrap();
        assert_eq!(s, vec![12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]);
        let all = reduce(&x, &l, &[0, 1, 2], 0.0, |a, v| a + v, |a, b| a + b).unwrap();
        assert_eq!(all, vec![276.0]);
    }

    #[test]
    fn lanes_along_a_dim() {
        let x: Vec<i64> = (0..6).collect();
        let l = Layout::contiguous(vec![2, 3]).unwrap();
        let c = map_lanes(&x, &l, 0, 2, |lane: &[i64], o: &mut [i64]| {
            o.copy_from_slice(lane);
            Ok(())
        })
        .unwrap();
        assert_eq!(c, vec![0, 3, 1, 4, 2, 5]);
    }
}
