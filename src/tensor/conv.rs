//! Convolutions with PyTorch's shape rules: conv2d and conv_transpose2d, and the weight
//! gradient as an op of its own so that every gradient of a convolution is differentiable again.
//!
//! All three ops share one `ConvGeom` (`ops::conv_geometry`), described from the side of the
//! larger image. Their backward formulas are written with each other. A backend without
//! convolution kernels gets them composed here from strided views, matmul and col2im.

use crate::autograd::{is_grad_enabled, keep_buffers, record, GradMode, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::conv_geometry::{ConvGeom, ConvParams};
use crate::ops::pool_geometry::PoolGeom;
use crate::tensor::Tensor;

/// Patch matrices a forward pass keeps for the weight gradient, at most (elements): they spare
/// the backward pass a second unfolding of the images (a sixth of a small network's training
/// step), but hold `taps` copies of every image, too many to keep for large convolutions.
const KEEP_PATCHES_LIMIT: usize = 1 << 22;

/// Which of the three convolution kernels to run.
#[derive(Clone, Copy)]
enum Kernel<'a> {
    /// `keep_patches`: also return the patch matrices, for the weight gradient.
    Forward {
        keep_patches: bool,
    },
    Transpose,
    /// `patches`: those a forward pass over the same image kept (on its device, in its dtype).
    WeightGrad {
        patches: Option<&'a Tensor>,
    },
}

/// Runs `kernel` on `a`, `b` (and the forward's `bias`): the result and, for a forward pass
/// asked to keep them, the patch matrices (a flat tensor). Half-precision inputs compute in
/// float32 (and keep nothing). The backend's kernels where it has them, else the composition.
fn run_kernel(
    kernel: Kernel,
    a: &Tensor,
    b: &Tensor,
    bias: Option<&Tensor>,
    g: &ConvGeom,
    out_shape: &[usize],
) -> Result<(Tensor, Option<Tensor>)> {
    crate::tensor::check_alloc(out_shape, a.dtype())?;
    let _raw = GradMode::disabled();
    if let d @ (DType::F16 | DType::BF16) = a.dtype() {
        // On every device in float32, whose patches a half-precision weight gradient cannot use.
        let bias = bias.map(|t| t.to_dtype(DType::F32)).transpose()?;
        let kernel = match kernel {
            Kernel::Forward { .. } => Kernel::Forward { keep_patches: false },
            Kernel::WeightGrad { .. } => Kernel::WeightGrad { patches: None },
            k => k,
        };
        let (out, _) = run_kernel(kernel, &a.to_dtype(DType::F32)?, &b.to_dtype(DType::F32)?, bias.as_ref(), g, out_shape)?;
        return Ok((out.to_dtype(d)?, None));
    }
    if !matches!(a.dtype(), DType::F32 | DType::F64) {
        return Err(no_kernel_for(a.dtype()));
    }
    let backend = a.backend();
    let fused = match kernel {
        Kernel::Forward { keep_patches } => backend.conv2d(a.array(), b.array(), bias.map(Tensor::array), g, keep_patches)?,
        Kernel::Transpose => backend.conv_transpose2d(a.array(), b.array(), g)?.map(|out| (out, None)),
        Kernel::WeightGrad { patches } => {
            let patches = patches.filter(|p| kept_patches_fit(p, a, g)).map(Tensor::array);
            backend.conv2d_weight_grad(a.array(), b.array(), g, patches)?.map(|out| (out, None))
        }
    };
    match fused {
        Some((out, patches)) => Ok((Tensor::from_array(out), patches.map(Tensor::from_array))),
        None => run_composed(kernel, a, b, bias, g, out_shape),
    }
}

/// Whether `patches`, kept by a forward pass, are those of `image` under `g`: on its device, of
/// its dtype and size.
fn kept_patches_fit(patches: &Tensor, image: &Tensor, g: &ConvGeom) -> bool {
    patches.device() == image.device() && patches.dtype() == image.dtype() && patches.numel() == g.batch_patches()
}

/// PyTorch's error for a convolution of a dtype it has no kernel for (integers and bool): the
/// same on every device, as the GPU computes what the CPU computes.
fn no_kernel_for(d: DType) -> Error {
    Error::Runtime(format!("\"slow_conv2d_cpu\" not implemented for '{}'", d.title_name()))
}

