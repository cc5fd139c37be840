//! The host's indexing kernels: elements read (`take`, `gather_index`), written (`put`) and
//! added (`add_at`, `index_add`) at storage offsets the tensor layer computed and checked, or at
//! the values of an integer index array read straight from host memory.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::backend::Array;
use crate::cpu::buffer::{collect_n, written_output};
use crate::cpu::num::Arith;
use crate::cpu::parallel::for_each_chunk_mut;
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
/// `dim` (both layouts view their storage at `shape`). The indices are read where they lie and
/// the elements written straight into the result, rows split across threads; an index that
/// walks no dim of the row (index_select, embedding) copies whole rows. None when one is outside
/// the dim, for the caller to word the error.
pub fn gather_index(src: &Array, src_at: &Layout, dim: usize, index: &Array, index_at: &Layout, shape: &[usize]) -> Result<Option<Array>> {
    let (stride, size) = (src.strides()[dim], src.shape()[dim] as i64);
    let n = crate::shape::numel(shape)?;
    let walk = Walk::new(shape, [(&index_at.strides, index_at.offset), (&src_at.strides, src_at.offset)]);
    let (len, [index_step, src_step]) = (walk.inner_len(), walk.inner_strides());
    let out_of_range = AtomicBool::new(false);
    let data = with_dtype!(src.dtype(), T => src.with_slice::<T, _>("index", |s, _| {
        with_dtype!(index.dtype(), I => index.with_slice::<I, _>("gather", |ix, _| {
            // The element at `from` moved `v` along the dim, or zero (and the flag) outside it.
            let at = |from: usize, v: i64| -> T {
                if (0..size).contains(&v) {
                    s[from + v as usize * stride]
                } else {
                    out_of_range.store(true, Ordering::Relaxed);
                    T::zero()
                }
            };
            written_output::<T>(n, |out| {
                for_each_chunk_mut(out, len, |start, o| {
                    let range = start / len..(start + o.len()) / len;
                    let mut rows = o.chunks_mut(len);
                    walk.for_each_row(range, |[i, from]| {
                        let row = rows.next().expect("one row per chunk of len");
                        if index_step != 0 {
                            if !gather_row(row, s, from, src_step, stride, size as usize, ix, i, index_step) {
                                out_of_range.store(true, Ordering::Relaxed);
                            }
                            return;
                        }
                        let v = ix[i].to_i64();
                        if !(0..size).contains(&v) {
                            row.iter_mut().for_each(|o| {
                                o.write(at(from, v));
                            });
                        } else if src_step == 1 {
                            let base = from + v as usize * stride;
                            for (o, &x) in row.iter_mut().zip(&s[base..base + len]) {
                                o.write(x);
                            }
                        } else {
                            let base = from + v as usize * stride;
                            for (k, o) in row.iter_mut().enumerate() {
                                o.write(s[base + k * src_step]);
                            }
                        }
                    });
                });
            })
            .and_then(|data| Array::from_vec(data, shape))
        }))
    }))???;
    Ok((!out_of_range.into_inner()).then_some(data))
}

/// One output row of a gather whose index walks the row: element `k` is src's at
/// `from + k * src_step` moved `ix[i + k * index_step]` times `stride` along a dim of `size`.
/// False, zeros written, where an index is outside the dim. Plain indexed loops, and for the
/// usual case (`x.gather(1, index)` of a matrix: a dense index row choosing from one dense line
/// of src) the line sliced once so that the range check is the only one per element: through
/// a per-element closure, two bounds checks and the stride products, 1M float32 took 1.8x
/// PyTorch.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn gather_row<T: Element, I: Element>(
    out: &mut [MaybeUninit<T>],
    s: &[T],
    from: usize,
    src_step: usize,
    stride: usize,
    size: usize,
    ix: &[I],
    i: usize,
    index_step: usize,
) -> bool {
    let len = out.len();
    let mut in_range = true;
    if src_step == 0 && index_step == 1 && stride == 1 && size > 0 {
        let (line, ix) = (&s[from..from + size], &ix[i..i + len]);
        for k in 0..len {
            // A negative index wraps to past the end: one unsigned comparison checks both ends.
            let v = ix[k].to_i64() as usize;
            let ok = v < size;
            in_range &= ok;
            out[k].write(if ok { line[v] } else { T::zero() });
        }
        return in_range;
    }
    for k in 0..len {
        let v = ix[i + k * index_step].to_i64() as usize;
        let ok = v < size;
        in_range &= ok;
        out[k].write(if ok { s[from + k * src_step + v * stride] } else { T::zero() });
    }
    in_range
}

