//! Convolutions with PyTorch's shape rules: conv2d and conv_transpose2d, and the weight
//! gradient as an op of its own so that every gradient of a convolution is differentiable again.
//!
//! All three ops share one `ConvGeom`, described from the side of the larger image: a conv2d
//! maps that image to the smaller one, conv_transpose2d maps the smaller back, and the weight
//! gradient pairs the two. Their backward formulas are written with each other.

use crate::autograd::{is_grad_enabled, keep_buffers, record, GradMode, Op};
use crate::cpu::conv::{batch_patches, conv2d_forward, conv2d_transpose, conv2d_weight_grad, ConvGeom};
use crate::cpu::num::Arith;
use crate::cpu::pool::PoolGeom;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::arith::title_name;
use crate::tensor::Tensor;

/// Stride, padding and dilation per spatial axis, and the number of groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvParams {
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub groups: usize,
}

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
    /// `patches`: those a forward pass over the same image kept (on the CPU, in its dtype).
    WeightGrad {
        patches: Option<&'a Tensor>,
    },
}

/// Runs `kernel` on contiguous copies of `a`, `b` (and the forward's `bias`): the result and,
/// for a forward pass asked to keep them, the patch matrices (a flat tensor). Half-precision
/// inputs compute in float32 (and keep nothing).
fn run_kernel(
    kernel: Kernel,
    a: &Tensor,
    b: &Tensor,
    bias: Option<&Tensor>,
    g: &ConvGeom,
    out_shape: &[usize],
) -> Result<(Tensor, Option<Tensor>)> {
    fn typed<T: Arith>(
        kernel: Kernel,
        a: &Tensor,
        b: &Tensor,
        bias: Option<&Tensor>,
        g: &ConvGeom,
        out_shape: &[usize],
    ) -> Result<(Tensor, Option<Tensor>)> {
        let (a, b) = (a.contiguous()?, b.contiguous()?);
        let bias = bias.map(|t| t.to_vec::<T>()).transpose()?;
        let kept = match kernel {
            Kernel::WeightGrad { patches: Some(p) } if p.dtype() == T::DTYPE && p.numel() == batch_patches(g) => Some(p.contiguous()?),
            _ => None,
        };
        let (data, patches) = a.with_slice::<T, _>("convolution", |sa, la| {
            b.with_slice::<T, _>("convolution", |sb, lb| {
                let (sa, sb) = (&sa[la.offset..][..a.numel()], &sb[lb.offset..][..b.numel()]);
                match kernel {
                    Kernel::Forward { keep_patches } => conv2d_forward(sa, sb, bias.as_deref(), g, keep_patches),
                    Kernel::Transpose => Ok((conv2d_transpose(sa, sb, g)?, None)),
                    Kernel::WeightGrad { .. } => match &kept {
                        Some(p) => p.with_slice::<T, _>("convolution", |sp, lp| {
                            Ok((conv2d_weight_grad(sa, sb, g, Some(&sp[lp.offset..][..p.numel()]))?, None))
                        })?,
                        None => Ok((conv2d_weight_grad(sa, sb, g, None)?, None)),
                    },
                }
            })
        })???;
        let patches = patches.map(|p| Tensor::from_vec(p, &[batch_patches(g)])).transpose()?;
        Ok((Tensor::from_vec(data, out_shape)?, patches))
    }
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
    if !a.device().is_cpu() {
        return run_on_device(kernel, a, b, bias, g, out_shape);
    }
    match a.dtype() {
        DType::F32 => typed::<f32>(kernel, a, b, bias, g, out_shape),
        DType::F64 => typed::<f64>(kernel, a, b, bias, g, out_shape),
        d => Err(no_kernel_for(d)),
    }
}

/// PyTorch's error for a convolution of a dtype it has no kernel for (integers and bool): the
/// same on every device, as the GPU computes what the CPU computes.
fn no_kernel_for(d: DType) -> Error {
    Error::Runtime(format!("\"slow_conv2d_cpu\" not implemented for '{}'", title_name(d)))
}

