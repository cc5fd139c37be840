//! The geometry of convolutions: PyTorch's arguments checked in its order and wording
//! (`ConvArgs`), the 2-d parameters made from them (`ConvParams`), and the shapes of one 2-d
//! convolution seen from its larger image (`ConvGeom`), which the kernels of every backend and
//! the backward formulas share.
//!
//! A conv2d maps the larger image to the smaller one, conv_transpose2d maps the smaller back,
//! and the weight gradient pairs the two: all three are described by one `ConvGeom`.

use crate::error::{Error, Result};

/// A convolution's per-axis arguments once checked (non-negative padding, positive stride,
/// dilation and groups), one value per spatial axis of the weight. Only `ConvArgs::new` makes
/// them, so the `ConvParams` made from them need no second check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvArgs {
    stride: Vec<usize>,
    padding: Vec<usize>,
    output_padding: Vec<usize>,
    dilation: Vec<usize>,
    groups: usize,
}

impl ConvArgs {
    /// The arguments as PyTorch's convolutions take them, already one value per axis, with its
    /// checks in its order: groups, padding, output padding, stride, dilation.
    pub fn new(stride: &[i64], padding: &[i64], output_padding: &[i64], dilation: &[i64], groups: i64) -> Result<ConvArgs> {
        if groups <= 0 {
            return Err(Error::Runtime("non-positive groups is not supported".into()));
        }
        if padding.iter().any(|&p| p < 0) {
            return Err(Error::Runtime("negative padding is not supported".into()));
        }
        if output_padding.iter().any(|&p| p < 0) {
            return Err(Error::Runtime("negative output_padding is not supported".into()));
        }
        if stride.iter().any(|&s| s <= 0) {
            return Err(Error::Runtime("non-positive stride is not supported".into()));
        }
        if dilation.iter().any(|&d| d <= 0) {
            return Err(Error::Runtime("dilation should be greater than zero".into()));
        }
        let sizes = |values: &[i64]| values.iter().map(|&v| v as usize).collect();
        Ok(ConvArgs {
            stride: sizes(stride),
            padding: sizes(padding),
            output_padding: sizes(output_padding),
            dilation: sizes(dilation),
            groups: groups as usize,
        })
    }

    pub fn stride(&self) -> &[usize] {
        &self.stride
    }

    pub fn padding(&self) -> &[usize] {
        &self.padding
    }

    pub fn dilation(&self) -> &[usize] {
        &self.dilation
    }

    /// The 2-d parameters of a 1-d or 2-d convolution padded by `padding` (one per axis): a
    /// 1-d one runs over images of height 1. Only the first two axes of longer arguments are
    /// read: callers refuse other convolutions.
    pub fn params_2d(&self, padding: &[usize]) -> ConvParams {
        let two = |v: &[usize], unit: usize| match *v {
            [] => [unit, unit],
            [x] => [unit, x],
            [a, b, ..] => [a, b],
        };
        ConvParams {
            stride: two(&self.stride, 1),
            padding: two(padding, 0),
            output_padding: two(&self.output_padding, 0),
            dilation: two(&self.dilation, 1),
            groups: self.groups,
        }
    }
}

