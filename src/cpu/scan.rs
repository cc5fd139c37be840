//! Running sums and products along one dim, written in the input's shape: rows scanned in
//! place when the dim is last, and whole rows added at a time when it is not (dim 0 of a
//! matrix), instead of copying each lane out and moving the dim back after. `reverse` runs from
//! the end of each lane: cumsum's gradient, without flipping the gradient twice.
//!
//! Float32 accumulates in float64, as PyTorch's CPU does; every lane is accumulated in order on
//! one thread, so the results do not depend on the thread count.

use crate::backend::Array;
use crate::cpu::cast::dense_slice;
use crate::cpu::num::Arith;
use crate::cpu::parallel::for_each_chunk_weighted;
use crate::cpu::simd::vectorized;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};

/// cumsum (cumprod when `product`) of a float32, float64 or int64 array along `dim`, in x's
/// shape; from the end of each lane when `reverse`.
pub fn scan(x: &Array, dim: usize, product: bool, reverse: bool) -> Result<Array> {
    let shape = x.shape();
    let (outer, len, inner) = (shape[..dim].iter().product::<usize>(), shape[dim], shape[dim + 1..].iter().product::<usize>());
    let name = if product { "cumprod" } else { "cumsum" };
    let dims = Dims { outer, len, inner, product, reverse };
    match x.dtype() {
        DType::F32 => Array::from_vec(dense_slice::<f32, _>(x, name, |s| run(s, dims, |v: f32| v as f64, |a: f64| a as f32))??, shape),
        DType::F64 => Array::from_vec(dense_slice::<f64, _>(x, name, |s| run(s, dims, |v: f64| v, |a: f64| a))??, shape),
        DType::I64 => Array::from_vec(dense_slice::<i64, _>(x, name, |s| run(s, dims, |v: i64| v, |a: i64| a))??, shape),
        dt => Err(Error::Runtime(format!("{name}: scan of {} (float32, float64 or int64 expected)", dt.title_name()))),
    }
}

#[derive(Clone, Copy)]
struct Dims {
    outer: usize,
    len: usize,
    inner: usize,
    product: bool,
    reverse: bool,
}

fn run<T: Element, A: Arith + Send + Sync>(
    x: &[T],
    d: Dims,
    widen: impl Fn(T) -> A + Sync,
    narrow: impl Fn(A) -> T + Sync,
) -> Result<Vec<T>> {
    let mut out = crate::cpu::buffer::filled(x.len(), T::zero())?;
    let block = d.len * d.inner;
    if block == 0 || d.outer == 0 {
        return Ok(out);
    }
    let start = if d.product { A::one() } else { A::zero() };
    let fold = |a: A, v: A| if d.product { a.mul(v) } else { a.add(v) };
    // A step of `len` along the lane, in the order it is scanned.
    let at = |i: usize| if d.reverse { d.len - 1 - i } else { i };
    for_each_chunk_weighted(&mut out, block, 1, |first, chunk| {
        for (b, o) in chunk.chunks_mut(block).enumerate() {
            let xb = &x[first + b * block..][..block];
            if d.inner == 1 {
                let mut acc = start;
                for i in 0..d.len {
                    let j = at(i);
                    acc = fold(acc, widen(xb[j]));
                    o[j] = narrow(acc);
                }
                continue;
            }
            // Whole rows of `inner` at a time: each column keeps its own running value.
            let mut acc = vec![start; d.inner];
            for i in 0..d.len {
                let j = at(i) * d.inner;
                let (orow, xrow) = (&mut o[j..j + d.inner], &xb[j..j + d.inner]);
                vectorized(
                    #[inline(always)]
                    || {
                        for ((o, &v), a) in orow.iter_mut().zip(xrow).zip(acc.iter_mut()) {
                            *a = fold(*a, widen(v));
                            *o = narrow(*a);
                        }
                    },
                );
            }
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(a: &Array) -> Vec<f64> {
        a.with_slice::<f64, _>("t", |s, _| s.to_vec()).unwrap()
    }

    #[test]
    fn along_rows_and_columns_both_ways() {
        let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        assert_eq!(values(&scan(&x, 1, false, false).unwrap()), [1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
        assert_eq!(values(&scan(&x, 1, false, true).unwrap()), [6.0, 5.0, 3.0, 15.0, 11.0, 6.0]);
        assert_eq!(values(&scan(&x, 0, false, false).unwrap()), [1.0, 2.0, 3.0, 5.0, 7.0, 9.0]);
        assert_eq!(values(&scan(&x, 0, false, true).unwrap()), [5.0, 7.0, 9.0, 4.0, 5.0, 6.0]);
        assert_eq!(values(&scan(&x, 1, true, false).unwrap()), [1.0, 2.0, 6.0, 4.0, 20.0, 120.0]);
    }
}
