//! 2-D convolution kernels: im2col + gemm forward, its transpose (col2im) and the weight gradient.
//!
//! Every kernel works on contiguous NCHW images and an `(O, C/groups, kh, kw)` weight. A patch
//! matrix holds one row per output position and one column per (channel, ky, kx) tap, so the
//! rows of one image are contiguous and images can be unfolded in parallel.

use gemm::Parallelism;
use rayon::prelude::*;

use crate::cpu::matmul::{gemm_into, MatMut, MatRef};
use crate::cpu::num::Arith;
use crate::cpu::parallel::{get_num_threads, pool};
use crate::dtype::Element;

/// Shapes of one convolution, seen from the side of the (larger) image it slides over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeom {
    pub batch: usize,
    pub groups: usize,
    /// Channels of the image the kernel slides over, all groups together.
    pub in_channels: usize,
    /// Channels of the result of sliding, all groups together.
    pub out_channels: usize,
    pub in_size: [usize; 2],
    pub out_size: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

impl ConvGeom {
    fn group_in(&self) -> usize {
        self.in_channels / self.groups
    }
    fn group_out(&self) -> usize {
        self.out_channels / self.groups
    }
    /// Taps per output position: the inner dimension of the products.
    fn taps(&self) -> usize {
        self.group_in() * self.kernel[0] * self.kernel[1]
    }
    fn positions(&self) -> usize {
        self.out_size[0] * self.out_size[1]
    }
    fn in_image(&self) -> usize {
        self.in_channels * self.in_size[0] * self.in_size[1]
    }
    fn out_image(&self) -> usize {
        self.out_channels * self.positions()
    }
    /// A 1x1 kernel with unit stride and no padding: the image already is the patch matrix.
    fn is_pointwise(&self) -> bool {
        self.kernel == [1, 1] && self.stride == [1, 1] && self.padding == [0, 0]
    }

    /// The input row (or column) read by output position `o` at kernel tap `k` along axis `a`.
    #[inline]
    fn source(&self, a: usize, o: usize, k: usize) -> Option<usize> {
        let i = (o * self.stride[a] + k * self.dilation[a]).checked_sub(self.padding[a])?;
        (i < self.in_size[a]).then_some(i)
    }
}

/// For one kernel column `kx`, the input column read by each output column, if any.
fn source_columns(g: &ConvGeom, kx: usize) -> Vec<Option<usize>> {
    (0..g.out_size[1]).map(|ox| g.source(1, ox, kx)).collect()
}

/// Calls `row(tap, oy, iy, columns)` for every (tap, output row) pair whose input row `iy` lies
/// inside the image, where `columns` maps output columns to input columns; pairs reading
/// padding are left out.
fn for_each_tap_row(g: &ConvGeom, mut row: impl FnMut(usize, usize, usize, &[Option<usize>], usize)) {
    let [kh, kw] = g.kernel;
    let columns: Vec<Vec<Option<usize>>> = (0..kw).map(|kx| source_columns(g, kx)).collect();
    for c in 0..g.group_in() {
        for ky in 0..kh {
            for (kx, cols) in columns.iter().enumerate() {
                let tap = (c * kh + ky) * kw + kx;
                for oy in 0..g.out_size[0] {
                    if let Some(iy) = g.source(0, oy, ky) {
                        row(tap, oy, iy, cols, c);
                    }
                }
            }
        }
    }
}

/// The contiguous run of output columns whose input columns are consecutive (unit stride), as
/// (first output column, first input column, length).
fn unit_stride_run(cols: &[Option<usize>]) -> Option<(usize, usize, usize)> {
    let lo = cols.iter().position(Option::is_some)?;
    let hi = cols.iter().rposition(Option::is_some)? + 1;
    let first = cols[lo]?;
    let consecutive = cols[lo..hi].iter().enumerate().all(|(i, c)| *c == Some(first + i));
    consecutive.then_some((lo, first, hi - lo))
}

/// Writes the patch matrix (`taps x positions`, row-major) of the `group_in` channels starting
/// at `image` into `patches`: row `tap` holds what that kernel tap sees at every output
/// position, so with unit stride each output row is one contiguous copy.
fn unfold<T: Element>(image: &[T], g: &ConvGeom, patches: &mut [T]) {
    let [h, w] = g.in_size;
    let ow = g.out_size[1];
    let positions = g.positions();
    patches.fill(T::zero());
    for_each_tap_row(g, |tap, oy, iy, cols, c| {
        let src = &image[c * h * w + iy * w..][..w];
        let dst = &mut patches[tap * positions + oy * ow..][..ow];
        match unit_stride_run(cols) {
            Some((lo, first, len)) => dst[lo..lo + len].copy_from_slice(&src[first..first + len]),
            None => {
                for (d, ix) in dst.iter_mut().zip(cols) {
                    if let Some(ix) = ix {
                        *d = src[*ix];
                    }
                }
            }
        }
    });
}