/// Stride, padding, output padding (of a transposed convolution) and dilation per spatial axis,
/// and the number of groups, as `ConvArgs::params_2d` makes them (checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvParams {
    stride: [usize; 2],
    padding: [usize; 2],
    output_padding: [usize; 2],
    dilation: [usize; 2],
    groups: usize,
}

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
    /// `conv2d` of an `input` (N, C, H, W) with a `weight` (O, C / groups, kh, kw) and a bias
    /// of shape `bias`, with PyTorch's shape checks in its order (before any of the dtypes).
    pub fn conv2d(input: &[usize], weight: &[usize], bias: Option<&[usize]>, p: &ConvParams) -> Result<ConvGeom> {
        if weight.len() != 4 {
            return Err(Error::Runtime(format!("Expected 4-dimensional weight for conv2d, but got weight of size {weight:?}")));
        }
        if input.len() != 4 {
            return Err(Error::Runtime(format!(
                "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {input:?}"
            )));
        }
        let (x, w) = (input, weight);
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
        if let Some(b) = bias.filter(|&b| b != [w[0]]) {
            return Err(Error::Runtime(format!(
                "Given weight of size {w:?}, expected bias to be 1-dimensional with {} elements, but got bias of size {b:?} instead",
                w[0]
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
        Ok(ConvGeom {
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
        })
    }

    /// `conv_transpose2d` of an `input` (N, C, h, w) with a `weight` (C, O / groups, kh, kw):
    /// the geometry of the conv2d whose input gradient it is, with PyTorch's shape checks in its
    /// order (before any of the dtypes).
    pub fn conv_transpose2d(input: &[usize], weight: &[usize], p: &ConvParams) -> Result<ConvGeom> {
        let (x, w) = (input, weight);
        if w.len() != 4 || x.len() != 4 {
            return Err(Error::Runtime(format!(
                "Expected 4D (batched) input and 4D weight to conv_transpose2d, but got input of size: {x:?} and weight of size {w:?}"
            )));
        }
        if w[0] != x[1] || w[0] % p.groups != 0 {
            return Err(Error::Runtime(format!(
                "Given transposed=1, weight of size {:?}, expected input{:?} to have {} channels, but got {} channels instead",
                w, x, w[0], x[1]
            )));
        }
        let (op, s, d) = (p.output_padding, p.stride, p.dilation);
        if (0..2).any(|a| op[a] >= s[a] && op[a] >= d[a]) {
            return Err(Error::Runtime(format!(
                "output padding must be smaller than either stride or dilation, but got output_padding_height: {} output_padding_width: {} stride_height: {} stride_width: {} dilation_height: {} dilation_width: {}",
                op[0], op[1], s[0], s[1], d[0], d[1]
            )));
        }
        let size = |a: usize| -> Option<usize> {
            ((x[2 + a].checked_sub(1)? * s[a] + d[a] * (w[2 + a].checked_sub(1)?) + op[a] + 1).checked_sub(2 * p.padding[a]))
                .filter(|&size| size > 0)
        };
        let (Some(h), Some(wd)) = (size(0), size(1)) else {
            return Err(Error::Runtime(format!(
                "Given input size per channel: ({} x {}). Calculated output size per channel is too small",
                x[2], x[3]
            )));
        };
        Ok(ConvGeom {
            batch: x[0],
            groups: p.groups,
            in_channels: w[1] * p.groups,
            out_channels: w[0],
            in_size: [h, wd],
            out_size: [x[2], x[3]],
            kernel: [w[2], w[3]],
            stride: s,
            padding: p.padding,
            dilation: d,
        })
    }

    /// Input channels per group.
    pub fn group_in(&self) -> usize {
        self.in_channels / self.groups
    }

    /// Output channels per group.
    pub fn group_out(&self) -> usize {
        self.out_channels / self.groups
    }

    /// Taps per output position: the inner dimension of the products.
    pub fn taps(&self) -> usize {
        self.group_in() * self.kernel[0] * self.kernel[1]
    }

    /// Output positions per channel.
    pub fn positions(&self) -> usize {
        self.out_size[0] * self.out_size[1]
    }

    /// Elements of one (larger) image, all channels.
    pub fn in_image(&self) -> usize {
        self.in_channels * self.in_size[0] * self.in_size[1]
    }

    /// Elements of one result of sliding, all channels.
    pub fn out_image(&self) -> usize {
        self.out_channels * self.positions()
    }

    /// Elements of the patch matrices of one image, all groups together.
    pub fn image_patches(&self) -> usize {
        self.groups * self.taps() * self.positions()
    }

    /// Elements of the patch matrices of the whole batch: what a forward pass that keeps them
    /// for the weight gradient leaves behind (each backend lays them out its own way).
    pub fn batch_patches(&self) -> usize {
        self.batch * self.image_patches()
    }

    /// The input row (or column) read by output position `o` at kernel tap `k` along axis `a`.
    #[inline]
    pub fn source(&self, a: usize, o: usize, k: usize) -> Option<usize> {
        let i = (o * self.stride[a] + k * self.dilation[a]).checked_sub(self.padding[a])?;
        (i < self.in_size[a]).then_some(i)
    }

    /// The shape (N, C, H, W) of the larger image.
    pub fn image_shape(&self) -> Vec<usize> {
        vec![self.batch, self.in_channels, self.in_size[0], self.in_size[1]]
    }

    /// The shape (N, O, h, w) of the result of sliding.
    pub fn result_shape(&self) -> Vec<usize> {
        vec![self.batch, self.out_channels, self.out_size[0], self.out_size[1]]
    }

    /// The shape (O, C / groups, kh, kw) of the weight.
    pub fn weight_shape(&self) -> Vec<usize> {
        vec![self.out_channels, self.group_in(), self.kernel[0], self.kernel[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(stride: i64, padding: i64, output_padding: i64, dilation: i64, groups: i64) -> Result<ConvParams> {
        let args = ConvArgs::new(&[stride; 2], &[padding; 2], &[output_padding; 2], &[dilation; 2], groups)?;
        Ok(args.params_2d(args.padding()))
    }

    fn message<T: std::fmt::Debug>(r: Result<T>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn arguments_are_checked_in_pytorch_order() {
        assert_eq!(message(params(0, -1, 0, 1, 0)), "non-positive groups is not supported");
        assert_eq!(message(params(0, -1, -1, 1, 1)), "negative padding is not supported");
        assert_eq!(message(params(0, 0, -1, 0, 1)), "negative output_padding is not supported");
        assert_eq!(message(params(0, 0, 0, 0, 1)), "non-positive stride is not supported");
        assert_eq!(message(params(1, 0, 0, -1, 1)), "dilation should be greater than zero");
    }

    /// A 1-d convolution's arguments lift onto images of height 1.
    #[test]
    fn one_dimensional_arguments_lift_to_two() {
        let args = ConvArgs::new(&[2], &[1], &[0], &[3], 1).unwrap();
        let p = args.params_2d(&[4]);
        assert_eq!((p.stride, p.padding, p.dilation), ([1, 2], [0, 4], [1, 3]));
    }

    #[test]
    fn conv2d_shapes() {
        let p = params(2, 1, 0, 1, 2).unwrap();
        let g = ConvGeom::conv2d(&[3, 4, 7, 6], &[6, 2, 3, 2], Some(&[6]), &p).unwrap();
        assert_eq!((g.out_size, g.taps(), g.positions()), ([4, 4], 12, 16));
        assert_eq!(g.weight_shape(), vec![6, 2, 3, 2]);
        assert_eq!(g.result_shape(), vec![3, 6, 4, 4]);
        assert_eq!(g.batch_patches(), 3 * 2 * 12 * 16);
        // Channels are checked before the bias, as in PyTorch.
        let e = message(ConvGeom::conv2d(&[3, 3, 7, 6], &[6, 2, 3, 2], Some(&[5]), &p));
        assert!(e.starts_with("Given groups=2, weight of size [6, 2, 3, 2], expected input[3, 3, 7, 6] to have 4 channels"), "{e}");
        let e = message(ConvGeom::conv2d(&[3, 4, 7, 6], &[6, 2, 3, 2], Some(&[5]), &p));
        assert!(e.contains("expected bias to be 1-dimensional with 6 elements, but got bias of size [5]"), "{e}");
    }

    /// A transposed convolution's geometry is that of the conv2d it undoes.
    #[test]
    fn conv_transpose2d_undoes_conv2d() {
        let p = params(2, 1, 1, 1, 1).unwrap();
        let g = ConvGeom::conv_transpose2d(&[2, 3, 4, 4], &[3, 5, 3, 3], &p).unwrap();
        assert_eq!(g.image_shape(), vec![2, 5, 8, 8]);
        let forward = ConvGeom::conv2d(&g.image_shape(), &g.weight_shape(), None, &p).unwrap();
        assert_eq!(forward.result_shape(), vec![2, 3, 4, 4]);
        let e = message(ConvGeom::conv_transpose2d(&[2, 3, 4, 4], &[3, 5, 3, 3], &params(1, 0, 1, 1, 1).unwrap()));
        assert!(e.starts_with("output padding must be smaller than either stride or dilation"), "{e}");
    }
}
