//! Elementwise maps over one, two or three strided inputs into a new contiguous output, with
//! contiguous and scalar-broadcast fast paths compiled through the SIMD layer.

use std::mem::MaybeUninit;
use std::ops::Range;

use crate::cpu::buffer::written_output;
use crate::cpu::parallel::for_each_chunk_mut;
use crate::cpu::simd::{dispatch, map_slice, map_slice_in_place, map_slice_split, map_slice_split_in_place, vectorized, zip_slices};
use crate::cpu::walk::Walk;
use crate::dtype::Element;
use crate::error::Result;
use crate::layout::Layout;

/// `out[i] = f(x[i])` where `x` is viewed through `xl` (whose shape is the output's).
// Never inlined: each instantiation gets its own inlining budget, so the element
// function always inlines into the vectorised loops (inside one big caller it did not).
#[inline(never)]
pub fn map1<T: Element, U: Element>(x: &[T], xl: &Layout, f: impl Fn(T) -> U + Sync) -> Result<Vec<U>> {
    let n = xl.numel();
    written_output(n, |out| {
        if xl.is_contiguous() {
            let x = &x[xl.offset..xl.offset + n];
            for_each_chunk_mut(out, 1, |start, o| map_slice(&x[start..start + o.len()], o, &f));
            return;
        }
        let walk = Walk::new(&xl.shape, [(&xl.strides, xl.offset)]);
        if let Some(t) = Transposed::of(&walk) {
            t.map(x, out, &f);
            return;
        }
        let (len, [sx]) = (walk.inner_len(), walk.inner_strides());
        for_each_chunk_mut(out, len, |start, o| {
            let rows_range = start / len..(start + o.len()) / len;
            if sx == 1 {
                // Contiguous rows (a narrowed copy, a head split off a matrix, a row broadcast
                // down a matrix): one SIMD dispatch for the chunk's rows.
                return map_contiguous_rows(x, &walk, rows_range, o, &f);
            }
            let mut rows = o.chunks_mut(len);
            walk.for_each_row(rows_range, |[ox]| {
                let row = rows.next().unwrap();
                if sx == 0 {
                    // A broadcast row (the gradient of a sum over the last dim, expanded back):
                    // one value, stored at memset speed rather than gathered per element.
                    let v = f(x[ox]);
                    return vectorized(
                        #[inline(always)]
                        || {
                            for o in row.iter_mut() {
                                o.write(v);
                            }
                        },
                    );
                }
                vectorized(
                    #[inline(always)]
                    || {
                        for (i, o) in row.iter_mut().enumerate() {
                            o.write(f(x[ox + i * sx]));
                        }
                    },
                )
            });
        });
    })
}

/// `out`'s rows (each `walk.inner_len()` long) from the input rows `rows` of `walk`, whose inner
/// stride is 1: `f` over each, all inside one SIMD dispatch (per row, the dispatch cost more
/// than copying a 32-element row: a `(8, 4, 64, 32)` head split took 3x PyTorch's time).
#[inline(always)]
fn map_contiguous_rows<T: Copy, U>(x: &[T], walk: &Walk<1>, rows: Range<usize>, out: &mut [MaybeUninit<U>], f: &impl Fn(T) -> U) {
    struct Op<'a, T, U, F> {
        x: &'a [T],
        walk: &'a Walk<1>,
        rows: Range<usize>,
        out: &'a mut [MaybeUninit<U>],
        f: &'a F,
    }
    impl<T: Copy, U, F: Fn(T) -> U> pulp::WithSimd for Op<'_, T, U, F> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _: S) {
            let Op { x, walk, rows, out, f } = self;
            let len = walk.inner_len();
            let mut at = 0;
            walk.for_each_row_inlined(rows, |[ox]| {
                let (src, dst) = (&x[ox..ox + len], &mut out[at..at + len]);
                for i in 0..len {
                    dst[i].write(f(src[i]));
                }
                at += len;
            });
        }
    }
    dispatch(Op { x, walk, rows, out, f })
}

