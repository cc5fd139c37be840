//! Average pooling (`avg_pool1d`, `avg_pool2d`) and adaptive average pooling
//! (`adaptive_avg_pool1d`, `adaptive_avg_pool2d`) of `torch.nn.functional`, with PyTorch's checks,
//! written in tensor ops under PyTorch's nodes (`AvgPool2DBackward0`,
//! `AdaptiveAvgPool2DBackward0`): the gradient, to any order, is the recorded body's, on every
//! device that has the body's ops.

use crate::autograd::named;
use crate::cpu::buffer::collect_n;
use crate::error::{Error, Result};
use crate::tensor::{BinaryOp, Scalar, Tensor};

use super::output_size::check_output_size;
use super::pad::constant_pad;

/// PyTorch's error for an input of neither `spatial + 1` nor `spatial + 2` dims (unbatched or
/// batched).
pub(crate) fn check_pool_input(name: &str, input: &Tensor, spatial: usize) -> Result<()> {
    if input.ndim() != spatial + 1 && input.ndim() != spatial + 2 {
        return Err(Error::Runtime(format!(
            "{name}: Expected {}D or {}D (batch mode) tensor for input, but got: {:?}",
            spatial + 1,
            spatial + 2,
            input.shape()
        )));
    }
    Ok(())
}

/// The windows of an average pooling along one axis.
struct Windows {
    /// How many windows (the output length).
    out: usize,
    /// Per window, how many elements its average divides by.
    counts: Vec<i64>,
    /// Zeros appended after the input so that every window (the partial last one of ceil mode
    /// too) lies inside the padded input.
    right_pad: i64,
}

/// The windows of kernel `k`, stride `s` and padding `p` over an axis of `length`.
fn windows(length: usize, k: i64, s: i64, p: i64, ceil_mode: bool, count_include_pad: bool) -> Result<Windows> {
    let length = length as i64;
    let span = length + 2 * p - k;
    if span < 0 {
        return Err(Error::Runtime(format!(
            "Given input size {length} with padding {p} is too small for a kernel of size {k}: Output size is too small"
        )));
    }
    let mut out = if ceil_mode { (span + s - 1) / s } else { span / s } + 1;
    // The last window of ceil mode must start inside the input or its left padding.
    if ceil_mode && (out - 1) * s >= length + p {
        out -= 1;
    }
    let count = |i: i64| {
        let start = i * s - p;
        let end = (start + k).min(length + p);
        if count_include_pad {
            end - start
        } else {
            end.min(length) - start.max(0)
        }
    };
    let counts = collect_n(out as usize, (0..out).map(count))?;
    Ok(Windows { out: out as usize, counts, right_pad: ((out - 1) * s + k - length - p).max(0) })
}

/// PyTorch's checks of a pooling's geometry, per axis: a stride of zero, then the padding (not
/// negative, at most half the kernel), then the signs of kernel and stride.
fn check_geometry(kernel: &[i64], stride: &[i64], padding: &[i64]) -> Result<()> {
    for ((&k, &s), &p) in kernel.iter().zip(stride).zip(padding) {
        if s == 0 {
            return Err(Error::Runtime("stride should not be zero".into()));
        }
        if p < 0 {
            return Err(Error::Runtime(format!("pad must be non-negative, but got pad: {p}")));
        }
        if p > k / 2 {
            return Err(Error::Runtime(format!(
                "pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and dilation=1"
            )));
        }
    }
    let (kh, kw, sh, sw) = (kernel[0], kernel[kernel.len() - 1], stride[0], stride[stride.len() - 1]);
    if kh <= 0 || kw <= 0 {
        return Err(Error::Runtime(format!("kernel size should be greater than zero, but got kH: {kh} kW: {kw}")));
    }
    if sh <= 0 || sw <= 0 {
        return Err(Error::Runtime(format!("stride should be greater than zero, but got dH: {sh} dW: {sw}")));
    }
    Ok(())
}

