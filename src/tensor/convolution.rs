//! The convolutions of PyTorch's functional API, conv1d / conv2d / conv3d and their transposes: argument
//! rules in PyTorch's order and wording, unbatched inputs, `padding='valid'` / `'same'`, 1-d as
//! 2-d over images of height 1, 3-d on the 2-d kernels (`conv3d.rs`), and the transposes' bias; each is one ConvolutionBackward0 node
//! over the 2-d ops of `conv.rs`. Python and Rust callers get the same op.

use crate::autograd::composite::composite_optional;
use crate::error::{Error, Result};
use crate::ops::conv_geometry::ConvArgs;
use crate::tensor::Tensor;

/// `padding` of a convolution: sizes per axis (one for all, or one each), or a mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvPadding {
    Sizes(Vec<i64>),
    /// No padding.
    Valid,
    /// The output keeps the input's size (stride 1 only); an odd total pads one more after.
    Same,
}

impl ConvPadding {
    /// `'valid'` or `'same'`.
    pub fn from_mode(mode: &str) -> Result<ConvPadding> {
        match mode {
            "valid" => Ok(ConvPadding::Valid),
            "same" => Ok(ConvPadding::Same),
            _ => Err(Error::Runtime(format!("Invalid padding string: '{mode}'"))),
        }
    }
}

/// One value for every axis, or one per axis.
fn per_axis(name: &str, values: &[i64], dims: usize) -> Result<Vec<i64>> {
    match values.len() {
        1 => Ok(vec![values[0]; dims]),
        n if n == dims => Ok(values.to_vec()),
        _ => Err(Error::Runtime(format!(
            "expected {name} to be a single integer value or a list of {dims} values to match the convolution dimensions, but got {name}={values:?}"
        ))),
    }
}

/// PyTorch's checks of the arguments, in its order: the weight's rank, the lists' lengths, then
/// the values (`ConvArgs::new`).
fn check_args(weight: &Tensor, stride: &[i64], padding: &[i64], output_padding: &[i64], dilation: &[i64], groups: i64) -> Result<ConvArgs> {
    if weight.ndim() < 3 {
        return Err(Error::Runtime("weight should have at least three dimensions".into()));
    }
    let dims = weight.ndim() - 2;
    let stride = per_axis("stride", stride, dims)?;
    let padding = per_axis("padding", padding, dims)?;
    let dilation = per_axis("dilation", dilation, dims)?;
    let output_padding = per_axis("output_padding", output_padding, dims)?;
    ConvArgs::new(&stride, &padding, &output_padding, &dilation, groups)
}

/// The input with a batch dim: `spatial + 2` dims already, or `spatial + 1` (unbatched).
fn batched_input(input: &Tensor, spatial: usize, name: &str) -> Result<(Tensor, bool)> {
    if input.ndim() == spatial + 2 {
        return Ok((input.clone(), true));
    }
    if input.ndim() != spatial + 1 {
        return Err(Error::Runtime(format!(
            "Expected {}D (unbatched) or {}D (batched) input to {name}, but got input of size: {:?}",
            spatial + 1,
            spatial + 2,
            input.shape()
        )));
    }
    Ok((input.unsqueeze(0)?, false))
}

fn check_input_rank(input: &Tensor, weight: &Tensor) -> Result<()> {
    if input.ndim() != weight.ndim() {
        return Err(Error::Runtime(format!(
            "Expected {k}-dimensional input for {k}-dimensional weight {:?}, but got {}-dimensional input of size {:?} instead",
            weight.shape(),
            input.ndim(),
            input.shape(),
            k = weight.ndim()
        )));
    }
    Ok(())
}