/// `map1` of `slow`, except that a contiguous input takes `fast` on each block whose elements
/// all pass `ok` (`simd::map_slice_split`); `fast` must equal `slow` wherever `ok` holds.
#[inline(never)]
pub fn map1_split<T: Element, U: Element>(
    x: &[T],
    xl: &Layout,
    ok: impl Fn(T) -> bool + Sync,
    fast: impl Fn(T) -> U + Sync,
    slow: impl Fn(T) -> U + Sync,
) -> Result<Vec<U>> {
    if !xl.is_contiguous() {
        return map1(x, xl, slow);
    }
    let n = xl.numel();
    written_output(n, |out| {
        let x = &x[xl.offset..xl.offset + n];
        for_each_chunk_mut(out, 1, |start, o| map_slice_split(&x[start..start + o.len()], o, &ok, &fast, &slow));
    })
}

/// A kernel that maps whole slices of values (explicit SIMD, tables in registers) rather than
/// one value at a time; `map` and `map_in_place` give the same bits.
pub trait SliceKernel<T>: Sync {
    fn map(&self, x: &[T], out: &mut [MaybeUninit<T>]);
    fn map_in_place(&self, x: &mut [T]);
}

/// `map1` through a slice kernel: a contiguous input chunk by chunk; any other layout gathered
/// into the output first and mapped there in place, so that every layout gets the same bits.
#[inline(never)]
pub fn map1_slices<T: Element>(x: &[T], xl: &Layout, k: &impl SliceKernel<T>) -> Result<Vec<T>> {
    if !xl.is_contiguous() {
        let mut out = map1(x, xl, |v: T| v)?;
        map_slices_in_place(&mut out, k);
        return Ok(out);
    }
    let n = xl.numel();
    written_output(n, |out| {
        let x = &x[xl.offset..xl.offset + n];
        for_each_chunk_mut(out, 1, |start, o| k.map(&x[start..start + o.len()], o));
    })
}

/// A slice kernel over a run of storage, in place.
#[inline(never)]
pub fn map_slices_in_place<T: Element>(x: &mut [T], k: &impl SliceKernel<T>) {
    for_each_chunk_mut(x, 1, |_, c| k.map_in_place(c));
}

/// `x[i] = f(x[i])` over a run of storage, in place (the in-place unary ops, over a dense
/// view's run: each element stays where it is, so storage order serves any layout).
#[inline(never)]
pub fn map_in_place<T: Element>(x: &mut [T], f: impl Fn(T) -> T + Sync) {
    for_each_chunk_mut(x, 1, |_, c| map_slice_in_place(c, &f));
}

/// `map_in_place` with `map1_split`'s choice of kernel per block.
#[inline(never)]
pub fn map_split_in_place<T: Element>(
    x: &mut [T],
    ok: impl Fn(T) -> bool + Sync,
    fast: impl Fn(T) -> T + Sync,
    slow: impl Fn(T) -> T + Sync,
) {
    for_each_chunk_mut(x, 1, |_, c| map_slice_split_in_place(c, &ok, &fast, &slow));
}

/// A walk whose last two dims are a transposed matrix (the input is contiguous down columns):
/// copied in 16x16 blocks, each read as sixteen contiguous runs of the input and written as
/// sixteen runs of the output (for float32 a whole cache line each, so that no line is touched
/// twice: with 8x8 blocks a power-of-two matrix's half-written output lines, all in one cache
/// set, were evicted between their two halves, and a 512x512 transpose ran at 4x a clone), the blocks walked in bands of `BAND` output rows by `BAND`
/// columns so that the band's input and output lines stay in cache while it is filled.
struct Transposed {
    /// Offsets of each matrix, one per index of the leading dims.
    bases: Vec<usize>,
    rows: usize,
    cols: usize,
    /// Input stride between consecutive output columns.
    col_stride: usize,
}

impl Transposed {
    /// Matrices smaller than this in either dim take the general strided walk.
    const MIN_SIDE: usize = 32;
    /// Side of the blocks.
    const BLOCK: usize = 16;
    /// Output rows (and columns) a band covers. Measured on a 2048x2048 float32 transpose:
    /// 256 ran 3.6 ms on one core, 32 (one L1 tile) 9.4 ms: the longer input runs let the
    /// prefetchers follow the eight strided input rows.
    const BAND: usize = 256;

    fn of(walk: &Walk<1>) -> Option<Transposed> {
        let (shape, strides) = (walk.shape(), walk.strides(0));
        let nd = shape.len();
        if nd < 2 || strides[nd - 2] != 1 || strides[nd - 1] <= 1 || shape[nd - 1] < Self::MIN_SIDE || shape[nd - 2] < Self::MIN_SIDE {
            return None;
        }
        let lead = Layout { shape: shape[..nd - 2].to_vec(), strides: strides[..nd - 2].to_vec(), offset: walk.offset(0) };
        // Without room for the offsets the general walk serves (it needs none).
        let bases = crate::cpu::reduce::element_offsets(&lead).ok()?;
        Some(Transposed { bases, rows: shape[nd - 2], cols: shape[nd - 1], col_stride: strides[nd - 1] })
    }