/// The three kernels composed from strided views and the copy, matmul and col2im kernels, for
/// a backend without convolution kernels (float32 or float64 operands): the patch matrix of an
/// image is a 6-dim view of its zero-padded copy (batch, channel, kernel row and column, output
/// row and column), copied contiguous; the transpose sums each image element's patch gradients
/// in one kernel, tap by tap (a fixed order, so results are the same on every run). A forward
/// pass asked to keep its patch matrices returns them, (N, G, taps, positions) contiguous, for
/// the weight gradient.
fn run_composed(
    kernel: Kernel,
    a: &Tensor,
    b: &Tensor,
    bias: Option<&Tensor>,
    g: &ConvGeom,
    out_shape: &[usize],
) -> Result<(Tensor, Option<Tensor>)> {
    let dims = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let (n, groups) = (g.batch, g.groups);
    let (cg, og) = (g.in_channels / groups, g.out_channels / groups);
    let taps = cg * g.kernel[0] * g.kernel[1];
    let positions = g.out_size[0] * g.out_size[1];
    let out = match kernel {
        Kernel::Forward { keep_patches } => {
            // (1, G, og, taps) @ (N, G, taps, P) -> (N, G, og, P)
            let cols = patches(a, g)?.reshape(&dims(&[n, groups, taps, positions]))?;
            let w = b.contiguous()?.reshape(&dims(&[1, groups, og, taps]))?.expand(&dims(&[n, groups, og, taps]))?;
            // The bias, one per output channel, is added by the product's kernel.
            let bias = bias.map(|t| t.reshape(&dims(&[1, groups, og, 1]))).transpose()?;
            let y = Tensor::from_array(w.backend().matmul_add(w.array(), cols.array(), bias.as_ref().map(Tensor::array))?)
                .reshape(&dims(out_shape))?;
            let kept = if keep_patches { Some(cols.reshape(&[-1])?) } else { None };
            return Ok((y, kept));
        }
        Kernel::Transpose => {
            // (N, G, taps, og) @ (N, G, og, P) -> patch gradients (N, C, kh, kw, oh, ow)
            let wt = b.contiguous()?.reshape(&dims(&[1, groups, og, taps]))?.transpose(-2, -1)?.expand(&dims(&[n, groups, taps, og]))?;
            let dy = a.contiguous()?.reshape(&dims(&[n, groups, og, positions]))?;
            let cols = Tensor::from_array(wt.backend().matmul(wt.array(), dy.array())?);
            let taps = PoolGeom {
                planes: n * g.in_channels,
                in_size: g.in_size,
                out_size: g.out_size,
                kernel: g.kernel,
                stride: g.stride,
                padding: g.padding,
                dilation: g.dilation,
            };
            Tensor::from_array(cols.backend().col2im(cols.array(), &taps, &g.image_shape())?)
        }
        Kernel::WeightGrad { patches: kept } => {
            // (G, og, N * P) @ (G, N * P, taps) -> (G, og, taps): the sum over images is part of
            // the product's inner dimension.
            let cols = match kept.filter(|p| kept_patches_fit(p, a, g)) {
                Some(p) => p.clone(),
                None => patches(a, g)?,
            };
            let cols = cols.reshape(&dims(&[n, groups, taps, positions]))?.permute(&[1, 0, 3, 2])?.contiguous()?;
            let cols = cols.reshape(&dims(&[groups, n * positions, taps]))?;
            let dy = b.contiguous()?.reshape(&dims(&[n, groups, og, positions]))?.permute(&[1, 2, 0, 3])?.contiguous()?;
            let dy = dy.reshape(&dims(&[groups, og, n * positions]))?;
            Tensor::from_array(dy.backend().matmul(dy.array(), cols.array())?).reshape(&dims(out_shape))?
        }
    };
    Ok((out, None))
}

/// The image size with the padding on both sides, large enough for every tap of `g`.
fn padded_size(g: &ConvGeom) -> (usize, usize) {
    let reach = |a: usize| (g.out_size[a] - 1) * g.stride[a] + (g.kernel[a] - 1) * g.dilation[a] + 1;
    ((g.in_size[0] + 2 * g.padding[0]).max(reach(0)), (g.in_size[1] + 2 * g.padding[1]).max(reach(1)))
}

