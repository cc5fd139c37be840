//! The geometry of 2-d max pooling: PyTorch's arguments (`PoolParams`), checked in its order and
//! wording when they are turned into the window layout over an input's planes (`PoolGeom`),
//! which the kernels of every backend and the backward pass share.

use crate::error::{Error, Result};

/// Window size, stride, padding and dilation per spatial axis (height, width), as the caller
/// gives them: signed, so that `PoolGeom::max_pool2d` can answer a negative value with PyTorch's
/// own message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolParams {
    pub kernel: [i64; 2],
    pub stride: [i64; 2],
    pub padding: [i64; 2],
    pub dilation: [i64; 2],
    pub ceil_mode: bool,
}

/// One pooling window layout over `planes` independent `h x w` planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolGeom {
    pub planes: usize,
    pub in_size: [usize; 2],
    pub out_size: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

impl PoolGeom {
    /// The windows of `max_pool2d` over the last two dims of a 3-D or 4-D input of `shape`, with
    /// PyTorch's checks in its order: the input, then per axis the stride and padding
    /// (`pooling_output_shape`), then the signs of kernel, stride and dilation, the padding
    /// against the kernel and the output size (`pool2d_shape_check`).
    pub fn max_pool2d(shape: &[usize], p: &PoolParams) -> Result<PoolGeom> {
        let nd = shape.len();
        if !(nd == 3 || nd == 4) || shape[nd - 3..].contains(&0) {
            return Err(Error::Runtime(format!("non-empty 3D or 4D (batch mode) tensor expected for input, but got: {shape:?}")));
        }
        let [h, w] = [shape[nd - 2], shape[nd - 1]];
        let (oh, ow) = (pooled_len(h, 0, p)?, pooled_len(w, 1, p)?);
        if p.kernel.iter().any(|&k| k <= 0) {
            return Err(Error::Runtime(format!(
                "kernel size should be greater than zero, but got kH: {} kW: {}",
                p.kernel[0], p.kernel[1]
            )));
        }
        if p.stride.iter().any(|&s| s <= 0) {
            return Err(Error::Runtime(format!("stride should be greater than zero, but got dH: {} dW: {}", p.stride[0], p.stride[1])));
        }
        if p.dilation.iter().any(|&d| d <= 0) {
            return Err(Error::Runtime(format!(
                "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
                p.dilation[0], p.dilation[1]
            )));
        }
        if (0..2).any(|a| p.padding[a] > p.kernel[a] / 2) {
            return Err(Error::Runtime(format!(
                "pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = {}, kW = {}, kH = {}",
                p.padding[1], p.padding[0], p.kernel[1], p.kernel[0]
            )));
        }
        if oh < 1 || ow < 1 {
            let c = shape[nd - 3];
            return Err(Error::Runtime(format!(
                "Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size is too small"
            )));
        }
        // Every value is positive now; the output sizes are bounded by the input's.
        let size = |v: [i64; 2]| v.map(|x| x as usize);
        let g = PoolGeom {
            planes: shape[..nd - 2].iter().product(),
            in_size: [h, w],
            out_size: [oh as usize, ow as usize],
            kernel: size(p.kernel),
            stride: size(p.stride),
            padding: size(p.padding),
            dilation: size(p.dilation),
        };
        if !g.windows_overlap_input() {
            return Err(Error::Runtime("max_pool2d: a pooling window lies entirely in the padding".into()));
        }
        Ok(g)
    }

    /// Whether every window has at least one tap inside the input (so each has a maximum).
    pub fn windows_overlap_input(&self) -> bool {
        (0..2).all(|a| (0..self.out_size[a]).all(|o| self.taps(a, o).next().is_some()))
    }

    /// The first input row (or column) of window `o` along axis `a`, if it has one.
    pub fn first_tap(&self, a: usize, o: usize) -> Option<usize> {
        self.taps(a, o).next()
    }

    /// The input rows (or columns) of window `o` along axis `a`: padding never wins a maximum.
    pub fn taps(&self, a: usize, o: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.kernel[a]).filter_map(move |k| {
            let i = (o * self.stride[a] + k * self.dilation[a]).checked_sub(self.padding[a])?;
            (i < self.in_size[a]).then_some(i)
        })
    }
}

