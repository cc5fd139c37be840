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
/// Never inlined, so each instantiation's closures inline into its loops.
/// `step` folds an element into an accumulator; `merge` combines two accumulators.
#[inline(never)]
pub fn reduce<T: Copy + Send + Sync, A: Copy + Send + Sync>(
    x: &[T],
    layout: &Layout,
    dims: &[usize],
    init: A,
    step: impl Fn(A, T) -> A + Sync,
    merge: impl Fn(A, A) -> A + Sync,
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
            return fold_contiguous(&x[base..base + ilen], init, &step, &merge);
        }
        let mut acc = init;
        inner_walk.for_each_row(0..inner_walk.rows(), |[o]| {
            let o = base + o;
            if istride == 1 {
                // Contiguous rows (e.g. the H*W planes of a sum over dims 0, 2, 3) fold through
                // the SIMD layer; one running accumulator would serialise on the add latency.
                acc = merge(acc, fold_contiguous(&x[o..o + ilen], init, &step, &merge));
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
        let partials = map_blocks(inner_n, BLOCK, |r| fold_contiguous(&run[r], init, &step, &merge));
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
            lane.clear();
            lane.extend((0..len).map(|j| x[base + j * stride]));
            if let Err(e) = f(&lane, o) {
                return failed.set(e);
            }
        }
    });
    failed.or_ok(out)
}

/// `op` over `rdims` of `x` into a new array of `out_shape`, with PyTorch's result dtypes: bool
/// for all/any, int64 sums and products of integers and bool (wrapping), the input's dtype
/// otherwise (16-bit floats accumulate in float32 and round once).
pub fn reduce_op(
    x: &crate::backend::Array,
    op: crate::ops::reduce::ReduceOp,
    rdims: &[usize],
    out_shape: &[usize],
) -> Result<crate::backend::Array> {
    use crate::backend::{Array, Backend};
    use crate::cpu::num::Arith;
    use crate::dtype::{DType, Element};
    use crate::ops::reduce::ReduceOp;
    let cpu = super::Cpu;
    let dt = x.dtype();
    if dt.is_half() && !matches!(op, ReduceOp::All | ReduceOp::Any) {
        return cpu.copy_as(&reduce_op(&cpu.copy_as(x, DType::F32)?, op, rdims, out_shape)?, dt);
    }
    // Full reductions walk memory in order: make the input dense first.
    let src = if rdims.len() == x.ndim() && !x.is_contiguous() { cpu.copy_as(x, dt)? } else { x.clone() };
    match op {
        ReduceOp::All | ReduceOp::Any => {
            let b = if dt == DType::Bool { src } else { cpu.copy_as(&src, DType::Bool)? };
            let all = op == ReduceOp::All;
            let v = b.with_slice::<bool, _>(if all { "all" } else { "any" }, |s, l| {
                reduce(s, l, rdims, all, |a, v| if all { a & v } else { a | v }, |a, b| if all { a & b } else { a | b })
            })??;
            Array::from_vec(v, out_shape)
        }
        ReduceOp::Sum | ReduceOp::Prod if !dt.is_floating_point() => {
            let t = if dt == DType::I64 { src } else { cpu.copy_as(&src, DType::I64)? };
            let v = t.with_slice::<i64, _>(op.name(), |s, l| match op {
                ReduceOp::Sum => reduce(s, l, rdims, 0i64, |a, v| a.wrapping_add(v), |a, b| a.wrapping_add(b)),
                _ => reduce(s, l, rdims, 1i64, |a, v| a.wrapping_mul(v), |a, b| a.wrapping_mul(b)),
            })??;
            Array::from_vec(v, out_shape)
        }
        _ => crate::with_arith_dtype!(dt, T => src.with_slice::<T, _>(op.name(), |s, l| {
            let v: Vec<T> = match op {
                ReduceOp::Sum => reduce(s, l, rdims, T::zero(), |a: T, v| a.add(v), |a, b| a.add(b)),
                ReduceOp::Prod => reduce(s, l, rdims, T::one(), |a: T, v| a.mul(v), |a, b| a.mul(b)),
                ReduceOp::Max => reduce(s, l, rdims, lowest::<T>(), |a: T, v| a.max_nan(v), |a, b| a.max_nan(b)),
                _ => reduce(s, l, rdims, highest::<T>(), |a: T, v| a.min_nan(v), |a, b| a.min_nan(b)),
            }?;
            Array::from_vec(v, out_shape)
        })?),
    }
}

/// The identity of a NaN-propagating max: the lowest value of `T` (false for bool).
fn lowest<T: crate::dtype::Element>() -> T {
    if T::DTYPE == crate::dtype::DType::Bool {
        T::zero()
    } else {
        T::from_f64(f64::NEG_INFINITY)
    }
}

