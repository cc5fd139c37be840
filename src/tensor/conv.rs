//! Convolutions with PyTorch's shape rules: conv2d and conv_transpose2d, and the weight
//! gradient as an op of its own so that every gradient of a convolution is differentiable again.
//!
//! All three ops share one `ConvGeom`, described from the side of the larger image: a conv2d
//! maps that image to the smaller one, conv_transpose2d maps the smaller back, and the weight
//! gradient pairs the two. Their backward formulas are written with each other.

use crate::autograd::{record, GradMode, Op};
use crate::cpu::conv::{conv2d_forward, conv2d_transpose, conv2d_weight_grad, ConvGeom};
use crate::cpu::num::Arith;
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

/// Which of the three convolution kernels to run.
#[derive(Clone, Copy)]
enum Kernel {
    Forward,
    Transpose,
    WeightGrad,
}

/// Runs `kernel` on contiguous copies of `a`, `b` (and the forward's `bias`); half-precision
/// inputs compute in float32.
fn run_kernel(kernel: Kernel, a: &Tensor, b: &Tensor, bias: Option<&Tensor>, g: &ConvGeom, out_shape: &[usize]) -> Result<Tensor> {
    fn typed<T: Arith>(kernel: Kernel, a: &Tensor, b: &Tensor, bias: Option<&Tensor>, g: &ConvGeom, out_shape: &[usize]) -> Result<Tensor> {
        let (a, b) = (a.contiguous()?, b.contiguous()?);
        let bias = bias.map(|t| t.to_vec::<T>()).transpose()?;
        let data = a.with_slice::<T, _>("convolution", |sa, la| {
            b.with_slice::<T, _>("convolution", |sb, lb| {
                let (sa, sb) = (&sa[la.offset..][..a.numel()], &sb[lb.offset..][..b.numel()]);
                match kernel {
                    Kernel::Forward => conv2d_forward(sa, sb, bias.as_deref(), g),
                    Kernel::Transpose => conv2d_transpose(sa, sb, g),
                    Kernel::WeightGrad => conv2d_weight_grad(sa, sb, g),
                }
            })
        })??;
        Tensor::from_vec(data, out_shape)
    }
    crate::tensor::check_alloc(out_shape, a.dtype())?;
    let _raw = GradMode::disabled();
    match a.dtype() {
        DType::F32 => typed::<f32>(kernel, a, b, bias, g, out_shape),
        DType::F64 => typed::<f64>(kernel, a, b, bias, g, out_shape),
        d @ (DType::F16 | DType::BF16) => {
            let bias = bias.map(|t| t.to_dtype(DType::F32)).transpose()?;
            typed::<f32>(kernel, &a.to_dtype(DType::F32)?, &b.to_dtype(DType::F32)?, bias.as_ref(), g, out_shape)?.to_dtype(d)
        }
        d => Err(Error::Runtime(format!("\"slow_conv2d_cpu\" not implemented for '{}'", title_name(d)))),
    }
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
            return Err(Error::Runtime(format!("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {:?}", self.shape())));
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
            ((x[2 + a].checked_sub(1)? * p.stride[a] + p.dilation[a] * (w[2 + a].checked_sub(1)?) + output_padding[a] + 1).checked_sub(2 * p.padding[a]))
                .filter(|&s| s > 0)
        };
        let (Some(h), Some(wd)) = (size(0), size(1)) else {
            return Err(Error::Runtime(format!("Given input size per channel: ({} x {}). Calculated output size per channel is too small", x[2], x[3])));
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
        let out = run_kernel(Kernel::Forward, self, weight, bias, &g, &result_shape(&g))?;
        match bias {
            Some(b) => record(Op::Conv { geom: g }, &[self, weight, b], &[&out], &[0, 1], &[]),
            None => record(Op::Conv { geom: g }, &[self, weight], &[&out], &[0, 1], &[]),
        }
        Ok(out)
    }

    /// Spreads this (smaller) image back through `weight` onto `g`'s larger image shape.
    pub(crate) fn conv_transpose_with(&self, weight: &Tensor, g: ConvGeom) -> Result<Tensor> {
        let out = run_kernel(Kernel::Transpose, self, weight, None, &g, &image_shape(&g))?;
        record(Op::ConvTranspose { geom: g }, &[self, weight], &[&out], &[0, 1], &[]);
        Ok(out)
    }

    /// The weight gradient of `image.conv_with(weight, g)` given the gradient of its result.
    pub(crate) fn conv_weight_grad_with(image: &Tensor, grad_out: &Tensor, g: ConvGeom) -> Result<Tensor> {
        let out = run_kernel(Kernel::WeightGrad, image, grad_out, None, &g, &weight_shape(&g))?;
        record(Op::ConvWeight { geom: g }, &[image, grad_out], &[&out], &[0, 1], &[]);
        Ok(out)
    }
}