/// Adds each entry of a patch matrix back onto the image position it was read from.
fn fold_add<T: Arith>(patches: &[T], g: &ConvGeom, image: &mut [T]) {
    let [h, w] = g.in_size;
    let ow = g.out_size[1];
    let positions = g.positions();
    for_each_tap_row(g, |tap, oy, iy, cols, c| {
        let dst = &mut image[c * h * w + iy * w..][..w];
        let src = &patches[tap * positions + oy * ow..][..ow];
        match unit_stride_run(cols) {
            Some((lo, first, len)) => {
                for (d, &v) in dst[first..first + len].iter_mut().zip(&src[lo..lo + len]) {
                    *d = d.add(v);
                }
            }
            None => {
                for (&v, ix) in src.iter().zip(cols) {
                    if let Some(ix) = ix {
                        dst[*ix] = dst[*ix].add(v);
                    }
                }
            }
        }
    });
}

/// Runs `f(n, out_image)` for every image of the batch, in parallel when there is enough work,
/// and tells `f` whether the products inside may use threads themselves.
fn per_image<T: Element>(out: &mut [T], image_len: usize, work: usize, f: impl Fn(usize, &mut [T], Parallelism) + Sync) {
    let threads = get_num_threads();
    let batch = out.len() / image_len.max(1);
    if image_len == 0 {
        return;
    }
    if threads > 1 && batch > 1 && work >= 1 << 16 {
        pool().install(|| out.par_chunks_mut(image_len).enumerate().for_each(|(n, o)| f(n, o, Parallelism::None)));
    } else {
        let par = if threads > 1 && work >= 1 << 16 { Parallelism::Rayon(threads) } else { Parallelism::None };
        pool().install(|| out.chunks_mut(image_len).enumerate().for_each(|(n, o)| f(n, o, par)));
    }
}

/// `out[n] = weight ⋆ x[n] (+ bias)`: a contiguous `(N, O, oh, ow)` result.
pub fn conv2d_forward<T: Arith>(x: &[T], weight: &[T], bias: Option<&[T]>, g: &ConvGeom) -> Vec<T> {
    let (cg, og, taps, positions) = (g.group_in(), g.group_out(), g.taps(), g.positions());
    let mut out = vec![T::zero(); g.batch * g.out_image()];
    let work = g.batch * g.out_channels * positions * taps;
    per_image(&mut out, g.out_image(), work, |n, out_n, par| {
        if let Some(bias) = bias {
            for (row, &b) in out_n.chunks_mut(positions).zip(bias) {
                row.fill(b);
            }
        }
        let image = &x[n * g.in_image()..][..g.in_image()];
        let mut patches = if g.is_pointwise() { Vec::new() } else { vec![T::zero(); positions * taps] };
        for grp in 0..g.groups {
            let group_image = &image[grp * cg * g.in_size[0] * g.in_size[1]..];
            // A pointwise kernel reads the image itself as its patch matrix.
            let b = if g.is_pointwise() {
                group_image
            } else {
                unfold(group_image, g, &mut patches);
                &patches[..]
            };
            let dst = MatMut { data: &mut out_n[grp * og * positions..][..og * positions], rs: positions };
            let wm = MatRef { offset: grp * og * taps, rs: taps, cs: 1 };
            let bm = MatRef { offset: 0, rs: positions, cs: 1 };
            // SAFETY: the weight holds O x taps elements, the patches taps x positions.
            unsafe { gemm_into(dst, og, positions, taps, weight, wm, b, bm, bias.is_some(), par) };
        }
    });
    out
}