/// Average pooling over the last `kernel.len()` dims: zero padding, then a sum over the windows
/// divided by each window's count (or by `divisor_override`).
fn avg_pool(
    input: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    let spatial = kernel.len();
    let first = input.ndim() - spatial;
    let mut divisors: Option<Tensor> = None;
    let mut pads = vec![];
    for a in 0..spatial {
        let w = windows(input.shape()[first + a], kernel[a], stride[a], padding[a], ceil_mode, count_include_pad)?;
        pads.push((padding[a], w.right_pad));
        // Broadcast along axis `a` against the output's later axes.
        let mut shape = vec![1i64; spatial - a];
        shape[0] = w.out as i64;
        let axis = Tensor::from_vec(w.counts, &[w.out])?.to_dtype(input.dtype())?.to_device(input.device())?.reshape(&shape)?;
        divisors = Some(match divisors {
            None => axis,
            Some(d) => d.binary(BinaryOp::Mul, &axis)?,
        });
    }
    // F.pad's order: the last dim's amounts first.
    let flat: Vec<i64> = pads.iter().rev().flat_map(|&(before, after)| [before, after]).collect();
    let mut x = constant_pad(input, &flat, Scalar::Float(0.0))?;
    for a in 0..spatial {
        x = x.unfold((first + a) as i64, kernel[a], stride[a])?;
    }
    let window_dims: Vec<i64> = (-(spatial as i64)..0).collect();
    let summed = x.sum(Some(&window_dims), false)?;
    match divisor_override {
        Some(d) => summed.binary_scalar(BinaryOp::Div, Scalar::Int(d), false),
        None => summed.binary(BinaryOp::Div, &divisors.expect("at least one pooled axis")),
    }
}

/// `F.avg_pool2d`; `stride` None is the kernel size.
pub fn avg_pool2d(
    input: &Tensor,
    kernel_size: [i64; 2],
    stride: Option<[i64; 2]>,
    padding: [i64; 2],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    check_pool_input("avg_pool2d", input, 2)?;
    let stride = stride.unwrap_or(kernel_size);
    if divisor_override == Some(0) {
        return Err(Error::Runtime("divisor must be not zero".into()));
    }
    check_geometry(&kernel_size, &stride, &padding)?;
    named("AvgPool2DBackward0", &[input], || {
        let out = avg_pool(input, &kernel_size, &stride, &padding, ceil_mode, count_include_pad, divisor_override)?;
        // A channels-last input gives a channels-last result, as in PyTorch.
        match crate::result_layout::suggests_channels_last(input.layout()) {
            true => out.copy_in_order(crate::result_layout::channels_last_order(out.shape())?, out.dtype()),
            false => Ok(out),
        }
    })
}

/// `F.avg_pool1d`: as PyTorch, the 2-d op over a height-1 image, the height squeezed away.
pub fn avg_pool1d(
    input: &Tensor,
    kernel_size: i64,
    stride: Option<i64>,
    padding: i64,
    ceil_mode: bool,
    count_include_pad: bool,
) -> Result<Tensor> {
    check_pool_input("avg_pool1d", input, 1)?;
    let (kernel, stride, padding) = ([1, kernel_size], [1, stride.unwrap_or(kernel_size)], [0, padding]);
    check_geometry(&kernel, &stride, &padding)?;
    let image = input.unsqueeze(-2)?;
    named("AvgPool2DBackward0", &[&image], || avg_pool(&image, &kernel, &stride, &padding, ceil_mode, count_include_pad, None))?
        .squeeze_dims(&[-2])
}

/// The (out, length) matrix averaging PyTorch's adaptive bins along one axis: bin `i` covers
/// `[floor(i * length / out), ceil((i + 1) * length / out))`. The weights `1 / count` are computed
/// in float64, then rounded once to `like`'s dtype, on its device.
fn averaging_matrix(length: usize, out: usize, like: &Tensor) -> Result<Tensor> {
    let weight = |e: usize| {
        let (i, j) = (e / length, e % length);
        let (start, end) = (i * length / out, ((i + 1) * length).div_ceil(out));
        if (start..end).contains(&j) {
            1.0 / (end - start) as f64
        } else {
            0.0
        }
    };
    let n = out.checked_mul(length).ok_or_else(|| Error::StorageSizeOverflow(vec![out, length]))?;
    let weights = collect_n(n, (0..n).map(weight))?;
    Tensor::from_vec(weights, &[out, length])?.to_dtype(like.dtype())?.to_device(like.device())
}