    fn map<T: Element, U: Element>(&self, x: &[T], out: &mut [MaybeUninit<U>], f: &(impl Fn(T) -> U + Sync)) {
        let (cs, cols) = (self.col_stride, self.cols);
        self.map_blocks(
            x,
            out,
            f,
            #[inline(always)]
            |x: &[T], src: usize, o: &mut [MaybeUninit<U>], dst: usize| {
                // BLOCK runs of BLOCK input elements (output columns c.., rows r..).
                let mut t = [[T::zero(); Self::BLOCK]; Self::BLOCK];
                for (i, run) in t.iter_mut().enumerate() {
                    run.copy_from_slice(&x[src + i * cs..][..Self::BLOCK]);
                }
                for j in 0..Self::BLOCK {
                    let row = &mut o[dst + j * cols..][..Self::BLOCK];
                    for i in 0..Self::BLOCK {
                        row[i].write(f(t[i][j]));
                    }
                }
            },
        )
    }

    /// The `n` elements copied: 4-byte ones with each whole block transposed in AVX-512
    /// registers where the CPU has them, others element by element.
    fn copy<T: Element>(&self, x: &[T], n: usize) -> Result<Vec<T>> {
        #[cfg(target_arch = "x86_64")]
        if let (4, Some(simd)) = (std::mem::size_of::<T>(), crate::cpu::simd::avx512()) {
            return written_output(n, |out| self.copy_4_bytes(simd, x, out));
        }
        written_output(n, |out| self.map(x, out, &|v| v))
    }

    /// The copy of 4-byte elements, each whole block transposed in AVX-512 registers.
    #[cfg(target_arch = "x86_64")]
    fn copy_4_bytes<T: Element>(&self, simd: pulp::x86::V4, x: &[T], out: &mut [MaybeUninit<T>]) {
        assert_eq!(std::mem::size_of::<T>(), 4, "a copy of 4-byte elements");
        let (cs, cols, b) = (self.col_stride, self.cols, Self::BLOCK);
        self.map_blocks(
            x,
            out,
            &|v| v,
            #[inline(always)]
            |x: &[T], src: usize, o: &mut [MaybeUninit<T>], dst: usize| {
                // The block's last run and last output row lie inside their slices.
                assert!(src + (b - 1) * cs + b <= x.len() && dst + (b - 1) * cols + b <= o.len());
                // SAFETY: bounds just checked; 4-byte elements moved as float32 bits.
                unsafe {
                    let (s, d) = (x.as_ptr().add(src) as *const f32, o.as_mut_ptr().add(dst) as *mut f32);
                    crate::cpu::transpose_avx512::transpose16(simd, s, cs, d, cols)
                }
            },
        )
    }

    /// `f` of every element, each whole block by `block(x, src, o, dst)`: output rows r.., columns
    /// c.. at `o[dst..]` (rows `cols` apart) from BLOCK input runs at `x[src..]` (`col_stride`
    /// apart); the edges element by element.
    fn map_blocks<T: Element, U: Element>(
        &self,
        x: &[T],
        out: &mut [MaybeUninit<U>],
        f: &(impl Fn(T) -> U + Sync),
        block: impl Fn(&[T], usize, &mut [MaybeUninit<U>], usize) + Sync,
    ) {
        let (rows, cols) = (self.rows, self.cols);
        // Chunks are whole groups of BLOCK output rows (a matrix's last group may be shorter).
        for_each_chunk_mut(out, Self::BLOCK * cols, |start, chunk| {
            let mut done = 0;
            while done < chunk.len() {
                let flat = start + done;
                let (m, row0) = (flat / (rows * cols), (flat % (rows * cols)) / cols);
                let band = Self::BAND.min(rows - row0).min((chunk.len() - done) / cols);
                let o = &mut chunk[done..done + band * cols];
                vectorized(
                    #[inline(always)]
                    || self.band(x, self.bases[m] + row0, band, o, f, &block),
                );
                done += band * cols;
            }
        });
    }