/// `out` (contiguous, from element 0) with `src` (contiguous, of out's dtype and `index`'s shape)
/// scattered along `dim` by the integer array `index`: element `i` of src goes to out's position
/// `i` with its `dim` coordinate replaced by index's element `i`, written (`add` false: of
/// repeated positions the last in index order wins) or added in index order. One pass reading
/// the indices where they lie. False, out partly written, when an index is outside the dim.
pub fn scatter_index(out: &Array, dim: usize, index: &Array, index_at: &Layout, src: &Array, add: bool) -> Result<bool> {
    if !out.is_contiguous() || out.storage_offset() != 0 {
        return Err(Error::Runtime("scatter: the output must be contiguous".into()));
    }
    let (stride, size) = (out.strides()[dim], out.shape()[dim] as i64);
    let mut out_at = out.layout().clone();
    out_at.shape = index_at.shape.clone();
    out_at.strides[dim] = 0;
    let n = crate::shape::numel(&index_at.shape)?;
    if n == 0 {
        return Ok(true);
    }
    // Along a dim other than 0, index row r writes only into output row r: rows are split
    // between threads, each output element still receiving its values in index order (the
    // same sums on any number of threads).
    let rows = index_at.shape[0];
    let by_rows = dim != 0 && index_at.shape.len() > 1 && rows > 1 && crate::cpu::parallel::worth_splitting(n);
    let in_range = with_sum!(out.dtype(), T, sum => with_values::<T, _>(out, src, n, "scatter", |d, v| {
        with_dtype!(index.dtype(), I => index.with_slice::<I, _>("scatter", |ix, _| {
            // Index rows `r` into `d`, the output from row r.start on, from `v`, their values.
            let scatter_rows = |d: &mut [T], v: &[T], r: std::ops::Range<usize>| -> bool {
                let mut shape = index_at.shape.clone();
                shape[0] = r.len();
                let from = index_at.offset + r.start * index_at.strides[0];
                let walk = Walk::new(&shape, [(&index_at.strides, from), (&out_at.strides, 0)]);
                let (len, [index_step, out_step]) = (walk.inner_len(), walk.inner_strides());
                let mut next = 0;
                let mut in_range = true;
                walk.for_each_row(0..walk.rows(), |[i, to]| {
                    if !in_range {
                        return;
                    }
                    if index_step == 1 && out_step == 0 && stride == 1 && size > 0 {
                        // The usual scatter (`scatter_add(1, index, src)` of a matrix, and
                        // gather's gradient): a dense index row into one dense output line,
                        // sliced once so that the range check is the only one per element.
                        let (line, ix, v) = (&mut d[to..to + size as usize], &ix[i..i + len], &v[next..next + len]);
                        in_range = if add { scatter_line(line, ix, v, sum) } else { scatter_line(line, ix, v, |_, v| v) };
                        next += len;
                        return;
                    }
                    for (k, &x) in v[next..next + len].iter().enumerate() {
                        let j = ix[i + k * index_step].to_i64();
                        if !(0..size).contains(&j) {
                            in_range = false;
                            return;
                        }
                        let t = &mut d[to + k * out_step + j as usize * stride];
                        *t = if add { sum(*t, x) } else { x };
                    }
                    next += len;
                });
                in_range
            };
            if !by_rows {
                return scatter_rows(d, v, 0..rows);
            }
            let (out_row, per_row) = (out_at.strides[0], n / rows);
            let in_range = AtomicBool::new(true);
            crate::cpu::parallel::for_each_chunk_weighted(&mut d[..rows * out_row], out_row, per_row.div_ceil(out_row.max(1)), |start, chunk| {
                let r = start / out_row..(start + chunk.len()) / out_row;
                if !scatter_rows(chunk, &v[r.start * per_row..r.end * per_row], r) {
                    in_range.store(false, Ordering::Relaxed);
                }
            });
            in_range.into_inner()
        }))
    }))??;
    Ok(in_range)
}

/// `line[ix[k]] = combine(line[ix[k]], v[k])` for each k in order; false at the first index out
/// of the line (the rest left undone). Its own loop for each `combine`: the choice between add
/// and overwrite, read from memory each step, made the loop a third longer.
#[inline(always)]
fn scatter_line<T: Copy, I: Element>(line: &mut [T], ix: &[I], v: &[T], combine: impl Fn(T, T) -> T) -> bool {
    for (&j, &v) in ix.iter().zip(v) {
        let Some(t) = line.get_mut(j.to_i64() as usize) else { return false };
        *t = combine(*t, v);
    }
    true
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
