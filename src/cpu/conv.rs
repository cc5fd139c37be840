//! 2-D convolution kernels: im2col + gemm forward, its transpose (col2im) and the weight gradient.
//!
//! Every kernel works on contiguous NCHW images and an `(O, C/groups, kh, kw)` weight. A patch
//! matrix holds one row per output position and one column per (channel, ky, kx) tap, so the
//! rows of one image are contiguous and images can be unfolded in parallel.

use std::mem::MaybeUninit;

use gemm::Parallelism;

use crate::backend::Array;
use crate::cpu::buffer::{filled, try_written_output, written_output, FirstError};
use crate::cpu::cast::dense_slice;
use crate::cpu::matmul::{gemm_into, MatMut, MatRef};
use crate::cpu::num::Arith;
use crate::cpu::parallel::{for_each_exact_chunk_pair, get_num_threads, map_tasks, worth_splitting};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::ops::conv_geometry::ConvGeom;

/// Where each kernel tap reads, computed once per call: for every kernel row the span of output
/// rows whose input row lies inside the image, and for every kernel column which output columns
/// read which input columns.
struct TapPlan {
    /// `rows[ky]`: (first output row, its input row, count) of the output rows that read inside
    /// the image; consecutive output rows read input rows `stride[0]` apart.
    rows: Vec<Option<(usize, usize, usize)>>,
    /// `columns[kx]`: the input column of each output column.
    columns: Vec<Vec<Option<usize>>>,
    /// `runs[kx]`: with unit stride, the output columns that read consecutive input columns, as
    /// (first output column, first input column, length).
    runs: Vec<Option<(usize, usize, usize)>>,
    /// Whether some tap reads padding (then the patch matrix needs zeros where it does).
    reads_padding: bool,
}

impl TapPlan {
    fn new(g: &ConvGeom) -> TapPlan {
        let taps_along = |a: usize| -> Vec<Vec<Option<usize>>> {
            (0..g.kernel[a]).map(|k| (0..g.out_size[a]).map(|o| g.source(a, o, k)).collect()).collect()
        };
        let (rows, columns) = (taps_along(0), taps_along(1));
        let inside = |taps: &Vec<Vec<Option<usize>>>| taps.iter().flatten().all(Option::is_some);
        let reads_padding = !(inside(&rows) && inside(&columns));
        let rows = rows.iter().map(|r| inside_span(r)).collect();
        let runs = columns.iter().map(|c| unit_stride_run(c)).collect();
        TapPlan { rows, columns, runs, reads_padding }
    }

    /// Calls `tap_rows(tap, channel, kx, oy, iy, count)` for every kernel tap that reads some
    /// input row: output rows `oy..oy + count` read input rows `iy, iy + stride[0], ...`.
    #[inline(always)]
    fn for_each_tap(&self, g: &ConvGeom, mut tap_rows: impl FnMut(usize, usize, usize, usize, usize, usize)) {
        let [kh, kw] = g.kernel;
        for c in 0..g.group_in() {
            for (ky, span) in self.rows.iter().enumerate() {
                let Some((oy, iy, count)) = *span else { continue };
                for kx in 0..kw {
                    tap_rows((c * kh + ky) * kw + kx, c, kx, oy, iy, count);
                }
            }
        }
    }
}

/// The span of positions along one axis whose source lies inside the image, as (first
/// position, its source, count). Sources grow with the position, so the span is contiguous.
fn inside_span(sources: &[Option<usize>]) -> Option<(usize, usize, usize)> {
    let lo = sources.iter().position(Option::is_some)?;
    let hi = sources.iter().rposition(Option::is_some)? + 1;
    Some((lo, sources[lo]?, hi - lo))
}

/// The contiguous run of output columns whose input columns are consecutive (unit stride), as
/// (first output column, first input column, length).
fn unit_stride_run(cols: &[Option<usize>]) -> Option<(usize, usize, usize)> {
    let (lo, first, len) = inside_span(cols)?;
    let consecutive = cols[lo..lo + len].iter().enumerate().all(|(i, c)| *c == Some(first + i));
    consecutive.then_some((lo, first, len))
}