/// The contiguous patch tensor (N, C, kh, kw, oh, ow) of a float32 or float64 image.
fn patches(x: &Tensor, g: &ConvGeom) -> Result<Tensor> {
    let (hp, wp) = padded_size(g);
    let c = g.in_channels;
    let image = if (hp, wp) == (g.in_size[0], g.in_size[1]) {
        x.contiguous()?
    } else {
        let image = Tensor::zeros_on(&[g.batch, c, hp, wp], x.dtype(), x.device())?;
        let inner = image.narrow(2, g.padding[0] as i64, g.in_size[0] as i64)?.narrow(3, g.padding[1] as i64, g.in_size[1] as i64)?;
        inner.backend().copy(x.array(), inner.array())?;
        image
    };
    let view = image.with_layout(crate::layout::Layout {
        shape: vec![g.batch, c, g.kernel[0], g.kernel[1], g.out_size[0], g.out_size[1]],
        strides: vec![c * hp * wp, hp * wp, g.dilation[0] * wp, g.dilation[1], g.stride[0] * wp, g.stride[1]],
        offset: image.storage_offset(),
    });
    view.contiguous()
}

pub(crate) fn check_same_dtype(input: &Tensor, weight: &Tensor) -> Result<()> {
    if input.dtype() != weight.dtype() {
        return Err(Error::DTypeMismatch { expected: input.dtype().title_name(), found: weight.dtype().title_name() });
    }
    Ok(())
}

impl Tensor {
    /// `conv2d(input (N, C, H, W), weight (O, C / groups, kh, kw), bias (O))`, checked in
    /// PyTorch's order: the bias's dtype, the shapes, the weight's dtype.
    pub fn conv2d(&self, weight: &Tensor, bias: Option<&Tensor>, p: &ConvParams) -> Result<Tensor> {
        if let Some(b) = bias {
            check_same_dtype(self, b)?;
        }
        let g = ConvGeom::conv2d(self.shape(), weight.shape(), bias.map(Tensor::shape), p)?;
        check_same_dtype(self, weight)?;
        self.conv_with(weight, bias, g)
    }

    /// `conv_transpose2d(input (N, C, h, w), weight (C, O / groups, kh, kw))`, without bias:
    /// the gradient of conv2d for its input, as a layer.
    pub fn conv_transpose2d(&self, weight: &Tensor, p: &ConvParams) -> Result<Tensor> {
        let g = ConvGeom::conv_transpose2d(self.shape(), weight.shape(), p)?;
        check_same_dtype(self, weight)?;
        self.conv_transpose_with(weight, g)
    }

    /// Slides `weight` over this (larger) image: the result has `g`'s output shape.
    pub(crate) fn conv_with(&self, weight: &Tensor, bias: Option<&Tensor>, g: ConvGeom) -> Result<Tensor> {
        // The weight gradient will unfold this image again: keep the forward pass's unfolding.
        let keep_patches = is_grad_enabled() && weight.requires_grad() && g.batch_patches() <= KEEP_PATCHES_LIMIT;
        let (out, patches) = run_kernel(Kernel::Forward { keep_patches }, self, weight, bias, &g, &g.result_shape())?;
        let cl = |t: &Tensor| crate::result_layout::suggests_channels_last(t.layout());
        let out = out.channels_last_result(cl(self) || cl(weight))?;
        match bias {
            Some(b) => record(Op::Conv { geom: g }, &[self, weight, b], &[&out], &[0, 1], &[]),
            None if self.requires_grad() || weight.requires_grad() => {
                // PyTorch's node lists a bias not given as a None edge: an empty tensor that
                // needs no gradient stands for it.
                let no_bias = Tensor::zeros(&[0], weight.dtype())?;
                record(Op::Conv { geom: g }, &[self, weight, &no_bias], &[&out], &[0, 1], &[])
            }
            None => {}
        }
        if let Some(patches) = patches {
            keep_buffers(&out, vec![patches]);
        }
        Ok(out)
    }

    /// Spreads this (smaller) image back through `weight` onto `g`'s larger image shape.
    pub(crate) fn conv_transpose_with(&self, weight: &Tensor, g: ConvGeom) -> Result<Tensor> {
        let (out, _) = run_kernel(Kernel::Transpose, self, weight, None, &g, &g.image_shape())?;
        record(Op::ConvTranspose { geom: g }, &[self, weight], &[&out], &[0, 1], &[]);
        Ok(out)
    }

    /// The weight gradient of `image.conv_with(weight, g)` given the gradient of its result;
    /// `patches`: the image's patch matrices, if its forward pass kept them.
    pub(crate) fn conv_weight_grad_with(image: &Tensor, grad_out: &Tensor, g: ConvGeom, patches: Option<&Tensor>) -> Result<Tensor> {
        let (out, _) = run_kernel(Kernel::WeightGrad { patches }, image, grad_out, None, &g, &g.weight_shape())?;
        record(Op::ConvWeight { geom: g }, &[image, grad_out], &[&out], &[0, 1], &[]);
        Ok(out)
    }
}