/// The transpose of `conv2d_forward` with respect to its image: `dy` (`(N, O, oh, ow)`) spread
/// back through the kernel onto a contiguous `(N, C, h, w)` image. This is both the gradient of
/// a convolution for its input and the forward pass of a transposed convolution.
pub fn conv2d_transpose<T: Arith>(dy: &[T], weight: &[T], g: &ConvGeom) -> Vec<T> {
    let (cg, og, taps, positions) = (g.group_in(), g.group_out(), g.taps(), g.positions());
    let mut out = vec![T::zero(); g.batch * g.in_image()];
    let work = g.batch * g.out_channels * positions * taps;
    let plane = g.in_size[0] * g.in_size[1];
    per_image(&mut out, g.in_image(), work, |n, image, par| {
        let dy_n = &dy[n * g.out_image()..][..g.out_image()];
        let mut patches = if g.is_pointwise() { Vec::new() } else { vec![T::zero(); positions * taps] };
        for grp in 0..g.groups {
            let group_image = &mut image[grp * cg * plane..][..cg * plane];
            // patches (taps x positions) = weight[grp]^T (taps x og) @ dy_n[grp] (og x positions);
            // a pointwise kernel writes them straight into the image.
            let am = MatRef { offset: grp * og * taps, rs: 1, cs: taps };
            let bm = MatRef { offset: grp * og * positions, rs: positions, cs: 1 };
            let pointwise = g.is_pointwise();
            let dst = MatMut { data: if pointwise { &mut group_image[..] } else { &mut patches[..] }, rs: positions };
            // SAFETY: (taps x og) @ (og x positions) within the weight and dy_n.
            unsafe { gemm_into(dst, taps, positions, og, weight, am, dy_n, bm, false, par) };
            if !pointwise {
                fold_add(&patches, g, group_image);
            }
        }
    });
    out
}

/// Images per partial sum of the weight gradient. Fixed, so the summation order (and every bit
/// of the result) does not depend on the number of threads.
const WEIGHT_GRAD_BLOCK: usize = 8;

/// The gradient of `conv2d_forward` for its weight: `sum_n dy[n] @ patches(x[n])`, a contiguous
/// `(O, C/groups, kh, kw)` tensor.
pub fn conv2d_weight_grad<T: Arith>(x: &[T], dy: &[T], g: &ConvGeom) -> Vec<T> {
    let (cg, og, taps, positions) = (g.group_in(), g.group_out(), g.taps(), g.positions());
    let weight_len = g.out_channels * taps;
    let blocks: Vec<usize> = (0..g.batch).step_by(WEIGHT_GRAD_BLOCK).collect();
    let partial = |start: usize| -> Vec<T> {
        let mut acc = vec![T::zero(); weight_len];
        let mut patches = if g.is_pointwise() { Vec::new() } else { vec![T::zero(); positions * taps] };
        for n in start..(start + WEIGHT_GRAD_BLOCK).min(g.batch) {
            let image = &x[n * g.in_image()..][..g.in_image()];
            let dy_n = &dy[n * g.out_image()..][..g.out_image()];
            for grp in 0..g.groups {
                let group_image = &image[grp * cg * g.in_size[0] * g.in_size[1]..];
                let b = if g.is_pointwise() {
                    group_image
                } else {
                    unfold(group_image, g, &mut patches);
                    &patches[..]
                };
                let dst = MatMut { data: &mut acc[grp * og * taps..][..og * taps], rs: taps };
                let am = MatRef { offset: grp * og * positions, rs: positions, cs: 1 };
                // The patch matrix read transposed, as positions x taps.
                let bm = MatRef { offset: 0, rs: 1, cs: positions };
                // SAFETY: (og x positions) @ (positions x taps), both inside their buffers.
                unsafe { gemm_into(dst, og, taps, positions, dy_n, am, b, bm, true, Parallelism::None) };
            }
        }
        acc
    };
    let work = g.batch * g.out_channels * positions * taps;
    let partials: Vec<Vec<T>> = if get_num_threads() > 1 && blocks.len() > 1 && work >= 1 << 16 {
        pool().install(|| blocks.par_iter().map(|&s| partial(s)).collect())
    } else {
        blocks.iter().map(|&s| partial(s)).collect()
    };
    let mut total = vec![T::zero(); weight_len];
    for p in partials {
        for (t, v) in total.iter_mut().zip(p) {
            *t = t.add(v);
        }
    }
    total
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
        let got = conv2d_forward(&x, &w, None, &g);
        for (a, b) in got.iter().zip(naive(&x, &w, &g)) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    /// <conv(x, w), dy> = <x, conv_transpose(dy, w)> = <w, weight_grad(x, dy)>.
    #[test]
    fn transpose_and_weight_grad_are_adjoints() {
        for g in [geom(), ConvGeom { kernel: [1, 1], stride: [1, 1], padding: [0, 0], dilation: [1, 1], out_size: [7, 6], ..geom() }] {
            let x = values(g.batch * g.in_image(), 3);
            let w = values(g.out_channels * g.taps(), 4);
            let dy = values(g.batch * g.out_image(), 5);
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            let y = conv2d_forward(&x, &w, None, &g);
            let lhs = dot(&y, &dy);
            assert!((lhs - dot(&x, &conv2d_transpose(&dy, &w, &g))).abs() < 1e-9);
            assert!((lhs - dot(&w, &conv2d_weight_grad(&x, &dy, &g))).abs() < 1e-9);
        }
    }
}