    /// Output rows `0..band` of one matrix (`o`, `band * cols` long) from the input starting
    /// at `src` (its element for output row 0, column 0).
    #[inline(always)]
    fn band<T: Element, U: Element>(
        &self,
        x: &[T],
        src: usize,
        band: usize,
        o: &mut [MaybeUninit<U>],
        f: &impl Fn(T) -> U,
        block: &impl Fn(&[T], usize, &mut [MaybeUninit<U>], usize),
    ) {
        let (cols, cs, b) = (self.cols, self.col_stride, Self::BLOCK);
        let (full_rows, full_cols) = (band - band % b, cols - cols % b);
        for c0 in (0..cols).step_by(Self::BAND) {
            let c_end = (c0 + Self::BAND).min(full_cols);
            for c in (c0..c_end).step_by(b) {
                for r in (0..full_rows).step_by(b) {
                    block(x, src + c * cs + r, o, r * cols + c);
                }
            }
        }
        // The edges: rows past the last whole block, then columns past it.
        for r in full_rows..band {
            for c in 0..cols {
                o[r * cols + c].write(f(x[src + r + c * cs]));
            }
        }
        for r in 0..full_rows {
            for c in full_cols..cols {
                o[r * cols + c].write(f(x[src + r + c * cs]));
            }
        }
    }
}

/// `x` viewed through `xl` copied into a new contiguous array (and its layout) when its last two
/// dims are a transposed matrix (`Transposed`); None for any other view.
fn dense_if_transposed<T: Element>(x: &[T], xl: &Layout) -> Result<Option<(Vec<T>, Layout)>> {
    match transposed(xl) {
        Some(t) => Ok(Some((t.copy(x, xl.numel())?, Layout::contiguous(xl.shape.clone())?))),
        None => Ok(None),
    }
}

/// The transposed matrices `xl` views (`Transposed`), None for a contiguous or any other view.
fn transposed(xl: &Layout) -> Option<Transposed> {
    if xl.is_contiguous() {
        return None;
    }
    Transposed::of(&Walk::new(&xl.shape, [(&xl.strides, xl.offset)]))
}

/// A contiguous copy of `x` viewed through `xl`: `map1` with the identity, but a transposed
/// matrix of 4-byte elements has its blocks transposed in AVX-512 registers where the CPU has
/// them (the weight `w.t()` that a product copies row-major, `.contiguous()` of a transpose).
pub fn dense_copy<T: Element>(x: &[T], xl: &Layout) -> Result<Vec<T>> {
    match transposed(xl) {
        Some(t) => t.copy(x, xl.numel()),
        None => map1(x, xl, |v| v),
    }
}

/// `out[i] = f(a[i], b[i])` with both inputs viewed through layouts of the output's shape.
// Never inlined: each instantiation gets its own inlining budget, so the element
// function always inlines into the vectorised loops (inside one big caller it did not).
#[inline(never)]
pub fn map2<A: Element, B: Element, U: Element>(
    a: &[A],
    al: &Layout,
    b: &[B],
    bl: &Layout,
    f: impl Fn(A, B) -> U + Sync,
) -> Result<Vec<U>> {
    written_output(al.numel(), |out| for_each_row2(al, bl, out, |oa, sa, ob, sb, o| row2(a, oa, sa, b, ob, sb, o, &f)))
}

/// `map2` of float32 through `kernel`, a function of whole slices (explicit SIMD) that maps
/// each pair of elements on its own: rows whose operands are both contiguous are passed where
/// they lie, other rows gathered a block at a time, and every layout gets the same bits.
#[inline(never)]
pub fn map2_f32_slices(
    a: &[f32],
    al: &Layout,
    b: &[f32],
    bl: &Layout,
    kernel: impl Fn(&[f32], &[f32], &mut [MaybeUninit<f32>]) + Sync,
) -> Result<Vec<f32>> {
    written_output(al.numel(), |out| {
        for_each_row2(al, bl, out, |oa, sa, ob, sb, o| {
            let n = o.len();
            if (sa, sb) == (1, 1) {
                return kernel(&a[oa..oa + n], &b[ob..ob + n], o);
            }
            const GATHER: usize = 256;
            let (mut ga, mut gb) = ([0f32; GATHER], [0f32; GATHER]);
            for (c, o) in o.chunks_mut(GATHER).enumerate() {
                let (first, m) = (c * GATHER, o.len());
                for i in 0..m {
                    ga[i] = a[oa + (first + i) * sa];
                    gb[i] = b[ob + (first + i) * sb];
                }
                kernel(&ga[..m], &gb[..m], o);
            }
        })
    })
}