/// The output length along axis `a` of an input `len` long, with the checks of PyTorch's
/// `pooling_output_shape` (which come before those of the signs): the windows that fit,
/// rounded down, or up in ceil mode, where a last window starting in the right padding is
/// dropped. Computed wide, so that no argument a caller can pass overflows it.
fn pooled_len(len: usize, a: usize, p: &PoolParams) -> Result<i128> {
    let (k, s, pad, d) = (p.kernel[a] as i128, p.stride[a] as i128, p.padding[a] as i128, p.dilation[a] as i128);
    if s == 0 {
        return Err(Error::Runtime("stride should not be zero".into()));
    }
    if pad < 0 {
        return Err(Error::Runtime(format!("pad must be non-negative, but got pad: {pad}")));
    }
    if pad > ((k - 1) * d + 1) / 2 {
        return Err(Error::Runtime(format!(
            "pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={d}"
        )));
    }
    let len = len as i128;
    let mut out = (len + 2 * pad - d * (k - 1) - 1 + if p.ceil_mode { s - 1 } else { 0 }).div_euclid(s) + 1;
    if p.ceil_mode && (out - 1) * s >= len + pad {
        out -= 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(kernel: i64, stride: i64, padding: i64, dilation: i64, ceil_mode: bool) -> PoolParams {
        PoolParams { kernel: [kernel; 2], stride: [stride; 2], padding: [padding; 2], dilation: [dilation; 2], ceil_mode }
    }

    fn message(shape: &[usize], p: &PoolParams) -> String {
        PoolGeom::max_pool2d(shape, p).unwrap_err().to_string()
    }

    #[test]
    fn output_sizes_follow_pytorch() {
        let g = PoolGeom::max_pool2d(&[2, 3, 5, 5], &params(2, 2, 1, 1, true)).unwrap();
        assert_eq!((g.planes, g.out_size), (6, [3, 3]));
        let g = PoolGeom::max_pool2d(&[3, 7, 9], &params(3, 2, 0, 1, false)).unwrap();
        assert_eq!((g.planes, g.out_size), (3, [3, 4]));
        // Padding up to half the effective kernel: a dilated 2-tap window spans 3.
        let g = PoolGeom::max_pool2d(&[1, 1, 9, 9], &params(2, 1, 1, 2, false)).unwrap();
        assert_eq!(g.out_size, [9, 9]);
    }

    /// The checks in PyTorch's order: the zero stride before the negative kernel, the padding
    /// against the effective kernel before the one against the kernel, with PyTorch's wording.
    #[test]
    fn checks_come_in_pytorch_order() {
        assert!(message(&[4, 4], &params(2, 2, 0, 1, false)).contains("non-empty 3D or 4D"));
        assert!(message(&[1, 0, 4, 4], &params(2, 2, 0, 1, false)).contains("non-empty 3D or 4D"));
        assert_eq!(message(&[1, 1, 4, 4], &params(-1, 0, 0, 1, false)), "stride should not be zero");
        assert_eq!(message(&[1, 1, 4, 4], &params(2, -1, -1, 1, false)), "pad must be non-negative, but got pad: -1");
        assert_eq!(message(&[1, 1, 4, 4], &params(0, 1, 0, 1, false)), "kernel size should be greater than zero, but got kH: 0 kW: 0");
        assert_eq!(message(&[1, 1, 4, 4], &params(2, -1, 0, 1, false)), "stride should be greater than zero, but got dH: -1 dW: -1");
        assert_eq!(
            message(&[1, 1, 4, 4], &params(2, 2, 0, 0, false)),
            "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"
        );
        assert_eq!(
            message(&[1, 1, 9, 9], &params(3, 1, 3, 2, false)),
            "pad should be at most half of effective kernel size, but got pad=3, kernel_size=3 and dilation=2"
        );
        assert_eq!(
            message(&[1, 1, 9, 9], &params(3, 1, 2, 2, false)),
            "pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, kW = 3, kH = 3"
        );
        assert_eq!(
            message(&[1, 1, 2, 2], &params(3, 3, 0, 1, false)),
            "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small"
        );
    }
}
