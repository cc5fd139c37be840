//! The host's indexing kernels: elements read (`take`, `gather_index`), written (`put`) and
//! added (`add_at`, `index_add`) at storage offsets the tensor layer computed and checked, or at
//! the values of an integer index array read straight from host memory.

use std::sync::Arc;

use crate::backend::Array;
use crate::cpu::buffer::{collect_n, with_capacity};
use crate::cpu::num::Arith;
use crate::cpu::walk::Walk;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;

use crate::{with_arith_dtype, with_dtype};

/// Runs `$body` with `$T` the element type of `$dtype` and `$add` the sum PyTorch's CPU
/// accumulates into it: native for the arithmetic types (integers wrap, bools add as `or`),
/// and for the 16-bit floats the exact sum rounded once (through f64, which holds it).
macro_rules! with_sum {
    ($dtype:expr, $T:ident, $add:ident => $body:expr) => {{
        match $dtype {
            DType::F16 | DType::BF16 => with_dtype!($dtype, $T => {
                let $add = |a: $T, b: $T| <$T as Element>::from_f64(a.to_f64() + b.to_f64());
                $body
            }),
            d => with_arith_dtype!(d, $T => {
                let $add = <$T as Arith>::add;
                $body
            }),
        }
    }};
}

/// The elements at storage `offsets` of `src`, as a new array of `shape`.
pub fn take(src: &Array, offsets: &[usize], shape: &[usize]) -> Result<Array> {
    with_dtype!(src.dtype(), T => src.with_slice::<T, _>("index", |s, _| {
        Array::from_vec(collect_n(offsets.len(), offsets.iter().map(|&o| s[o]))?, shape)
    })?)
}

/// `src` gathered by the integer array `index`: element `i` of the result (of `shape`) is
/// `src`'s at `src_at`'s offset of `i` plus `index_at`'s value at `i` times `src`'s stride of
/// `dim` (both layouts view their storage at `shape`). The indices are read where they lie, in
/// one pass with the offsets; None when one is outside the dim, for the caller to word the error.
pub fn gather_index(src: &Array, src_at: &Layout, dim: usize, index: &Array, index_at: &Layout, shape: &[usize]) -> Result<Option<Array>> {
    let (stride, size) = (src.strides()[dim], src.shape()[dim] as i64);
    let n = crate::shape::numel(shape)?;
    let mut offsets = with_capacity(n)?;
    let mut in_range = true;
    if n > 0 {
        let walk = Walk::new(shape, [(&index_at.strides, index_at.offset), (&src_at.strides, src_at.offset)]);
        let (len, [index_step, src_step]) = (walk.inner_len(), walk.inner_strides());
        with_dtype!(index.dtype(), I => index.with_slice::<I, _>("gather", |ix, _| {
            walk.for_each_row(0..walk.rows(), |[at, from]| {
                if !in_range {
                    return;
                }
                for k in 0..len {
                    let v = ix[at + k * index_step].to_i64();
                    if !(0..size).contains(&v) {
                        in_range = false;
                        return;
                    }
                    offsets.push(from + k * src_step + v as usize * stride);
                }
            })
        })?);
    }
    if !in_range {
        return Ok(None);
    }
    take(src, &offsets, shape).map(Some)
}

/// Calls `f` with `dst`'s elements, to write, and `values`' (contiguous, as many as `len`).
/// Values sharing dst's storage are copied out first: one storage is never read and written at
/// once.
fn with_values<T: Element, R>(dst: &Array, values: &Array, len: usize, op: &str, f: impl FnOnce(&mut [T], &[T]) -> R) -> Result<R> {
    if !values.is_contiguous() || values.dtype() != dst.dtype() || values.numel() != len {
        return Err(Error::Runtime(format!("{op}: the values must be contiguous, of the target's dtype, one per target")));
    }
    if Arc::ptr_eq(dst.storage(), values.storage()) {
        let own = values.with_slice::<T, _>(op, |s, l| collect_n(len, s[l.offset..][..len].iter().copied()))??;
        return dst.with_slice_mut::<T, _>(op, |d, _| f(d, &own));
    }
    values.with_slice::<T, _>(op, |s, l| dst.with_slice_mut::<T, _>(op, |d, _| f(d, &s[l.offset..][..len])))?
}

/// Writes `values` (contiguous, one per offset) at storage `offsets` of `dst`, in order: of
/// repeated offsets the last write wins.
pub fn put(dst: &Array, offsets: &[usize], values: &Array) -> Result<()> {
    with_dtype!(dst.dtype(), T => with_values::<T, _>(dst, values, offsets.len(), "index_put_", |d, v| {
        for (&o, &x) in offsets.iter().zip(v) {
            d[o] = x;
        }
    }))
}

