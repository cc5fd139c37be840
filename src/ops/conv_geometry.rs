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

    pub fn output_padding(&self) -> &[usize] {
        &self.output_padding
    }

    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The arguments of every axis but the first (of at least two): the 2-d convolution over
    /// the height and width that a 3-d one is computed with.
    pub fn inner_axes(&self) -> ConvArgs {
        ConvArgs {
            stride: self.stride[1..].to_vec(),
            padding: self.padding[1..].to_vec(),
            output_padding: self.output_padding[1..].to_vec(),
            dilation: self.dilation[1..].to_vec(),
            groups: self.groups,
        }
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
        let out = conv_output_size(x, w, bias, &p.stride, &p.padding, &p.dilation, p.groups)?;
        Ok(ConvGeom {
            batch: x[0],
            groups: p.groups,
            in_channels: x[1],
            out_channels: w[0],
            in_size: [x[2], x[3]],
            out_size: [out[0], out[1]],
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
        let out = conv_transpose_output_size(x, w, &p.stride, &p.padding, &p.output_padding, &p.dilation, p.groups)?;
        let (s, d, h, wd) = (p.stride, p.dilation, out[0], out[1]);
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

/// The output size per spatial axis of a convolution of `input` (N, C, *spatial) with `weight`
/// (O, C / groups, *kernel) and a bias of shape `bias`, after PyTorch's shape checks in its order
/// (groups against the weight, the channels, the bias, the kernel against the padded input): for
/// any number of spatial axes, one value per axis in `stride`, `padding` and `dilation`.
pub fn conv_output_size(
    input: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
    stride: &[usize],
    padding: &[usize],
    dilation: &[usize],
    groups: usize,
) -> Result<Vec<usize>> {
    let (x, w) = (input, weight);
    if w[0] % groups != 0 {
        return Err(Error::Runtime(format!(
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size {w:?} instead"
        )));
    }
    if w[1] * groups != x[1] {
        return Err(Error::Runtime(format!(
            "Given groups={groups}, weight of size {w:?}, expected input{x:?} to have {} channels, but got {} channels instead",
            w[1] * groups,
            x[1]
        )));
    }
    if let Some(b) = bias.filter(|&b| b != [w[0]]) {
        return Err(Error::Runtime(format!(
            "Given weight of size {w:?}, expected bias to be 1-dimensional with {} elements, but got bias of size {b:?} instead",
            w[0]
        )));
    }
    let axes = 0..x.len() - 2;
    let padded: Vec<usize> = axes.clone().map(|a| x[2 + a] + 2 * padding[a]).collect();
    let reach: Vec<usize> = axes.clone().map(|a| dilation[a] * (w[2 + a].max(1) - 1) + 1).collect();
    if axes.clone().any(|a| w[2 + a] == 0 || padded[a] < reach[a]) {
        let join = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(" x ");
        return Err(Error::Runtime(format!(
            "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
            join(&padded),
            join(&reach)
        )));
    }
    Ok(axes.map(|a| (padded[a] - reach[a]) / stride[a] + 1).collect())
}

/// The output size per spatial axis of a transposed convolution of `input` (N, C, *spatial)
/// with `weight` (C, O / groups, *kernel), after PyTorch's checks in its order (the channels,
/// the output padding against stride and dilation, the output size), for any number of axes.
pub fn conv_transpose_output_size(
    input: &[usize],
    weight: &[usize],
    stride: &[usize],
    padding: &[usize],
    output_padding: &[usize],
    dilation: &[usize],
    groups: usize,
) -> Result<Vec<usize>> {
    let (x, w) = (input, weight);
    if w[0] != x[1] || w[0] % groups != 0 {
        return Err(Error::Runtime(format!(
            "Given transposed=1, weight of size {:?}, expected input{:?} to have {} channels, but got {} channels instead",
            w, x, w[0], x[1]
        )));
    }
    let axes = 0..x.len() - 2;
    let (op, s, d) = (output_padding, stride, dilation);
    if axes.clone().any(|a| op[a] >= s[a] && op[a] >= d[a]) {
        // PyTorch names the axes: the last of depth, height and width.
        let names = &["depth", "height", "width"][3 - axes.len().min(3)..];
        let list = |what: &str, v: &[usize]| names.iter().zip(v).map(|(n, v)| format!("{what}_{n}: {v}")).collect::<Vec<_>>().join(" ");
        return Err(Error::Runtime(format!(
            "output padding must be smaller than either stride or dilation, but got {} {} {}",
            list("output_padding", op),
            list("stride", s),
            list("dilation", d)
        )));
    }
    let size = |a: usize| -> Option<usize> {
        ((x[2 + a].checked_sub(1)? * s[a] + d[a] * (w[2 + a].checked_sub(1)?) + op[a] + 1).checked_sub(2 * padding[a]))
            .filter(|&size| size > 0)
    };
    axes.clone().map(size).collect::<Option<Vec<usize>>>().ok_or_else(|| {
        // PyTorch's message shows the sizes as computed, negative ones too.
        let signed = |a: usize| {
            let (x, k) = (x[2 + a] as i64, w[2 + a] as i64);
            (x - 1) * s[a] as i64 + d[a] as i64 * (k - 1) + op[a] as i64 + 1 - 2 * padding[a] as i64
        };
        let join = |v: Vec<String>| v.join(" x ");
        Error::Runtime(format!(
            "Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is too small",
            join(x[2..].iter().map(usize::to_string).collect()),
            join(axes.clone().map(|a| signed(a).to_string()).collect())
        ))
    })
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

    /// The shape rules hold for any number of spatial axes, with PyTorch's 3-d wording.
    #[test]
    fn three_dimensional_shapes_and_messages() {
        let out = conv_output_size(&[2, 4, 5, 6, 7], &[6, 2, 3, 2, 3], Some(&[6]), &[2, 1, 1], &[1, 0, 1], &[1, 2, 1], 2).unwrap();
        assert_eq!(out, vec![3, 4, 7]);
        let e = message(conv_output_size(&[2, 4, 5, 6, 7], &[6, 4, 7, 3, 3], None, &[1; 3], &[0; 3], &[1; 3], 1));
        assert_eq!(e, "Calculated padded input size per channel: (5 x 6 x 7). Kernel size: (7 x 3 x 3). Kernel size can't be greater than actual input size");
        let out =
            conv_transpose_output_size(&[2, 4, 3, 4, 5], &[4, 3, 2, 3, 2], &[2, 1, 2], &[1, 0, 0], &[1, 0, 0], &[1, 1, 2], 1).unwrap();
        assert_eq!(out, vec![5, 6, 11]);
        let e = message(conv_transpose_output_size(&[2, 4, 5, 6, 7], &[4, 3, 3, 3, 3], &[1, 1, 2], &[0; 3], &[0, 1, 0], &[1; 3], 1));
        assert_eq!(
            e,
            "output padding must be smaller than either stride or dilation, but got output_padding_depth: 0 output_padding_height: 1 output_padding_width: 0 stride_depth: 1 stride_height: 1 stride_width: 2 dilation_depth: 1 dilation_height: 1 dilation_width: 1"
        );
    }
}