/// `padding='same'`: the symmetric padding per axis, after padding `input` at the end of the
/// axes whose total is odd (as one ConstantPadNdBackward0 node).
fn same_padding(input: &Tensor, weight: &Tensor, args: &ConvArgs) -> Result<(Tensor, Vec<usize>)> {
    if args.stride().iter().any(|&s| s != 1) {
        return Err(Error::Runtime("padding='same' is not supported for strided convolutions".into()));
    }
    let spatial = weight.ndim() - 2;
    let totals: Vec<usize> = (0..spatial).map(|a| args.dilation()[a] * (weight.shape()[2 + a] - 1)).collect();
    let before: Vec<usize> = totals.iter().map(|t| t / 2).collect();
    if totals.iter().all(|t| t % 2 == 0) {
        return Ok((input.clone(), before));
    }
    let padded = crate::autograd::named("ConstantPadNdBackward0", &[input], || {
        let mut out = input.clone();
        for (a, t) in totals.iter().enumerate().filter(|(_, t)| *t % 2 == 1) {
            let dim = 2 + a;
            let mut zeros_shape = out.shape().to_vec();
            zeros_shape[dim] = t - 2 * (t / 2);
            let zeros = Tensor::zeros(&zeros_shape, out.dtype())?.to_device(out.device())?;
            out = Tensor::cat(&[out, zeros], dim as i64)?;
        }
        Ok(out)
    })?;
    Ok((padded, before))
}

fn unsupported_rank(name: &str, weight: &Tensor) -> Error {
    Error::NotImplemented(format!("{name}: {}-dimensional convolutions are not implemented", weight.ndim() - 2))
}

impl Tensor {
    /// `conv1d`, `conv2d` or `conv3d` (`spatial` 1, 2 or 3) of `torch.nn.functional`.
    #[allow(clippy::too_many_arguments)]
    pub fn convolution(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        spatial: usize,
        stride: &[i64],
        padding: &ConvPadding,
        dilation: &[i64],
        groups: i64,
    ) -> Result<Tensor> {
        let name = format!("conv{spatial}d");
        let name = name.as_str();
        let (input, batched) = batched_input(self, spatial, name)?;
        let sizes = match padding {
            ConvPadding::Sizes(p) => p.as_slice(),
            ConvPadding::Valid | ConvPadding::Same => &[0],
        };
        let args = check_args(weight, stride, sizes, &[0], dilation, groups)?;
        check_input_rank(&input, weight)?;
        let (input, pads) = match padding {
            ConvPadding::Same => same_padding(&input, weight, &args)?,
            _ => (input, args.padding().to_vec()),
        };
        let p = args.params_2d(&pads);
        let out = match spatial {
            2 => input.conv2d(weight, bias, &p)?,
            1 | 3 => {
                let out = match spatial {
                    1 => input.unsqueeze(2)?.conv2d(&weight.unsqueeze(2)?, bias, &p)?.squeeze_dims(&[2])?,
                    _ => input.conv3d(weight, bias, &args, &pads)?,
                };
                // PyTorch's one node for every convolution, over the op's own inputs.
                composite_optional("ConvolutionBackward0", &[Some(&input), Some(weight), bias], vec![out]).remove(0)
            }
            _ => return Err(unsupported_rank(name, weight)),
        };
        if batched {
            Ok(out)
        } else {
            out.squeeze_dims(&[0])
        }
    }

    /// `conv_transpose1d`, `conv_transpose2d` or `conv_transpose3d` (`spatial` 1, 2 or 3) of
    /// `torch.nn.functional`.
    #[allow(clippy::too_many_arguments)]
    pub fn conv_transpose(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        spatial: usize,
        stride: &[i64],
        padding: &[i64],
        output_padding: &[i64],
        groups: i64,
        dilation: &[i64],
    ) -> Result<Tensor> {
        let name = format!("conv_transpose{spatial}d");
        let name = name.as_str();
        let (input, batched) = batched_input(self, spatial, name)?;
        let args = check_args(weight, stride, padding, output_padding, dilation, groups)?;
        check_input_rank(&input, weight)?;
        let p = args.params_2d(args.padding());
        let out = match spatial {
            2 => input.conv_transpose2d(weight, &p)?,
            1 => input.unsqueeze(2)?.conv_transpose2d(&weight.unsqueeze(2)?, &p)?.squeeze_dims(&[2])?,
            3 => input.conv_transpose3d(weight, &args)?,
            _ => return Err(unsupported_rank(name, weight)),
        };
        let out = match bias {
            Some(b) => {
                let mut shape = vec![-1i64];
                shape.resize(out.ndim() - 1, 1);
                out.binary(crate::tensor::BinaryOp::Add, &b.reshape(&shape)?)?
            }
            None => out,
        };
        let out = composite_optional("ConvolutionBackward0", &[Some(&input), Some(weight), bias], vec![out]).remove(0);
        if batched {
            Ok(out)
        } else {
            out.squeeze_dims(&[0])
        }
    }
}