/// Adds `src`'s elements (contiguous, one per target) at storage offsets `targets` of `out`, in
/// order, so that repeated targets sum the same way every run.
pub fn add_at(out: &Array, targets: &[usize], src: &Array) -> Result<()> {
    with_sum!(out.dtype(), T, add => with_values::<T, _>(out, src, targets.len(), "index_add_", |d, v| {
        for (&o, &x) in targets.iter().zip(v) {
            d[o] = add(d[o], x);
        }
    }))
}

/// `out[o, idx[j], i] += src[o, j, i]` in order of `j`, for the contiguous `out` viewed as
/// `[outer, size, inner]` about `dim` and the contiguous `src` (out's shape but `idx.len()`
/// along `dim`): whole rows of `inner` elements at a time.
pub fn index_add(out: &Array, dim: usize, idx: &[usize], src: &Array) -> Result<()> {
    if !out.is_contiguous() {
        return Err(Error::Runtime("index_add_: the output must be contiguous".into()));
    }
    let outer: usize = out.shape()[..dim].iter().product();
    let (size, inner) = (out.shape()[dim], out.shape()[dim + 1..].iter().product::<usize>());
    let base = out.storage_offset();
    with_sum!(out.dtype(), T, add => with_values::<T, _>(out, src, outer * idx.len() * inner, "index_add_", |dst, src| {
        for o in 0..outer {
            for (j, &i) in idx.iter().enumerate() {
                let from = &src[(o * idx.len() + j) * inner..][..inner];
                let to = &mut dst[base + (o * size + i) * inner..][..inner];
                for (t, &f) in to.iter_mut().zip(from) {
                    *t = add(*t, f);
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_reads_strided_indices_and_declines_out_of_range() {
        let src = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        // Index [[2, 0], [1, 1]] read through a transposed view of [[2, 1], [0, 1]].
        let index = Array::from_vec(vec![2i64, 1, 0, 1], &[2, 2]).unwrap();
        let index_at = Layout { shape: vec![2, 2], strides: vec![1, 2], offset: 0 };
        let src_at = Layout { shape: vec![2, 2], strides: vec![3, 0], offset: 0 };
        let out = gather_index(&src, &src_at, 1, &index, &index_at, &[2, 2]).unwrap().unwrap();
        assert_eq!(out.with_slice::<f32, _>("t", |s, _| s.to_vec()).unwrap(), vec![3.0, 1.0, 5.0, 5.0]);
        let wrong = Array::from_vec(vec![0u8, 3], &[1, 2]).unwrap();
        let at = Layout::contiguous(vec![1, 2]).unwrap();
        assert!(gather_index(&src, &src_at, 1, &wrong, &at, &[1, 2]).unwrap().is_none());
    }

    #[test]
    fn put_reads_values_sharing_the_target_before_writing() {
        let a = Array::from_vec(vec![0i32, 1, 2, 3, 4, 5], &[6]).unwrap();
        put(&a, &[0, 1, 2], &a.narrow(0, 3, 3).unwrap()).unwrap();
        put(&a, &[5, 4, 3, 2, 1, 0], &a).unwrap();
        assert_eq!(a.with_slice::<i32, _>("t", |s, _| s.to_vec()).unwrap(), vec![5, 4, 3, 5, 4, 3]);
    }

    #[test]
    fn sums_wrap_integers_and_round_halves_per_add() {
        let out = Array::from_vec(vec![250u8, 0], &[2]).unwrap();
        add_at(&out, &[0, 0, 1], &Array::from_vec(vec![3u8, 4, 1], &[3]).unwrap()).unwrap();
        assert_eq!(out.with_slice::<u8, _>("t", |s, _| s.to_vec()).unwrap(), vec![1, 1]);
        // 1 + 2^-11 rounds back to 1 in float16 each time.
        let h = |v: f32| half::f16::from_f32(v);
        let out = Array::from_vec(vec![h(1.0)], &[1]).unwrap();
        add_at(&out, &[0, 0], &Array::from_vec(vec![h(1.0 / 2048.0), h(1.0 / 2048.0)], &[2]).unwrap()).unwrap();
        assert_eq!(out.with_slice::<half::f16, _>("t", |s, _| s[0].to_f32()).unwrap(), 1.0);
    }

    #[test]
    fn index_add_adds_whole_rows_in_index_order() {
        let out = Array::from_vec(vec![0i64; 6], &[3, 2]).unwrap();
        let src = Array::from_vec(vec![1i64, 2, 3, 4, 5, 6], &[3, 2]).unwrap();
        index_add(&out, 0, &[2, 0, 2], &src).unwrap();
        assert_eq!(out.with_slice::<i64, _>("t", |s, _| s.to_vec()).unwrap(), vec![3, 4, 0, 0, 6, 8]);
    }
}
