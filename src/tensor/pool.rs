//! Max pooling with PyTorch's output-size rules; the gradient flows through the chosen positions.

use crate::autograd::{is_grad_enabled, record, Op};
use crate::cpu::pool::{max_pool2d, PoolGeom};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::with_dtype;

/// Window size, stride, padding and dilation per spatial axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolParams {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub ceil_mode: bool,
}

/// Output length of one axis, as PyTorch computes it (a last window starting in the right
/// padding is dropped in ceil mode).
fn pooled_len(len: usize, k: usize, s: usize, p: usize, d: usize, ceil: bool) -> Option<usize> {
    let span = (len + 2 * p).checked_sub(d * (k - 1) + 1)?;
    let mut out = if ceil { span.div_ceil(s) } else { span / s } + 1;
    if ceil && (out - 1) * s >= len + p {
        out -= 1;
    }
    Some(out)
}

impl Tensor {
    /// `max_pool2d` over the last two dims of a 3-D or 4-D tensor: the maxima and their flat
    /// positions within each input plane.
    pub fn max_pool2d_with_indices(&self, p: &PoolParams) -> Result<(Tensor, Tensor)> {
        if !(self.ndim() == 3 || self.ndim() == 4) || self.shape()[self.ndim() - 3..].contains(&0) {
            return Err(Error::Runtime(format!("non-empty 3D or 4D (batch mode) tensor expected for input, but got: {:?}", self.shape())));
        }
        if p.kernel.contains(&0) {
            return Err(Error::Runtime(format!("kernel size should be greater than zero, but got kH: {} kW: {}", p.kernel[0], p.kernel[1])));
        }
        if p.stride.contains(&0) {
            return Err(Error::Runtime(format!("stride should be greater than zero, but got dH: {} dW: {}", p.stride[0], p.stride[1])));
        }
        if p.dilation.contains(&0) {
            return Err(Error::Runtime(format!("dilation should be greater than zero, but got dilationH: {} dilationW: {}", p.dilation[0], p.dilation[1])));
        }
        for a in 0..2 {
            if p.padding[a] > p.kernel[a] / 2 {
                return Err(Error::Runtime(format!(
                    "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                    p.padding[a], p.kernel[a], p.dilation[a]
                )));
            }
        }
        let nd = self.ndim();
        let [h, w] = [self.shape()[nd - 2], self.shape()[nd - 1]];
        let len = |a: usize, n: usize| pooled_len(n, p.kernel[a], p.stride[a], p.padding[a], p.dilation[a], p.ceil_mode);
        let g = match (len(0, h), len(1, w)) {
            (Some(oh), Some(ow)) if oh > 0 && ow > 0 => PoolGeom {
                planes: self.numel() / (h * w),
                in_size: [h, w],
                out_size: [oh, ow],
                kernel: p.kernel,
                stride: p.stride,
                padding: p.padding,
                dilation: p.dilation,
            },
            (oh, ow) => {
                let c = self.shape()[nd - 3];
                return Err(Error::Runtime(format!(
                    "Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{}x{}). Output size is too small",
                    oh.unwrap_or(0),
                    ow.unwrap_or(0)
                )));
            }
        };
        if !g.windows_overlap_input() {
            return Err(Error::Runtime("max_pool2d: a pooling window lies entirely in the padding".into()));
        }
        let mut out_shape = self.shape()[..nd - 2].to_vec();
        out_shape.extend(g.out_size);
        crate::tensor::check_alloc(&out_shape, self.dtype())?;
        let x = self.contiguous()?;
        let (values, indices) = with_dtype!(self.dtype(), T => {
            let (v, i) = x.with_slice::<T, _>("max_pool2d", |s, l| max_pool2d(&s[l.offset..][..x.numel()], &g))?;
            (Tensor::from_vec(v, &out_shape)?, i)
        });
        if is_grad_enabled() && self.requires_grad() {
            let plane = h * w;
            let out_plane = g.out_size[0] * g.out_size[1];
            let offsets = indices.iter().enumerate().map(|(j, &i)| (j / out_plane) * plane + i as usize).collect();
            record(Op::Take { kind: "MaxPool2DWithIndicesBackward0", offsets }, &[self], &[&values], &[], &[]);
        }
        Ok((values, Tensor::from_vec(indices, &out_shape)?))
    }
}