/// Calls `row(oa, sa, ob, sb, out_row)` for runs of the output (split between threads) with
/// the storage offsets and strides of both inputs' elements along them: whole rows of the
/// walk, or pieces of its one row.
#[inline(always)]
fn for_each_row2<U: Send>(
    al: &Layout,
    bl: &Layout,
    out: &mut [MaybeUninit<U>],
    row: impl Fn(usize, usize, usize, usize, &mut [MaybeUninit<U>]) + Sync,
) {
    let walk = Walk::new(&al.shape, [(&al.strides, al.offset), (&bl.strides, bl.offset)]);
    let (len, [sa, sb]) = (walk.inner_len(), walk.inner_strides());
    let unit = if walk.rows() == 1 { 1 } else { len };
    for_each_chunk_mut(out, unit, |start, o| {
        if walk.rows() == 1 {
            // One long row: chunks split it directly.
            row(al.offset + start * sa, sa, bl.offset + start * sb, sb, o);
            return;
        }
        let rows_range = start / len..(start + o.len()) / len;
        let mut rows = o.chunks_mut(len);
        walk.for_each_row(rows_range, |[oa, ob]| row(oa, sa, ob, sb, rows.next().unwrap()));
    });
}

#[inline(always)]
fn row2<A: Element, B: Element, U: Element>(
    a: &[A],
    oa: usize,
    sa: usize,
    b: &[B],
    ob: usize,
    sb: usize,
    out: &mut [MaybeUninit<U>],
    f: &impl Fn(A, B) -> U,
) {
    let n = out.len();
    match (sa, sb) {
        (1, 1) => zip_slices(&a[oa..oa + n], &b[ob..ob + n], out, f),
        (1, 0) => {
            // A tensor and a number: the number is copied into a local before the loop. Read
            // through a closure's captures it was reloaded per element (a store to `out` might
            // alias it), which kept the loop scalar: x * 2.0 took 0.63 ms at 1M float32, x * x
            // 0.35.
            let (a, bv) = (&a[oa..oa + n], b[ob]);
            vectorized(
                #[inline(always)]
                move || {
                    let (out, bv) = (out, bv);
                    let n = out.len();
                    let a = &a[..n];
                    for i in 0..n {
                        out[i].write(f(a[i], bv));
                    }
                },
            )
        }
        (0, 1) => {
            let (av, b) = (a[oa], &b[ob..ob + n]);
            vectorized(
                #[inline(always)]
                move || {
                    let (out, av) = (out, av);
                    let n = out.len();
                    let b = &b[..n];
                    for i in 0..n {
                        out[i].write(f(av, b[i]));
                    }
                },
            )
        }
        _ => vectorized(
            #[inline(always)]
            || {
                for (i, o) in out.iter_mut().enumerate() {
                    o.write(f(a[oa + i * sa], b[ob + i * sb]));
                }
            },
        ),
    }
}