/// Applies `f(dst, src)` to `len` element pairs, eight at a time where it can: conv rows are
/// short (often 8 to 24), too short for a memcpy call or a vector loop with a remainder to pay.
#[inline(always)]
fn short_row<D, S: Copy>(dst: &mut [D], src: &[S], f: impl Fn(&mut D, S)) {
    // Plain indexing rather than chunk iterators: builds without LTO left those out of line.
    let n = dst.len().min(src.len());
    let full = n - n % 8;
    let mut i = 0;
    while i < full {
        let d8: &mut [D; 8] = (&mut dst[i..i + 8]).try_into().unwrap();
        let s8: &[S; 8] = src[i..i + 8].try_into().unwrap();
        for k in 0..8 {
            f(&mut d8[k], s8[k]);
        }
        i += 8;
    }
    for j in full..n {
        f(&mut dst[j], src[j]);
    }
}

/// One input row as kernel column `kx` sees it: `shifted[ox]` is the input column that output
/// column `ox` reads, or zero where it reads padding.
#[inline(always)]
fn shift_row<T: Element>(plan: &TapPlan, kx: usize, row: &[T], shifted: &mut [T]) {
    match plan.runs[kx] {
        Some((lo, first, len)) => {
            shifted[..lo].fill(T::zero());
            short_row(&mut shifted[lo..lo + len], &row[first..first + len], |d, v| *d = v);
            shifted[lo + len..].fill(T::zero());
        }
        None => {
            for (d, ix) in shifted.iter_mut().zip(&plan.columns[kx]) {
                *d = ix.map_or(T::zero(), |ix| row[ix]);
            }
        }
    }
}

/// Writes the patch matrix (`taps x positions`) of the `group_in` channels starting at `image`
/// into `patches`, whose rows are `row_stride` apart: row `tap` holds what that kernel tap sees
/// at every output position. Every element is written except those reading padding, which the
/// caller must have zeroed. `scratch` is reused between calls.
///
/// With unit row stride the taps of one kernel column differ only by whole rows: the image
/// shifted for that column (`in rows x out columns`) is built once, and each kernel row's tap is
/// then one contiguous copy out of it. Copying short conv rows one by one instead (often 8 to
/// 24 elements, five times each) was half of a small convolution's forward time.
fn unfold<T: Element>(image: &[T], g: &ConvGeom, plan: &TapPlan, patches: &mut [MaybeUninit<T>], row_stride: usize, scratch: &mut Vec<T>) {
    let [h, w] = g.in_size;
    let [kh, kw] = g.kernel;
    let ow = g.out_size[1];
    if g.stride[0] != 1 {
        return unfold_strided_rows(image, g, plan, patches, row_stride);
    }
    scratch.resize(h * ow, T::zero());
    for c in 0..g.group_in() {
        let plane = &image[c * h * w..][..h * w];
        for kx in 0..kw {
            for y in 0..h {
                shift_row(plan, kx, &plane[y * w..][..w], &mut scratch[y * ow..][..ow]);
            }
            for ky in 0..kh {
                let Some((oy, iy, count)) = plan.rows[ky] else { continue };
                let n = count * ow;
                let (dst, src) = (&mut patches[((c * kh + ky) * kw + kx) * row_stride + oy * ow..][..n], &scratch[iy * ow..][..n]);
                for i in 0..n {
                    dst[i].write(src[i]);
                }
            }
        }
    }
}