/// `F.adaptive_avg_pool2d`; a None size keeps the input's.
pub fn adaptive_avg_pool2d(input: &Tensor, output_size: [Option<i64>; 2]) -> Result<Tensor> {
    check_pool_input("adaptive_avg_pool2d", input, 2)?;
    let n = input.ndim();
    let (h, w) = (input.shape()[n - 2], input.shape()[n - 1]);
    let (oh, ow) = (output_size[0].unwrap_or(h as i64), output_size[1].unwrap_or(w as i64));
    if oh < 0 || ow < 0 {
        return Err(Error::Runtime(format!(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{oh}, {ow}}}"
        )));
    }
    for d in n - 3..n {
        if input.shape()[d] == 0 {
            return Err(Error::Runtime(format!(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {:?} with dimension {d} being empty",
                input.shape()
            )));
        }
    }
    let lead: Vec<i64> = input.shape()[..n - 2].iter().map(|&s| s as i64).collect();
    let with = |tail: &[i64]| -> Vec<i64> { lead.iter().chain(tail).copied().collect() };
    if oh == 0 || ow == 0 {
        // Nothing to average: an empty result, still connected to the input for autograd.
        return named("AdaptiveAvgPool2DBackward0", &[input], || {
            input.reshape(&with(&[(h * w) as i64]))?.narrow(-1, 0, 0)?.reshape(&with(&[oh, ow]))
        });
    }
    check_output_size(input, &[oh, ow])?;
    if (oh, ow) == (1, 1) {
        // PyTorch computes this case as a mean too (its node is MeanBackward1).
        return input.mean(Some(&[-2, -1]), true);
    }
    let (oh, ow) = (oh as usize, ow as usize);
    named("AdaptiveAvgPool2DBackward0", &[input], || {
        if h % oh == 0 && w % ow == 0 {
            return input.reshape(&with(&[oh as i64, (h / oh) as i64, ow as i64, (w / ow) as i64]))?.mean(Some(&[-3, -1]), false);
        }
        // Uneven bins: averaging along each axis is a product with a fixed matrix.
        let rows = averaging_matrix(h, oh, input)?.matmul(input)?;
        rows.matmul(&averaging_matrix(w, ow, input)?.t()?)
    })
}

/// `F.adaptive_avg_pool1d`: as PyTorch, the 2-d op over a height-1 image, the height squeezed
/// away.
pub fn adaptive_avg_pool1d(input: &Tensor, output_size: Option<i64>) -> Result<Tensor> {
    check_pool_input("adaptive_avg_pool1d", input, 1)?;
    adaptive_avg_pool2d(&input.unsqueeze(-2)?, [Some(1), output_size])?.squeeze_dims(&[-2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::test_support::{grad_of, leaf};

    #[test]
    fn average_pools_have_pytorchs_nodes_and_gradients() -> Result<()> {
        let x = leaf((0..16).map(f64::from).collect(), &[1, 1, 4, 4])?;
        let y = avg_pool2d(&x, [3, 3], Some([1, 1]), [1, 1], false, false, None)?;
        assert_eq!(y.grad_fn().expect("recorded").name(), "AvgPool2DBackward0");
        assert_eq!(y.to_vec::<f64>()?[0], (0.0 + 1.0 + 4.0 + 5.0) / 4.0);
        // Each input element is in 4, 6 or 9 windows, each dividing by its count.
        let g = grad_of(&y, &x)?;
        assert!((g[0] - (1.0 / 4.0 + 2.0 / 6.0 + 1.0 / 9.0)).abs() < 1e-12);

        let a = adaptive_avg_pool2d(&x, [Some(3), Some(2)])?;
        assert_eq!(a.grad_fn().expect("recorded").name(), "AdaptiveAvgPool2DBackward0");
        assert_eq!(a.shape(), &[1, 1, 3, 2]);
        // Rows [0, 2), [1, 3), [2, 4): the middle rows are in two bins.
        assert_eq!(grad_of(&a, &x)?[..8], [0.25, 0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5]);

        let v = leaf(vec![1.0, 2.0, 3.0, 4.0, 5.0], &[1, 5])?;
        let p = avg_pool1d(&v, 2, None, 0, true, true)?;
        assert_eq!(p.to_vec::<f64>()?, [1.5, 3.5, 5.0]);
        assert_eq!(p.grad_fn().expect("recorded").name(), "SqueezeBackward1");
        assert_eq!(grad_of(&p, &v)?, [0.5, 0.5, 0.5, 0.5, 1.0]);
        Ok(())
    }
}
