//! Adaptive max pooling (`adaptive_max_pool1d`, `adaptive_max_pool2d` of `torch.nn.functional`):
//! the max over PyTorch's adaptive bins and its flat index in the input plane, with PyTorch's
//! checks. The values are gathered by recorded ops under one `AdaptiveMaxPool2DBackward0` node,
//! so the gradient reaches the winning elements, to any order.

use crate::autograd::composite;
use crate::cpu::buffer::collect_n;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// PyTorch's adaptive bins along an axis: per output position, the input positions of its bin,
/// padded to the widest bin by repeating the bin's last position (a repeat never changes a max,
/// nor which index wins); the positions flat, (out, width), and the width.
fn bin_table(length: usize, out: usize) -> Result<(Vec<i64>, usize)> {
    let bin = |i: usize| (i * length / out, ((i + 1) * length).div_ceil(out));
    let width = (0..out).map(|i| bin(i).1 - bin(i).0).max().unwrap_or(0);
    let position = |e: usize| {
        let (start, end) = bin(e / width);
        (start + e % width).min(end - 1) as i64
    };
    Ok((collect_n(out * width, (0..out * width).map(position))?, width))
}

fn check_nonempty(input: &Tensor) -> Result<()> {
    let first = usize::from(input.ndim() == 4);
    for d in first..input.ndim() {
        if input.shape()[d] == 0 {
            return Err(Error::Runtime(format!(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {:?} with dimension {d} being empty",
                input.shape()
            )));
        }
    }
    Ok(())
}

/// `F.adaptive_max_pool2d_with_indices`: the values (under PyTorch's node) and, per value, the
/// flat index (`row * width + col`) of its element in the input plane; a None size keeps the
/// input's.
pub fn adaptive_max_pool2d(input: &Tensor, output_size: [Option<i64>; 2]) -> Result<(Tensor, Tensor)> {
    if input.ndim() != 3 && input.ndim() != 4 {
        return Err(Error::Runtime(format!("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {:?}", input.shape())));
    }
    if !input.dtype().is_floating_point() {
        return Err(Error::NotImplemented(format!("\"adaptive_max_pool2d\" not implemented for '{}'", input.dtype().title_name())));
    }
    let n = input.ndim();
    let (h, w) = (input.shape()[n - 2], input.shape()[n - 1]);
    let (oh, ow) = (output_size[0].unwrap_or(h as i64), output_size[1].unwrap_or(w as i64));
    let lead: Vec<i64> = input.shape()[..n - 2].iter().map(|&s| s as i64).collect();
    let with = |tail: &[i64]| -> Vec<i64> { lead.iter().chain(tail).copied().collect() };
    if oh < 0 || ow < 0 {
        return Err(Error::NegativeDimension(oh.min(ow), with(&[oh, ow])));
    }
    check_nonempty(input)?;
    let node = |values: Tensor| composite("AdaptiveMaxPool2DBackward0", &[input], vec![values]).pop().expect("one output in, one out");
    if oh == 0 || ow == 0 {
        // Nothing to pool: empty results, the values still connected to the input for autograd.
        let values = input.reshape(&with(&[(h * w) as i64]))?.narrow(-1, 0, 0)?.reshape(&with(&[oh, ow]))?;
        let shape: Vec<usize> = with(&[oh, ow]).iter().map(|&s| s as usize).collect();
        return Ok((node(values), Tensor::zeros_on(&shape, DType::I64, input.device())?));
    }
    let (oh, ow) = (oh as usize, ow as usize);
    let (rows, kh) = bin_table(h, oh)?;
    let (cols, kw) = bin_table(w, ow)?;
    let dev = input.device();
    // The flat position in the input plane of every window element, (oh, ow, kh * kw).
    let window = kh * kw;
    let flat_at = |e: usize| {
        let (i, j, a, b) = (e / (ow * window), e / window % ow, e % window / kw, e % kw);
        rows[i * kh + a] * w as i64 + cols[j * kw + b]
    };
    let flat = collect_n(oh * ow * window, (0..oh * ow * window).map(flat_at))?;
    let flat = Tensor::from_vec(flat, &[oh, ow, window])?.to_device(dev)?;
    let (r, c) = (Tensor::from_vec(rows, &[oh * kh])?.to_device(dev)?, Tensor::from_vec(cols, &[ow * kw])?.to_device(dev)?);
    // [.., oh*kh, ow*kw] -> [.., oh, kh, ow, kw] -> [.., oh, ow, kh*kw]
    let x = input.index_select(-2, &r)?.index_select(-1, &c)?;
    let windows = with(&[oh as i64, ow as i64, window as i64]);
    let x = x.reshape(&with(&[oh as i64, kh as i64, ow as i64, kw as i64]))?.movedim(-3, -2)?.reshape(&windows)?;
    let (values, arg) = x.max_min_dim(-1, false, true)?;
    let indices = flat.expand(&windows)?.gather(-1, &arg.unsqueeze(-1)?)?.squeeze_dims(&[-1])?;
    Ok((node(values), indices))
}

/// `F.adaptive_max_pool1d_with_indices`: as PyTorch, the 2-d op over a height-1 image, the height
/// squeezed away.
pub fn adaptive_max_pool1d(input: &Tensor, output_size: Option<i64>) -> Result<(Tensor, Tensor)> {
    if input.ndim() != 2 && input.ndim() != 3 {
        return Err(Error::Runtime(format!(
            "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)",
            input.ndim()
        )));
    }
    let (values, indices) = adaptive_max_pool2d(&input.unsqueeze(-2)?, [Some(1), output_size])?;
    Ok((values.squeeze_dims(&[-2])?, indices.squeeze_dims(&[-2])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_indices_node_and_gradient() -> Result<()> {
        let x = Tensor::from_vec(vec![1.0f64, 5.0, 2.0, 8.0, 3.0], &[1, 1, 5])?;
        x.set_requires_grad(true)?;
        let (v, i) = adaptive_max_pool1d(&x, Some(3))?;
        assert_eq!(v.to_vec::<f64>()?, [5.0, 8.0, 8.0]);
        assert_eq!(i.to_vec::<i64>()?, [1, 3, 3]);
        assert_eq!(v.grad_fn().expect("recorded").name(), "SqueezeBackward1");
        let pooled = v.grad_fn().expect("recorded").next_edges()[0].as_ref().expect("an edge").node.name();
        assert_eq!(pooled, "AdaptiveMaxPool2DBackward0");
        let g = crate::autograd::grad(&[v.sum(None, false)?], &[None], std::slice::from_ref(&x), false, false, false)?;
        assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?, [0.0, 1.0, 0.0, 2.0, 0.0]);
        Ok(())
    }
}