/// `unfold` for row strides above one: each tap's output rows read input rows `stride[0]` apart,
/// so they are copied row by row.
fn unfold_strided_rows<T: Element>(image: &[T], g: &ConvGeom, plan: &TapPlan, patches: &mut [MaybeUninit<T>], row_stride: usize) {
    let [h, w] = g.in_size;
    let ow = g.out_size[1];
    let src_step = g.stride[0] * w;
    plan.for_each_tap(g, |tap, c, kx, oy, iy, count| {
        let dst = &mut patches[tap * row_stride + oy * ow..][..count * ow];
        // Row r of this tap reads input row iy + r * stride[0], `src_step` elements further on.
        let src = &image[c * h * w + iy * w..][..(count - 1) * src_step + w];
        match plan.runs[kx] {
            Some((lo, first, len)) => {
                for r in 0..count {
                    short_row(&mut dst[r * ow + lo..][..len], &src[r * src_step + first..][..len], |d, v| {
                        d.write(v);
                    });
                }
            }
            None => {
                for (dst, src) in dst.chunks_exact_mut(ow).zip(src.chunks(src_step)) {
                    for (d, ix) in dst.iter_mut().zip(&plan.columns[kx]) {
                        if let Some(ix) = ix {
                            d.write(src[*ix]);
                        }
                    }
                }
            }
        }
    });
}

