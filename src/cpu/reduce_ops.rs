//! The host's reductions, scans and sorts over whole arrays, with PyTorch's result dtypes: the
//! entry points the CPU backend calls, built on the slice kernels of `reduce.rs`.

use crate::backend::Array;
use crate::cpu::cast::copy_as;
#[cfg(target_arch = "x86_64")]
use crate::cpu::fold_f32::{RunFold, RunFoldF32};
use crate::cpu::num::Arith;
#[cfg(target_arch = "x86_64")]
use crate::cpu::reduce::reduce_with_runs;
use crate::cpu::reduce::{map_lanes, reduce};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::reduce::ReduceOp;

/// `op` over `rdims` of `x` into a new array of `out_shape`, with PyTorch's result dtypes: bool
/// for all/any, int64 sums and products of integers and bool (wrapping), the input's dtype
/// otherwise (16-bit floats accumulate in float32 and round once).
pub fn reduce_op(x: &Array, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Array> {
    let dt = x.dtype();
    if dt.is_half() && !matches!(op, ReduceOp::All | ReduceOp::Any) {
        return copy_as(&reduce_op(&copy_as(x, DType::F32)?, op, rdims, out_shape)?, dt);
    }
    let (src, rdims) = in_memory_order(x, rdims)?;
    let rdims = &rdims[..];
    match op {
        ReduceOp::All | ReduceOp::Any => {
            let b = if dt == DType::Bool { src } else { copy_as(&src, DType::Bool)? };
            let all = op == ReduceOp::All;
            let v = b.with_slice::<bool, _>(if all { "all" } else { "any" }, |s, l| {
                reduce(s, l, rdims, all, |a, v| if all { a & v } else { a | v }, |a, b| if all { a & b } else { a | b })
            })??;
            Array::from_vec(v, out_shape)
        }
        ReduceOp::Sum | ReduceOp::Prod if !dt.is_floating_point() => {
            let t = if dt == DType::I64 { src } else { copy_as(&src, DType::I64)? };
            let v = t.with_slice::<i64, _>(op.name(), |s, l| match op {
                ReduceOp::Sum => reduce(s, l, rdims, 0i64, |a, v| a.wrapping_add(v), |a, b| a.wrapping_add(b)),
                _ => reduce(s, l, rdims, 1i64, |a, v| a.wrapping_mul(v), |a, b| a.wrapping_mul(b)),
            })??;
            Array::from_vec(v, out_shape)
        }
        #[cfg(target_arch = "x86_64")]
        ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Max | ReduceOp::Min if dt == DType::F32 && crate::cpu::simd::avx512().is_some() => {
            let simd = crate::cpu::simd::avx512().expect("checked");
            // The steps as the plain path has them, one closure per fold: a step chosen at run
            // time kept the column reductions' loops from vectorising.
            let v = src.with_slice::<f32, _>(op.name(), |s, l| match op {
                ReduceOp::Sum => reduce_with_runs(s, l, rdims, 0.0, |a, v| a + v, |a, b| a + b, RunFoldF32(RunFold::Sum, simd)),
                ReduceOp::Prod => reduce_with_runs(s, l, rdims, 1.0, |a, v| a * v, |a, b| a * b, RunFoldF32(RunFold::Prod, simd)),
                ReduceOp::Max => {
                    let step = |a: f32, v: f32| a.max_nan(v);
                    reduce_with_runs(s, l, rdims, f32::NEG_INFINITY, step, step, RunFoldF32(RunFold::Max, simd))
                }
                _ => {
                    let step = |a: f32, v: f32| a.min_nan(v);
                    reduce_with_runs(s, l, rdims, f32::INFINITY, step, step, RunFoldF32(RunFold::Min, simd))
                }
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

/// `x` and `rdims` as a reduction should read them. Full reductions walk memory in order: a
/// permuted dense input (a transpose) is read as the one run of storage it fills, any other
/// strided one is made dense first.
fn in_memory_order(x: &Array, rdims: &[usize]) -> Result<(Array, Vec<usize>)> {
    if rdims.len() != x.ndim() || x.is_contiguous() {
        return Ok((x.clone(), rdims.to_vec()));
    }
    let run = if crate::result_layout::is_dense(x.layout()) {
        x.with_layout(Layout { shape: vec![x.numel()], strides: vec![1], offset: x.storage_offset() })
    } else {
        copy_as(x, x.dtype())?.view_as(&[x.numel()])?
    };
    Ok((run, vec![0]))
}

/// The sum of squares of a float32 or float64 `x` over `rdims`, into a new array of
/// `out_shape`: `x * x` summed as `reduce_op` sums it (the same order, so the same bits),
/// without the squares written out.
pub fn sum_squares(x: &Array, rdims: &[usize], out_shape: &[usize]) -> Result<Array> {
    let (src, rdims) = in_memory_order(x, rdims)?;
    match x.dtype() {
        DType::F32 => {
            Array::from_vec(src.with_slice::<f32, _>("norm", |s, l| reduce(s, l, &rdims, 0.0, |a, v| a + v * v, |a, b| a + b))??, out_shape)
        }
        DType::F64 => {
            Array::from_vec(src.with_slice::<f64, _>("norm", |s, l| reduce(s, l, &rdims, 0.0, |a, v| a + v * v, |a, b| a + b))??, out_shape)
        }
        other => Err(crate::error::Error::Type(format!("sum_squares of {other:?}"))),
    }
}

/// The identity of a NaN-propagating max: the lowest value of `T` (false for bool).
fn lowest<T: Element>() -> T {
    if T::DTYPE == DType::Bool {
        T::zero()
    } else {
        T::from_f64(f64::NEG_INFINITY)
    }
}

/// The identity of a NaN-propagating min: the highest value of `T` (true for bool).
fn highest<T: Element>() -> T {
    if T::DTYPE == DType::Bool {
        T::one()
    } else {
        T::from_f64(f64::INFINITY)
    }
}

/// The int64 index of the first NaN, else of the first max (or min), along `dim`, which leaves
/// the shape.
// The generic comparisons also run for bool elements, where clippy would rewrite them.
#[allow(clippy::bool_comparison)]
pub fn arg_reduce(x: &Array, dim: usize, max: bool) -> Result<Array> {
    use Arith;
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
    Array::from_vec(idx, &shape)
}

/// Running sums (or products) of a float32, float64 or int64 array along `dim`, shaped as `x`
/// with `dim` moved last. Float32 accumulates in float64, as PyTorch's CPU does.
pub fn cumulative(x: &Array, dim: usize, product: bool) -> Result<Array> {
    let len = x.shape()[dim];
    let mut shape: Vec<usize> = x.shape().to_vec();
    let n = shape.remove(dim);
    shape.push(n);
    let name = if product { "cumprod" } else { "cumsum" };
    let data = match x.dtype() {
        DType::F32 => {
            return Array::from_vec(
                x.with_slice::<f32, _>(name, |s, l| scan(s, l, dim, len, product, |v: f32| v as f64, |a: f64| a as f32))??,
                &shape,
            )
        }
        dt => {
            crate::with_arith_dtype!(dt, T => Array::from_vec(x.with_slice::<T, _>(name, |s, l| scan(s, l, dim, len, product, |v: T| v, |a: T| a))??, &shape))
        }
    };
    data
}

/// Running sums or products along lanes, accumulating in `A`.
fn scan<T: Element, A: Arith>(
    s: &[T],
    l: &Layout,
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
pub fn sort(x: &Array, d: usize, descending: bool) -> Result<Array> {
    use crate::cpu::buffer::collect_n;
    use Arith;
    let len = x.shape()[d];
    let order: Vec<i64> = if x.dtype() == DType::F32 && u32::try_from(len).is_ok() {
        x.with_slice::<f32, _>("sort", |s, l| {
            map_lanes(s, l, d, len, |lane: &[f32], o: &mut [i64]| {
                // (key, index) packed into one u64 and sorted unstably: the index breaks ties, so the
                // order is the stable one, and integer compares of a flat array beat an index sort
                // whose every compare loads two floats through the permutation.
                let mut keys: Vec<u64> = collect_n(
                    lane.len(),
                    lane.iter().enumerate().map(|(i, &v)| {
                        let k = if descending { !sort_key(v) } else { sort_key(v) };
                        (u64::from(k) << 32) | i as u64
                    }),
                )?;
                keys.sort_unstable();
                o.iter_mut().zip(keys).for_each(|(o, k)| *o = (k & 0xffff_ffff) as i64);
                Ok(())
            })
        })??
    } else {
        crate::with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>("sort", |s, l| {
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
    })??)
    };
    let mut moved = x.shape().to_vec();
    let n = moved.remove(d);
    moved.push(n);
    Array::from_vec(order, &moved)
}

/// A float32's place in sort order as an unsigned integer: -0.0 and 0.0 equal (so ties between
/// them keep index order, as a stable sort on values does), every NaN above +inf.
#[inline(always)]
fn sort_key(v: f32) -> u32 {
    if v.is_nan() {
        return u32::MAX;
    }
    let bits = (v + 0.0).to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}
