//! The activations of `torch.nn.functional` that are not pointwise, glu and prelu, with PyTorch's
//! checks and nodes (`GluBackward0`, `PreluKernelBackward0`). Each is written in tensor ops, so
//! its gradient, to any order, is the recorded body's. The pointwise activations are declared in
//! `crate::ops::unary`.

use crate::autograd::named;
use crate::error::{Error, Result};
use crate::shape::wrap_dim;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp as B, Scalar, Tensor, UnaryOp as U};

/// PyTorch's refusal of an integer or bool input (its kernels are float-only).
fn floats_only(input: &Tensor, kernel: &str) -> Result<()> {
    if input.dtype().is_floating_point() {
        return Ok(());
    }
    Err(Error::NotImplemented(format!("\"{kernel}\" not implemented for '{}'", input.dtype().title_name())))
}

/// `F.glu(input, dim)`: the first half of `input` along `dim` times the sigmoid of the second.
pub fn glu(input: &Tensor, dim: i64) -> Result<Tensor> {
    if input.ndim() == 0 {
        return Err(Error::Runtime("glu does not support scalars because halving size must be even".into()));
    }
    let d = wrap_dim(dim, input.ndim())?;
    let size = input.shape()[d];
    if size % 2 == 1 {
        return Err(Error::Runtime(format!("Halving dimension must be even, but dimension {d} is size {size}")));
    }
    floats_only(input, "glu_cpu")?;
    let half = (size / 2) as i64;
    named("GluBackward0", &[input], || {
        let gate = input.narrow(d as i64, half, half)?.unary(U::Sigmoid)?;
        input.narrow(d as i64, 0, half)?.binary(B::Mul, &gate)
    })
}

/// `F.prelu(input, weight)`: `input` where it is positive, else `input * weight`, with one
/// weight, or one per channel (dim 1). At zero the result and the gradient are the weight's
/// side, as in PyTorch (prelu(0.0) is -0.0 for a negative weight).
pub fn prelu(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    if weight.ndim() > 1 {
        return Err(Error::Runtime(format!("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}", weight.ndim())));
    }
    let channels = if input.ndim() >= 2 { input.shape()[1] } else { 1 };
    let weights = weight.numel();
    if weights != 1 && weights != channels {
        return Err(Error::Runtime(format!(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = {weights} and channel size = {channels}."
        )));
    }
    floats_only(input, "prelu_cpu")?;
    // The weights along the channel dim (a single one broadcasts everywhere), viewed before the
    // node as PyTorch does (its node's second input is that view), except a 1-D weight of a 1-D
    // input.
    let w = match (input.ndim(), weight.ndim()) {
        (1, 1) => weight.clone(),
        (n, _) if n >= 2 => weight.reshape(&std::iter::once(-1).chain(std::iter::repeat_n(1, n - 2)).collect::<Vec<_>>())?,
        _ => weight.reshape(&[])?,
    };
    named("PreluKernelBackward0", &[input, &w], || {
        let positive = input.binary_scalar(B::Gt, Scalar::Float(0.0), false)?;
        Tensor::where_(&positive, Arg::T(input), Arg::T(&input.binary(B::Mul, &w)?))
    })
}