/// Adds each entry of a patch matrix (rows `row_stride` apart) back onto the image position it
/// was read from. As in `unfold`, with unit row stride the taps of one kernel column are first
/// summed into the shifted image (contiguous adds), which is then added back once.
fn fold_add<T: Arith>(patches: &[T], g: &ConvGeom, plan: &TapPlan, image: &mut [T], row_stride: usize, scratch: &mut Vec<T>) {
    let [h, w] = g.in_size;
    let [kh, kw] = g.kernel;
    let ow = g.out_size[1];
    if g.stride[0] != 1 {
        return fold_add_strided_rows(patches, g, plan, image, row_stride);
    }
    scratch.resize(h * ow, T::zero());
    for c in 0..g.group_in() {
        let plane = &mut image[c * h * w..][..h * w];
        for kx in 0..kw {
            scratch.fill(T::zero());
            for ky in 0..kh {
                let Some((oy, iy, count)) = plan.rows[ky] else { continue };
                let n = count * ow;
                let (src, sum) = (&patches[((c * kh + ky) * kw + kx) * row_stride + oy * ow..][..n], &mut scratch[iy * ow..][..n]);
                for i in 0..n {
                    sum[i] = sum[i].add(src[i]);
                }
            }
            for y in 0..h {
                let (row, shifted) = (&mut plane[y * w..][..w], &scratch[y * ow..][..ow]);
                match plan.runs[kx] {
                    Some((lo, first, len)) => short_row(&mut row[first..first + len], &shifted[lo..lo + len], |d, v| *d = d.add(v)),
                    None => {
                        for (&v, ix) in shifted.iter().zip(&plan.columns[kx]) {
                            if let Some(ix) = ix {
                                row[*ix] = row[*ix].add(v);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `fold_add` for row strides above one, row by row (see `unfold_strided_rows`).
fn fold_add_strided_rows<T: Arith>(patches: &[T], g: &ConvGeom, plan: &TapPlan, image: &mut [T], row_stride: usize) {
    let [h, w] = g.in_size;
    let ow = g.out_size[1];
    let dst_step = g.stride[0] * w;
    plan.for_each_tap(g, |tap, c, kx, oy, iy, count| {
        let src = &patches[tap * row_stride + oy * ow..][..count * ow];
        // Row r of this tap lands on input row iy + r * stride[0], `dst_step` elements further on.
        let dst = &mut image[c * h * w + iy * w..][..(count - 1) * dst_step + w];
        match plan.runs[kx] {
            Some((lo, first, len)) => {
                for r in 0..count {
                    short_row(&mut dst[r * dst_step + first..][..len], &src[r * ow + lo..][..len], |d, v| *d = d.add(v));
                }
            }
            None => {
                for (src, dst) in src.chunks_exact(ow).zip(dst.chunks_mut(dst_step)) {
                    for (&v, ix) in src.iter().zip(&plan.columns[kx]) {
                        if let Some(ix) = ix {
                            dst[*ix] = dst[*ix].add(v);
                        }
                    }
                }
            }
        }
    });
}

/// Patch matrices of a block of images side by side: `taps x (images * positions)`. Small
/// enough that the block, gemm's packed copy of it and the product stay in a core's L2 cache.
const BLOCK_ELEMENTS: usize = 1 << 17;

/// Images per block: the batch split into as few blocks as keep each block's patch matrix under
/// `BLOCK_ELEMENTS`, all of (nearly) equal size so that threads get even shares (64 images at
/// most 9 to a block: 8 blocks of 8, not 7 of 9 and one of 1). It depends only on the shapes,
/// so results do not depend on the number of threads.
fn block_images(g: &ConvGeom) -> usize {
    let most = (BLOCK_ELEMENTS / (g.taps() * g.positions()).max(1)).clamp(1, g.batch.max(1));
    let blocks = g.batch.max(1).div_ceil(most);
    g.batch.max(1).div_ceil(blocks)
}

fn gemm_parallelism(work: usize) -> Parallelism {
    if worth_splitting(work) {
        Parallelism::Rayon(get_num_threads())
    } else {
        Parallelism::None
    }
}

/// Runs `f(n0, count, images, patches, par)` over blocks of `block_images(g)` images, where
/// `images` is the block's part of `out` (`image_len` elements per image), `patches` its part
/// of `kept` (the block's patch matrices, or empty when `kept` is) and `par` the parallelism
/// for the block's products: blocks run in parallel when there are several and the work is
/// worth splitting; a lone block splits its products instead.
fn for_each_image_block<T: Send, P: Send>(
    out: &mut [T],
    image_len: usize,
    kept: &mut [P],
    g: &ConvGeom,
    f: impl Fn(usize, usize, &mut [T], &mut [P], Parallelism) -> Result<()> + Sync + Send,
) -> Result<()> {
    let block = block_images(g);
    if image_len == 0 || out.is_empty() {
        return Ok(());
    }
    let work = g.batch * g.out_image() * g.taps();
    let par = if g.batch > block { Parallelism::None } else { gemm_parallelism(work) };
    // A block whose scratch cannot be allocated stops there; the first failure is returned.
    let failed = FirstError::default();
    let run = |b: usize, images: &mut [T], patches: &mut [P]| {
        if let Err(e) = f(b * block, images.len() / image_len, images, patches, par) {
            failed.set(e);
        }
    };
    let patches_len = block * g.image_patches();
    if worth_splitting(work) {
        for_each_exact_chunk_pair(out, block * image_len, kept, patches_len, run);
    } else if kept.is_empty() {
        out.chunks_mut(block * image_len).enumerate().for_each(|(b, c)| run(b, c, &mut []));
    } else {
        out.chunks_mut(block * image_len).zip(kept.chunks_mut(patches_len)).enumerate().for_each(|(b, (c, p))| run(b, c, p));
    }
    failed.or_ok(())
}

/// The patch matrices of images `n0..n0 + count` for group `grp`, side by side:
/// `taps x (count * positions)`.
fn unfold_block<T: Element>(x: &[T], g: &ConvGeom, plan: &TapPlan, grp: usize, n0: usize, count: usize) -> Result<Vec<T>> {
    written_output(g.taps() * count * g.positions(), |cols| {
        unfold_block_into(x, g, plan, grp, n0, count, cols);
    })
}

/// `unfold_block` written into `cols` (`taps x (count * positions)`), every element of which
/// it writes; returns them, now initialised.
fn unfold_block_into<'a, T: Element>(
    x: &[T],
    g: &ConvGeom,
    plan: &TapPlan,
    grp: usize,
    n0: usize,
    count: usize,
    cols: &'a mut [MaybeUninit<T>],
) -> &'a [T] {
    let width = count * g.positions();
    let group_offset = grp * g.group_in() * g.in_size[0] * g.in_size[1];
    if plan.reads_padding {
        cols.fill(MaybeUninit::new(T::zero()));
    }
    let mut scratch = Vec::new();
    for i in 0..count {
        unfold(&x[(n0 + i) * g.in_image() + group_offset..], g, plan, &mut cols[i * g.positions()..], width, &mut scratch);
    }
    // SAFETY: `unfold` wrote every element that reads the image and the fill above every one
    // that reads padding; MaybeUninit<T> has T's layout.
    unsafe { &*(cols as *const [MaybeUninit<T>] as *const [T]) }
}

/// `dy[n0..n0 + count]` (`(N, O, positions)`) rearranged as `O x (count * positions)`.
fn channels_first<T: Element>(dy: &[T], g: &ConvGeom, n0: usize, count: usize) -> Result<Vec<T>> {
    let positions = g.positions();
    written_output(g.out_channels * count * positions, |out| {
        for i in 0..count {
            for o in 0..g.out_channels {
                let dst = &mut out[(o * count + i) * positions..][..positions];
                for (d, &v) in dst.iter_mut().zip(&dy[((n0 + i) * g.out_channels + o) * positions..][..positions]) {
                    d.write(v);
                }
            }
        }
    })
}

/// `out[n] = weight ⋆ x[n] (+ bias)`: a contiguous `(N, O, oh, ow)` result. Each block of images
/// is one product `weight (O x taps) @ patches (taps x images * positions)`. With `keep_patches`
/// the patch matrices come back too (`g.batch_patches()` elements), for `conv2d_weight_grad`,
/// which then need not unfold the images a second time. They are laid out block after block of
/// `block_images(g)` images, and within a block group after group, each
/// `taps x (images * positions)`.
pub fn conv2d_forward<T: Arith>(
    x: &[T],
    weight: &[T],
    bias: Option<&[T]>,
    g: &ConvGeom,
    keep_patches: bool,
) -> Result<(Vec<T>, Option<Vec<T>>)> {
    let mut kept = None;
    let out = try_written_output(g.batch * g.out_image(), |out| {
        if keep_patches {
            kept = Some(try_written_output(g.batch_patches(), |kept| conv2d_forward_into(x, weight, bias, g, out, kept))?);
            Ok(())
        } else {
            conv2d_forward_into(x, weight, bias, g, out, &mut [])
        }
    })?;
    Ok((out, kept))
}

/// `conv2d_forward` into `out`, every element of which it writes, unfolding each block into
/// its part of `kept` when that is not empty (so every element of `kept` is written), else
/// into a scratch matrix.
fn conv2d_forward_into<T: Arith>(
    x: &[T],
    weight: &[T],
    bias: Option<&[T]>,
    g: &ConvGeom,
    out: &mut [MaybeUninit<T>],
    kept: &mut [MaybeUninit<T>],
) -> Result<()> {
    let (og, taps, positions) = (g.group_out(), g.taps(), g.positions());
    let plan = TapPlan::new(g);
    for_each_image_block(out, g.out_image(), kept, g, |n0, count, out_block, patches, par| {
        let width = count * positions;
        for grp in 0..g.groups {
            let scratch;
            let cols = if patches.is_empty() {
                scratch = unfold_block(x, g, &plan, grp, n0, count)?;
                &scratch[..]
            } else {
                unfold_block_into(x, g, &plan, grp, n0, count, &mut patches[grp * taps * width..][..taps * width])
            };
            let mut prod = filled(og * width, T::zero())?;
            if let Some(bias) = bias {
                for (row, &b) in prod.chunks_mut(width).zip(&bias[grp * og..]) {
                    row.fill(b);
                }
            }
            let dst = MatMut::new(&mut prod, width);
            let wm = MatRef { offset: grp * og * taps, rs: taps, cs: 1 };
            let bm = MatRef { offset: 0, rs: width, cs: 1 };
            // SAFETY: the weight holds O x taps elements, `cols` taps x width.
            unsafe { gemm_into(dst, og, width, taps, weight, wm, cols, bm, bias.is_some(), par) };
            for i in 0..count {
                for o in 0..og {
                    let dst = &mut out_block[(i * g.out_channels + grp * og + o) * positions..][..positions];
                    for (d, &v) in dst.iter_mut().zip(&prod[o * width + i * positions..][..positions]) {
                        d.write(v);
                    }
                }
            }
        }
        Ok(())
    })
}

/// The transpose of `conv2d_forward` with respect to its image: `dy` (`(N, O, oh, ow)`) spread
/// back through the kernel onto a contiguous `(N, C, h, w)` image. This is both the gradient of
/// a convolution for its input and the forward pass of a transposed convolution.
pub fn conv2d_transpose<T: Arith>(dy: &[T], weight: &[T], g: &ConvGeom) -> Result<Vec<T>> {
    let (cg, og, taps, positions) = (g.group_in(), g.group_out(), g.taps(), g.positions());
    let mut out = filled(g.batch * g.in_image(), T::zero())?;
    let plane = g.in_size[0] * g.in_size[1];
    let plan = TapPlan::new(g);
    for_each_image_block(&mut out, g.in_image(), &mut [] as &mut [T], g, |n0, count, images, _, par| {
        let width = count * positions;
        let dyp = channels_first(dy, g, n0, count)?;
        for grp in 0..g.groups {
            // patches (taps x width) = weight[grp]^T (taps x og) @ dy[grp] (og x width)
            let am = MatRef { offset: grp * og * taps, rs: 1, cs: taps };
            let bm = MatRef { offset: grp * og * width, rs: width, cs: 1 };
            // SAFETY: (taps x og) @ (og x width) within the weight and dyp; without accumulation
            // gemm writes every element of `cols` (no zero fill needed).
            let cols = written_output(taps * width, |cols| unsafe {
                gemm_into(MatMut::uninit(cols, width), taps, width, og, weight, am, &dyp, bm, false, par)
            })?;
            let mut scratch = Vec::new();
            for (i, image) in images.chunks_mut(g.in_image()).enumerate() {
                fold_add(&cols[i * positions..], g, &plan, &mut image[grp * cg * plane..][..cg * plane], width, &mut scratch);
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// The gradient of `conv2d_forward` for its weight: `sum_n dy[n] @ patches(x[n])^T`, a
/// contiguous `(O, C/groups, kh, kw)` tensor. Partial sums run over the forward pass's blocks of
/// images, fixed by the shapes, so the summation order (and every bit of the result) depends
/// neither on the number of threads nor on whether the forward pass kept its `patches` (the
/// patch matrices of `x`, as `conv2d_forward` returns them) or they are unfolded again here.
pub fn conv2d_weight_grad<T: Arith>(x: &[T], dy: &[T], g: &ConvGeom, patches: Option<&[T]>) -> Result<Vec<T>> {
    let (og, taps, positions) = (g.group_out(), g.taps(), g.positions());
    let weight_len = g.out_channels * taps;
    let block = block_images(g);
    let starts: Vec<usize> = (0..g.batch).step_by(block).collect();
    let plan = TapPlan::new(g);
    // Each block's product is computed transposed, per group `taps x og`: gemm then reads the
    // (large) patch matrix in place and only packs the (small) output gradient.
    let partial = |n0: usize| -> Result<Vec<T>> {
        let count = block.min(g.batch - n0);
        let width = count * positions;
        let dyp = channels_first(dy, g, n0, count)?;
        let mut acc = filled(weight_len, T::zero())?;
        for grp in 0..g.groups {
            let scratch;
            let cols = match patches {
                Some(kept) => &kept[n0 * g.image_patches() + grp * taps * width..][..taps * width],
                None => {
                    scratch = unfold_block(x, g, &plan, grp, n0, count)?;
                    &scratch[..]
                }
            };
            let dst = MatMut::new(&mut acc[grp * og * taps..][..og * taps], og);
            let am = MatRef { offset: 0, rs: width, cs: 1 };
            // dy read transposed, as width x og.
            let bm = MatRef { offset: grp * og * width, rs: 1, cs: width };
            // SAFETY: (taps x width) @ (width x og), both inside their buffers.
            unsafe { gemm_into(dst, taps, og, width, cols, am, &dyp, bm, false, Parallelism::None) };
        }
        Ok(acc)
    };
    let partials: Vec<Result<Vec<T>>> = if worth_splitting(g.batch * g.out_channels * positions * taps) && starts.len() > 1 {
        map_tasks(starts.len(), |i| partial(starts[i]))
    } else {
        starts.iter().map(|&s| partial(s)).collect()
    };
    let mut total = filled(weight_len, T::zero())?;
    for p in partials {
        let p = p?;
        for grp in 0..g.groups {
            let (group_total, group_part) = (&mut total[grp * og * taps..][..og * taps], &p[grp * og * taps..][..og * taps]);
            for (o, row) in group_total.chunks_exact_mut(taps).enumerate() {
                for (t, v) in row.iter_mut().enumerate() {
                    *v = v.add(group_part[t * og + o]);
                }
            }
        }
    }
    Ok(total)
}

// ----- Array-level entry points -----------------------------------------------------------------

/// `Backend::conv2d` on the host, for float32 or float64 operands (made dense): the result and,
/// with `keep_patches`, the patch matrices as `conv2d_weight_grad_op` reads them.
pub fn conv2d_op(x: &Array, weight: &Array, bias: Option<&Array>, g: &ConvGeom, keep_patches: bool) -> Result<(Array, Option<Array>)> {
    fn typed<T: Arith>(
        x: &Array,
        weight: &Array,
        bias: Option<&Array>,
        g: &ConvGeom,
        keep_patches: bool,
    ) -> Result<(Array, Option<Array>)> {
        let (out, patches) = dense_slice::<T, _>(x, "convolution", |xs| {
            dense_slice::<T, _>(weight, "convolution", |ws| match bias {
                Some(b) => dense_slice::<T, _>(b, "convolution", |bs| conv2d_forward(xs, ws, Some(bs), g, keep_patches))?,
                None => conv2d_forward(xs, ws, None, g, keep_patches),
            })
        })???;
        let patches = patches.map(|p| Array::from_vec(p, &[g.batch_patches()])).transpose()?;
        Ok((Array::from_vec(out, &g.result_shape())?, patches))
    }
    match x.dtype() {
        DType::F64 => typed::<f64>(x, weight, bias, g, keep_patches),
        _ => typed::<f32>(x, weight, bias, g, keep_patches),
    }
}

/// `Backend::conv_transpose2d` on the host, for float32 or float64 operands (made dense).
pub fn conv_transpose2d_op(dy: &Array, weight: &Array, g: &ConvGeom) -> Result<Array> {
    fn typed<T: Arith>(dy: &Array, weight: &Array, g: &ConvGeom) -> Result<Array> {
        let image =
            dense_slice::<T, _>(dy, "convolution", |ds| dense_slice::<T, _>(weight, "convolution", |ws| conv2d_transpose(ds, ws, g)))???;
        Array::from_vec(image, &g.image_shape())
    }
    match dy.dtype() {
        DType::F64 => typed::<f64>(dy, weight, g),
        _ => typed::<f32>(dy, weight, g),
    }
}

/// `Backend::conv2d_weight_grad` on the host, for float32 or float64 operands (made dense);
/// `patches`: those `conv2d_op` kept for `x`, used where they are of x's dtype and size.
pub fn conv2d_weight_grad_op(x: &Array, dy: &Array, g: &ConvGeom, patches: Option<&Array>) -> Result<Array> {
    fn typed<T: Arith>(x: &Array, dy: &Array, g: &ConvGeom, patches: Option<&Array>) -> Result<Array> {
        let patches = patches.filter(|p| p.dtype() == T::DTYPE && p.numel() == g.batch_patches());
        let grad = dense_slice::<T, _>(x, "convolution", |xs| {
            dense_slice::<T, _>(dy, "convolution", |ds| match patches {
                Some(p) => dense_slice::<T, _>(p, "convolution", |ps| conv2d_weight_grad(xs, ds, g, Some(ps)))?,
                None => conv2d_weight_grad(xs, ds, g, None),
            })
        })???;
        Array::from_vec(grad, &g.weight_shape())
    }
    match x.dtype() {
        DType::F64 => typed::<f64>(x, dy, g, patches),
        _ => typed::<f32>(x, dy, g, patches),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct convolution, the definition the kernels must agree with.
    fn naive(x: &[f64], w: &[f64], g: &ConvGeom) -> Vec<f64> {
        let (cg, og) = (g.group_in(), g.group_out());
        let mut out = vec![0.0; g.batch * g.out_image()];
        for n in 0..g.batch {
            for o in 0..g.out_channels {
                let grp = o / og;
                for oy in 0..g.out_size[0] {
                    for ox in 0..g.out_size[1] {
                        let mut s = 0.0;
                        for c in 0..cg {
                            for ky in 0..g.kernel[0] {
                                for kx in 0..g.kernel[1] {
                                    if let (Some(iy), Some(ix)) = (g.source(0, oy, ky), g.source(1, ox, kx)) {
                                        let xi = ((n * g.in_channels + grp * cg + c) * g.in_size[0] + iy) * g.in_size[1] + ix;
                                        let wi = ((o * cg + c) * g.kernel[0] + ky) * g.kernel[1] + kx;
                                        s += x[xi] * w[wi];
                                    }
                                }
                            }
                        }
                        out[((n * g.out_channels + o) * g.out_size[0] + oy) * g.out_size[1] + ox] = s;
                    }
                }
            }
        }
        out
    }

    fn geom() -> ConvGeom {
        ConvGeom {
            batch: 3,
            groups: 2,
            in_channels: 4,
            out_channels: 6,
            in_size: [7, 6],
            out_size: [4, 3],
            kernel: [3, 2],
            stride: [2, 2],
            padding: [1, 0],
            dilation: [1, 2],
        }
    }

    fn values(n: usize, seed: u64) -> Vec<f64> {
        (0..n).map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64) / 500.0 - 1.0).collect()
    }

    #[test]
    fn forward_matches_direct_convolution() {
        let g = geom();
        let x = values(g.batch * g.in_image(), 1);
        let w = values(g.out_channels * g.taps(), 2);
        let (got, _) = conv2d_forward(&x, &w, None, &g, false).unwrap();
        for (a, b) in got.iter().zip(naive(&x, &w, &g)) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    /// <conv(x, w), dy> = <x, conv_transpose(dy, w)> = <w, weight_grad(x, dy)>.
    #[test]
    fn transpose_and_weight_grad_are_adjoints() {
        // A 1x1 kernel, and a batch spanning several weight-gradient blocks.
        for g in [
            geom(),
            ConvGeom { kernel: [1, 1], stride: [1, 1], padding: [0, 0], dilation: [1, 1], out_size: [7, 6], ..geom() },
            ConvGeom { batch: 37, ..geom() },
        ] {
            let x = values(g.batch * g.in_image(), 3);
            let w = values(g.out_channels * g.taps(), 4);
            let dy = values(g.batch * g.out_image(), 5);
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            let (y, _) = conv2d_forward(&x, &w, None, &g, false).unwrap();
            let lhs = dot(&y, &dy);
            assert!((lhs - dot(&x, &conv2d_transpose(&dy, &w, &g).unwrap())).abs() < 1e-9);
            assert!((lhs - dot(&w, &conv2d_weight_grad(&x, &dy, &g, None).unwrap())).abs() < 1e-9);
        }
    }

    /// Patches kept by the forward pass give the weight gradient bit for bit, and the forward
    /// result does not change for keeping them: with padding and groups, and with a batch
    /// whose last block is short.
    #[test]
    fn kept_patches_give_the_same_weight_gradient() {
        // Blocks of 4 images: 4 + 4 + 4 + 1.
        let wide = ConvGeom { batch: 13, in_size: [100, 100], out_size: [50, 49], ..geom() };
        assert_eq!(block_images(&wide), 4);
        for g in [geom(), wide] {
            let x = values(g.batch * g.in_image(), 6);
            let w = values(g.out_channels * g.taps(), 7);
            let dy = values(g.batch * g.out_image(), 8);
            let (plain, none) = conv2d_forward(&x, &w, None, &g, false).unwrap();
            let (y, kept) = conv2d_forward(&x, &w, None, &g, true).unwrap();
            assert!(none.is_none());
            assert_eq!(plain, y);
            let kept = kept.unwrap();
            assert_eq!(kept.len(), g.batch_patches());
            assert_eq!(conv2d_weight_grad(&x, &dy, &g, Some(&kept)).unwrap(), conv2d_weight_grad(&x, &dy, &g, None).unwrap());
        }
    }
}