/// `out[i] = f(a[i], b[i], c[i])`, for `where` and tensor-bounded `clamp`.
// Never inlined: each instantiation gets its own inlining budget, so the element
// function always inlines into the vectorised loops (inside one big caller it did not).
#[inline(never)]
pub fn map3<A: Element, B: Element, C: Element, U: Element>(
    a: &[A],
    al: &Layout,
    b: &[B],
    bl: &Layout,
    c: &[C],
    cl: &Layout,
    f: impl Fn(A, B, C) -> U + Sync,
) -> Result<Vec<U>> {
    let n = al.numel();
    // An operand that is a matrix transposed against the output (masked_fill or tril of `x.t()`)
    // is first copied dense in blocks, as PyTorch clones it: walked in the output's order it read
    // one element per cache line, its lines 4 KiB apart in one cache set (masked_fill of a
    // transposed 1024x1024 float32 took 15 ms, 1.7x PyTorch).
    if n >= Transposed::MIN_SIDE * Transposed::MIN_SIDE {
        if let Some((a, al)) = dense_if_transposed(a, al)? {
            return map3(&a, &al, b, bl, c, cl, f);
        }
        if let Some((b, bl)) = dense_if_transposed(b, bl)? {
            return map3(a, al, &b, &bl, c, cl, f);
        }
        if let Some((c, cl)) = dense_if_transposed(c, cl)? {
            return map3(a, al, b, bl, &c, &cl, f);
        }
    }
    written_output(n, |out| {
        let walk = Walk::new(&al.shape, [(&al.strides, al.offset), (&bl.strides, bl.offset), (&cl.strides, cl.offset)]);
        let (len, [sa, sb, sc]) = (walk.inner_len(), walk.inner_strides());
        let unit = if walk.rows() == 1 { 1 } else { len };
        for_each_chunk_mut(out, unit, |start, o| {
            if walk.rows() == 1 {
                // One long row: chunks split it directly.
                let at = |k: usize, s: usize| walk.offset(k) + start * s;
                row3(a, at(0, sa), sa, b, at(1, sb), sb, c, at(2, sc), sc, o, &f);
                return;
            }
            let rows_range = start / len..(start + o.len()) / len;
            let mut rows = o.chunks_mut(len);
            walk.for_each_row(rows_range, |[oa, ob, oc]| {
                row3(a, oa, sa, b, ob, sb, c, oc, sc, rows.next().unwrap(), &f);
            });
        });
    })
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn row3<A: Element, B: Element, C: Element, U: Element>(
    a: &[A],
    oa: usize,
    sa: usize,
    b: &[B],
    ob: usize,
    sb: usize,
    c: &[C],
    oc: usize,
    sc: usize,
    out: &mut [MaybeUninit<U>],
    f: &impl Fn(A, B, C) -> U,
) {
    let n = out.len();
    vectorized(
        #[inline(always)]
        || {
            if (sa, sb, sc) == (1, 1, 1) {
                // Dense rows: zipped slices, no index arithmetic or bounds checks per element
                // (`where` ran at a third of PyTorch's speed without this).
                let (ra, rb, rc) = (&a[oa..oa + n], &b[ob..ob + n], &c[oc..oc + n]);
                for (o, ((&x, &y), &z)) in out.iter_mut().zip(ra.iter().zip(rb).zip(rc)) {
                    o.write(f(x, y, z));
                }
            } else if n > 0 && sa == 1 && sb <= 1 && sc <= 1 {
                // A dense first operand with a number broadcast along the row (masked_fill,
                // `where(mask, 0.0, x)`): the number read once, and the loop vectorises (indexed
                // with a stride of 0 it stayed scalar and branched on the mask: 7 ms at 1M
                // elements of a random mask, 5x the dense path).
                let ra = &a[oa..oa + n];
                match (sb, sc) {
                    (0, 1) => {
                        let (y, rc) = (b[ob], &c[oc..oc + n]);
                        for (o, (&x, &z)) in out.iter_mut().zip(ra.iter().zip(rc)) {
                            o.write(f(x, y, z));
                        }
                    }
                    (1, 0) => {
                        let (rb, z) = (&b[ob..ob + n], c[oc]);
                        for (o, (&x, &y)) in out.iter_mut().zip(ra.iter().zip(rb)) {
                            o.write(f(x, y, z));
                        }
                    }
                    _ => {
                        let (y, z) = (b[ob], c[oc]);
                        for (o, &x) in out.iter_mut().zip(ra) {
                            o.write(f(x, y, z));
                        }
                    }
                }
            } else {
                for (i, o) in out.iter_mut().enumerate() {
                    o.write(f(a[oa + i * sa], b[ob + i * sb], c[oc + i * sc]));
                }
            }
        },
    )
}

/// Writes `src` (viewed through `sl`, shape of `dl`) into `dst` viewed through `dl`, converting
/// with `f`. The destination may be any strided view; it must not overlap `src`'s memory.
pub fn assign<S: Element, D: Element>(dst: &mut [D], dl: &Layout, src: &[S], sl: &Layout, f: impl Fn(S) -> D + Sync) {
    update(dst, dl, src, sl, move |_, s| f(s))
}

/// `dst = f(dst, src)` element by element, `src` viewed through `sl` (shape of `dl`, broadcast
/// strides allowed) and `dst` through `dl`, any non-overlapping strided view not overlapping
/// `src`'s memory: in-place ops without a temporary. A contiguous destination splits across
/// the kernel threads.
pub fn update<S: Element, D: Element>(dst: &mut [D], dl: &Layout, src: &[S], sl: &Layout, f: impl Fn(D, S) -> D + Sync) {
    let n = dl.numel();
    if n == 0 {
        return;
    }
    let walk = Walk::new(&dl.shape, [(&dl.strides, dl.offset), (&sl.strides, sl.offset)]);
    let (len, [sd, ss]) = (walk.inner_len(), walk.inner_strides());
    // Each row's loop runs inside `vectorized`; the closure around it need not inline.
    let row = |d: &mut [D], od: usize, sd: usize, os: usize, len: usize| {
        vectorized(
            #[inline(always)]
            || match (sd, ss) {
                (1, 1) => {
                    // Indexed over two slices of one length (no bounds checks left): the zip
                    // of their iterators stayed a call per row in builds without LTO.
                    let (d, s) = (&mut d[od..od + len], &src[os..os + len]);
                    for i in 0..len {
                        d[i] = f(d[i], s[i]);
                    }
                }
                (1, 0) => {
                    let s = src[os];
                    for d in &mut d[od..od + len] {
                        *d = f(*d, s);
                    }
                }
                _ => {
                    for i in 0..len {
                        d[od + i * sd] = f(d[od + i * sd], src[os + i * ss]);
                    }
                }
            },
        )
    };
    if !dl.is_contiguous() {
        walk.for_each_row(0..walk.rows(), |[od, os]| row(dst, od, sd, os, len));
        return;
    }
    let dst = &mut dst[dl.offset..dl.offset + n];
    let unit = if walk.rows() == 1 { 1 } else { len };
    for_each_chunk_mut(dst, unit, |start, d| {
        if walk.rows() == 1 {
            // One long row: chunks split it directly.
            row(d, 0, 1, sl.offset + start * ss, d.len());
            return;
        }
        let mut at = 0;
        walk.for_each_row(start / len..(start + d.len()) / len, |[_, os]| {
            row(d, at, 1, os, len);
            at += len;
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Element `index` of the strided view `l`, read one coordinate at a time.
    fn naive(x: &[f32], l: &Layout, mut index: usize) -> f32 {
        let mut at = l.offset;
        for d in (0..l.ndim()).rev() {
            at += (index % l.shape[d]) * l.strides[d];
            index /= l.shape[d];
        }
        x[at]
    }

    #[test]
    fn transposed_copies_match_the_strided_definition() {
        // Whole blocks, ragged edges, leading dims, a sliced input, and enough elements to be
        // split across threads (chunks that start inside a matrix).
        let cases: [(Vec<usize>, Layout); 5] = [
            (vec![64, 64], Layout::contiguous(vec![64, 64]).unwrap().transpose(0, 1)),
            (vec![37, 45], Layout::contiguous(vec![37, 45]).unwrap().transpose(0, 1)),
            (vec![3, 41, 300], Layout::contiguous(vec![3, 41, 300]).unwrap().transpose(1, 2)),
            (vec![90, 80], Layout::contiguous(vec![90, 80]).unwrap().slice(1, 3, 80, 1).unwrap().transpose(0, 1)),
            (vec![2, 333, 517], Layout::contiguous(vec![2, 333, 517]).unwrap().transpose(1, 2)),
        ];
        for (storage_shape, l) in cases {
            let n: usize = storage_shape.iter().product();
            let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let out = map1(&x, &l, |v| v * 2.0).unwrap();
            for (i, &v) in out.iter().enumerate() {
                assert_eq!(v, naive(&x, &l, i) * 2.0, "layout {l:?}, element {i}");
            }
            // The copy (on AVX-512, each block through registers), bit for bit: NaN payloads,
            // -0.0 and an int32's bits pass unchanged.
            let bits: Vec<f32> = (0..n).map(|i| f32::from_bits((i as u32).wrapping_mul(0x9e37_79b9))).collect();
            let copy = dense_copy(&bits, &l).unwrap();
            for (i, &v) in copy.iter().enumerate() {
                assert_eq!(v.to_bits(), naive(&bits, &l, i).to_bits(), "layout {l:?}, element {i}");
            }
            let ints: Vec<i32> = bits.iter().map(|v| v.to_bits() as i32).collect();
            let copy: Vec<u32> = dense_copy(&ints, &l).unwrap().into_iter().map(|v| v as u32).collect();
            assert_eq!(copy, dense_copy(&bits, &l).unwrap().into_iter().map(f32::to_bits).collect::<Vec<_>>());
        }
    }
}