/// The three kernels on a GPU, built from strided views and the copy, matmul and col2im
/// kernels: the patch matrix of an image is a 6-dim view of its zero-padded copy (batch,
/// channel, kernel row and column, output row and column), copied contiguous; the transpose
/// sums each image element's patch gradients in one kernel, tap by tap (a fixed order, so
/// results are the same on every run). A forward pass asked to keep its patch matrices returns
/// them, (N, G, taps, positions) contiguous, for the weight gradient.
fn run_on_device(
    kernel: Kernel,
    a: &Tensor,
    b: &Tensor,
    bias: Option<&Tensor>,
    g: &ConvGeom,
    out_shape: &[usize],
) -> Result<(Tensor, Option<Tensor>)> {
    if !matches!(a.dtype(), DType::F32 | DType::F64) {
        return Err(no_kernel_for(a.dtype()));
    }
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
            Tensor::from_array(cols.backend().col2im(cols.array(), &taps, &image_shape(g))?)
        }
        Kernel::WeightGrad { patches: kept } => {
            // (G, og, N * P) @ (G, N * P, taps) -> (G, og, taps): the sum over images is part of
            // the product's inner dimension.
            let cols = match kept {
                Some(p) if p.device() == a.device() && p.dtype() == a.dtype() && p.numel() == batch_patches(g) => p.clone(),
                _ => patches(a, g)?,
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

/// The contiguous patch tensor (N, C, kh, kw, oh, ow) of a float32 or float64 image on a GPU.
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

fn image_shape(g: &ConvGeom) -> Vec<usize> {
    vec![g.batch, g.in_channels, g.in_size[0], g.in_size[1]]
}

fn result_shape(g: &ConvGeom) -> Vec<usize> {
    vec![g.batch, g.out_channels, g.out_size[0], g.out_size[1]]
}

fn weight_shape(g: &ConvGeom) -> Vec<usize> {
    vec![g.out_channels, g.in_channels / g.groups, g.kernel[0], g.kernel[1]]
}

fn check_same_dtype(input: &Tensor, weight: &Tensor) -> Result<()> {
    if input.dtype() != weight.dtype() {
        return Err(Error::DTypeMismatch { expected: title_name(input.dtype()), found: title_name(weight.dtype()) });
    }
    Ok(())
}

fn check_params(p: &ConvParams) -> Result<()> {
    if p.groups == 0 {
        return Err(Error::Runtime("non-positive groups is not supported".into()));
    }
    if p.stride.contains(&0) {
        return Err(Error::Runtime("non-positive stride is not supported".into()));
    }
    if p.dilation.contains(&0) {
        return Err(Error::Runtime("dilation should be greater than zero".into()));
    }
    Ok(())
}

impl Tensor {
    /// `conv2d(input (N, C, H, W), weight (O, C / groups, kh, kw), bias (O))`.
    pub fn conv2d(&self, weight: &Tensor, bias: Option<&Tensor>, p: &ConvParams) -> Result<Tensor> {
        check_params(p)?;
        if weight.ndim() != 4 {
            return Err(Error::Runtime(format!("Expected 4-dimensional weight for conv2d, but got weight of size {:?}", weight.shape())));
        }
        if self.ndim() != 4 {
            return Err(Error::Runtime(format!(
                "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {:?}",
                self.shape()
            )));
        }
        check_same_dtype(self, weight)?;
        let (x, w) = (self.shape(), weight.shape());
        if let Some(b) = bias {
            check_same_dtype(self, b)?;
            if b.shape() != [w[0]] {
                return Err(Error::Runtime(format!(
                    "Given weight of size {:?}, expected bias to be 1-dimensional with {} elements, but got bias of size {:?} instead",
                    w,
                    w[0],
                    b.shape()
                )));
            }
        }
        if w[0] % p.groups != 0 {
            return Err(Error::Runtime(format!(
                "Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of size {:?} instead",
                p.groups, p.groups, w
            )));
        }
        if w[1] * p.groups != x[1] {
            return Err(Error::Runtime(format!(
                "Given groups={}, weight of size {:?}, expected input{:?} to have {} channels, but got {} channels instead",
                p.groups,
                w,
                x,
                w[1] * p.groups,
                x[1]
            )));
        }
        let padded = [x[2] + 2 * p.padding[0], x[3] + 2 * p.padding[1]];
        let reach = [p.dilation[0] * (w[2].max(1) - 1) + 1, p.dilation[1] * (w[3].max(1) - 1) + 1];
        if w[2] == 0 || w[3] == 0 || padded[0] < reach[0] || padded[1] < reach[1] {
            return Err(Error::Runtime(format!(
                "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size can't be greater than actual input size",
                padded[0], padded[1], reach[0], reach[1]
            )));
        }
        let g = ConvGeom {
            batch: x[0],
            groups: p.groups,
            in_channels: x[1],
            out_channels: w[0],
            in_size: [x[2], x[3]],
            out_size: [(padded[0] - reach[0]) / p.stride[0] + 1, (padded[1] - reach[1]) / p.stride[1] + 1],
            kernel: [w[2], w[3]],
            stride: p.stride,
            padding: p.padding,
            dilation: p.dilation,
        };
        self.conv_with(weight, bias, g)
    }

    /// `conv_transpose2d(input (N, C, h, w), weight (C, O / groups, kh, kw))`, without bias:
    /// the gradient of conv2d for its input, as a layer.
    pub fn conv_transpose2d(&self, weight: &Tensor, p: &ConvParams, output_padding: [usize; 2]) -> Result<Tensor> {
        check_params(p)?;
        if weight.ndim() != 4 || self.ndim() != 4 {
            return Err(Error::Runtime(format!(
                "Expected 4D (batched) input and 4D weight to conv_transpose2d, but got input of size: {:?} and weight of size {:?}",
                self.shape(),
                weight.shape()
            )));
        }
        check_same_dtype(self, weight)?;
        let (x, w) = (self.shape(), weight.shape());
        if w[0] != x[1] || w[0] % p.groups != 0 {
            return Err(Error::Runtime(format!(
                "Given transposed=1, weight of size {:?}, expected input{:?} to have {} channels, but got {} channels instead",
                w, x, w[0], x[1]
            )));
        }
        for a in 0..2 {
            if output_padding[a] >= p.stride[a] && output_padding[a] >= p.dilation[a] {
                return Err(Error::Runtime(format!(
                    "output padding must be smaller than either stride or dilation, but got output_padding_height: {} output_padding_width: {} stride_height: {} stride_width: {} dilation_height: {} dilation_width: {}",
                    output_padding[0], output_padding[1], p.stride[0], p.stride[1], p.dilation[0], p.dilation[1]
                )));
            }
        }
        let size = |a: usize| -> Option<usize> {
            ((x[2 + a].checked_sub(1)? * p.stride[a] + p.dilation[a] * (w[2 + a].checked_sub(1)?) + output_padding[a] + 1)
                .checked_sub(2 * p.padding[a]))
            .filter(|&s| s > 0)
        };
        let (Some(h), Some(wd)) = (size(0), size(1)) else {
            return Err(Error::Runtime(format!(
                "Given input size per channel: ({} x {}). Calculated output size per channel is too small",
                x[2], x[3]
            )));
        };
        let g = ConvGeom {
            batch: x[0],
            groups: p.groups,
            in_channels: w[1] * p.groups,
            out_channels: w[0],
            in_size: [h, wd],
            out_size: [x[2], x[3]],
            kernel: [w[2], w[3]],
            stride: p.stride,
            padding: p.padding,
            dilation: p.dilation,
        };
        self.conv_transpose_with(weight, g)
    }

    /// Slides `weight` over this (larger) image: the result has `g`'s output shape.
    pub(crate) fn conv_with(&self, weight: &Tensor, bias: Option<&Tensor>, g: ConvGeom) -> Result<Tensor> {
        // The weight gradient will unfold this image again: keep the forward pass's unfolding.
        let keep_patches = is_grad_enabled() && weight.requires_grad() && batch_patches(&g) <= KEEP_PATCHES_LIMIT;
        let (out, patches) = run_kernel(Kernel::Forward { keep_patches }, self, weight, bias, &g, &result_shape(&g))?;
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
        let (out, _) = run_kernel(Kernel::Transpose, self, weight, None, &g, &image_shape(&g))?;
        record(Op::ConvTranspose { geom: g }, &[self, weight], &[&out], &[0, 1], &[]);
        Ok(out)
    }

    /// The weight gradient of `image.conv_with(weight, g)` given the gradient of its result;
    /// `patches`: the image's patch matrices, if its forward pass kept them.
    pub(crate) fn conv_weight_grad_with(image: &Tensor, grad_out: &Tensor, g: ConvGeom, patches: Option<&Tensor>) -> Result<Tensor> {
        let (out, _) = run_kernel(Kernel::WeightGrad { patches }, image, grad_out, None, &g, &weight_shape(&g))?;
        record(Op::ConvWeight { geom: g }, &[image, grad_out], &[&out], &[0, 1], &[]);
        Ok(out)
    }
}