/// The identity of a NaN-propagating min: the highest value of `T` (true for bool).
fn highest<T: crate::dtype::Element>() -> T {
    if T::DTYPE == crate::dtype::DType::Bool {
        T::one()
    } else {
        T::from_f64(f64::INFINITY)
    }
}

/// The int64 index of the first NaN, else of the first max (or min), along `dim`, which leaves
/// the shape.
// The generic comparisons also run for bool elements, where clippy would rewrite them.
#[allow(clippy::bool_comparison)]
pub fn arg_reduce(x: &crate::backend::Array, dim: usize, max: bool) -> Result<crate::backend::Array> {
    use crate::cpu::num::Arith;
    let shape: Vec<usize> = (0..x.ndim()).filter(|&d| d != dim).map(|d| x.shape()[d]).collect();
    let idx: Vec<i64> = crate::with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>(if max { "max" } else { "min" }, |s, l| {
        map_lanes(s, l, dim, 1, |lane: &[T], o: &mut [i64]| {
            let mut bi = 0usize;
            for (i, &v) in lane.iter().enumerate() {
                let b = lane[bi];
                if b.is_nan() {
                    break;
                }
                if v.is_nan() || (max && v > b) || (!max && v < b) {
                    bi = i;
                }
            }
            o[0] = bi as i64;
            Ok(())
        })
    })??);
    crate::backend::Array::from_vec(idx, &shape)
}

/// Running sums (or products) of a float32, float64 or int64 array along `dim`, shaped as `x`
/// with `dim` moved last. Float32 accumulates in float64, as PyTorch's CPU does.
pub fn cumulative(x: &crate::backend::Array, dim: usize, product: bool) -> Result<crate::backend::Array> {
    use crate::dtype::DType;
    let len = x.shape()[dim];
    let mut shape: Vec<usize> = x.shape().to_vec();
    let n = shape.remove(dim);
    shape.push(n);
    let name = if product { "cumprod" } else { "cumsum" };
    let data = match x.dtype() {
        DType::F32 => {
            return crate::backend::Array::from_vec(
                x.with_slice::<f32, _>(name, |s, l| scan(s, l, dim, len, product, |v: f32| v as f64, |a: f64| a as f32))??,
                &shape,
            )
        }
        dt => {
            crate::with_arith_dtype!(dt, T => crate::backend::Array::from_vec(x.with_slice::<T, _>(name, |s, l| scan(s, l, dim, len, product, |v: T| v, |a: T| a))??, &shape))
        }
    };
    data
}

/// Running sums or products along lanes, accumulating in `A`.
fn scan<T: crate::dtype::Element, A: crate::cpu::num::Arith>(
    s: &[T],
    l: &crate::layout::Layout,
    dim: usize,
    len: usize,
    product: bool,
    widen: impl Fn(T) -> A + Sync,
    narrow: impl Fn(A) -> T + Sync,
) -> Result<Vec<T>> {
    map_lanes(s, l, dim, len, |lane: &[T], o: &mut [T]| {
        let mut acc = if product { A::one() } else { A::zero() };
        for (o, &v) in o.iter_mut().zip(lane) {
            acc = if product { acc.mul(widen(v)) } else { acc.add(widen(v)) };
            *o = narrow(acc);
        }
        Ok(())
    })
}

/// The stable sorting permutation (int64) along `dim`, shaped as `x` with `dim` moved last;
/// NaN sorts as the largest value.
pub fn sort(x: &crate::backend::Array, d: usize, descending: bool) -> Result<crate::backend::Array> {
    use crate::cpu::buffer::collect_n;
    use crate::cpu::num::Arith;
    let len = x.shape()[d];
    let order: Vec<i64> = crate::with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>("sort", |s, l| {
        map_lanes(s, l, d, len, |lane: &[T], o: &mut [i64]| {
            let mut idx: Vec<usize> = collect_n(lane.len(), 0..lane.len())?;
            let key = |a: T, b: T| {
                match (a.is_nan(), b.is_nan()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    _ => a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal),
                }
            };
            if descending {
                idx.sort_by(|&a, &b| key(lane[b], lane[a]));
            } else {
                idx.sort_by(|&a, &b| key(lane[a], lane[b]));
            }
            o.iter_mut().zip(idx).for_each(|(o, i)| *o = i as i64);
            Ok(())
        })
    })??);
    let mut moved = x.shape().to_vec();
    let n = moved.remove(d);
    moved.push(n);
    crate::backend::Array::from_vec(order, &moved)
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
