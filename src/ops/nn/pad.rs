//! `torch.nn.functional.pad`: constant, reflect, replicate and circular padding, with PyTorch's
//! checks and nodes (`ConstantPadNdBackward0`, `ReflectionPad{N}DBackward0`,
//! `ReplicationPad{N}DBackward0`; circular padding is PyTorch's graph of slice copies). Each is
//! written in tensor ops, so its gradient, to any order, is the recorded body's.

use crate::autograd::named;
use crate::cpu::buffer::collect_n;
use crate::error::{Error, Result};
use crate::tensor::scalar_check::Spelling;
use crate::tensor::{Scalar, Tensor};

/// How `pad` fills the new positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PadMode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

impl PadMode {
    const ALL: [PadMode; 4] = [PadMode::Constant, PadMode::Reflect, PadMode::Replicate, PadMode::Circular];

    fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }

    fn parse(mode: &str) -> Result<PadMode> {
        PadMode::ALL
            .into_iter()
            .find(|m| m.name() == mode)
            .ok_or_else(|| Error::NotImplemented(format!("Unrecognised padding mode {mode}")))
    }
}

/// `F.pad(input, pad, mode, value)`: `pad` holds (before, after) amounts for the last dims, the
/// last dim first; a negative amount crops. `value` (the constant mode's fill, 0 by default) must
/// be absent or zero in the other modes.
pub fn pad(input: &Tensor, pad: &[i64], mode: &str, value: Option<Scalar>) -> Result<Tensor> {
    if pad.len() % 2 == 1 {
        return Err(Error::Runtime("Padding length must be divisible by 2".into()));
    }
    if pad.len() / 2 > input.ndim() {
        return Err(Error::Runtime(format!(
            "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {}",
            pad.len(),
            input.ndim()
        )));
    }
    let mode = PadMode::parse(mode)?;
    if mode == PadMode::Constant {
        return constant_pad(input, pad, value.unwrap_or(Scalar::Float(0.0)));
    }
    if value.is_some_and(|v| v.to_f64() != 0.0) {
        return Err(Error::Value(format!("Padding mode \"{}\" doesn't take in value argument", mode.name())));
    }
    match mode {
        PadMode::Circular => circular_pad(input, pad),
        _ => index_pad(input, pad, mode == PadMode::Reflect),
    }
}

/// The padded dim of the `i`-th (before, after) pair: pairs run from the last dim backwards.
fn padded_dim(input: &Tensor, i: usize) -> usize {
    input.ndim() - 1 - i
}

/// Constant padding (one ConstantPadNdBackward0 node): negative amounts crop first, then blocks
/// of `value` are joined on either side.
pub fn constant_pad(input: &Tensor, pad: &[i64], value: Scalar) -> Result<Tensor> {
    named("ConstantPadNdBackward0", &[input], || {
        let mut out = input.clone();
        for (i, amounts) in pad.chunks(2).enumerate() {
            let dim = padded_dim(input, i);
            let (before, after) = (amounts[0], amounts[1]);
            if before < 0 || after < 0 {
                let size = out.shape()[dim] as i64;
                let (start, stop) = (before.min(0).abs(), size - after.min(0).abs());
                if stop < start {
                    return Err(Error::Runtime(format!(
                        "The input size {size}, plus negative padding {before} and {after} resulted in a negative output size, which is invalid. Check dimension {dim} of your input."
                    )));
                }
                out = out.narrow(dim as i64, start, stop - start)?;
            }
            let block = |amount: i64| -> Result<Option<Tensor>> {
                if amount <= 0 {
                    return Ok(None);
                }
                let mut shape = out.shape().to_vec();
                shape[dim] = amount as usize;
                let value = value.checked_for(out.dtype(), Spelling::Cpp)?;
                Ok(Some(Tensor::full_on(&shape, value, out.dtype(), out.device())?))
            };
            let (head, tail) = (block(before)?, block(after)?);
            if head.is_some() || tail.is_some() {
                let pieces: Vec<Tensor> = head.into_iter().chain([out.clone()]).chain(tail).collect();
                out = Tensor::cat(&pieces, dim as i64)?;
            }
        }
        Ok(out)
    })
}

/// Reflect or replicate padding (one `{Reflection,Replication}Pad{N}DBackward0` node over the
/// `N` padded dims): each padded dim is gathered through a table of source positions.
fn index_pad(input: &Tensor, pad: &[i64], reflect: bool) -> Result<Tensor> {
    let kind = if reflect { "Reflection" } else { "Replication" };
    named(&format!("{kind}Pad{}DBackward0", pad.len() / 2), &[input], || {
        let mut out = input.clone();
        for (i, amounts) in pad.chunks(2).enumerate() {
            let dim = padded_dim(input, i);
            let (before, after) = (amounts[0], amounts[1]);
            let size = out.shape()[dim] as i64;
            if reflect && (before >= size || after >= size) {
                return Err(Error::Runtime(format!(
                    "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({before}, {after}) at dimension {dim} of input {:?}",
                    input.shape()
                )));
            }
            let index = source_positions(size, before, after, reflect)?.to_device(out.device())?;
            out = out.index_select(dim as i64, &index)?;
        }
        Ok(out)
    })
}

/// For each output position along a dim of `size` padded by `before` and `after`, the input
/// position it copies (int64, built on the host: a huge padding fails at this allocation with
/// the allocator's error).
fn source_positions(size: i64, before: i64, after: i64, reflect: bool) -> Result<Tensor> {
    let n = (size + before + after).max(0) as usize;
    let period = 2 * (size - 1);
    let source = |p: i64| match (reflect, period) {
        (true, 0) => 0,
        (true, _) => {
            let folded = p.abs() % period;
            if folded >= size {
                period - folded
            } else {
                folded
            }
        }
        // As torch.clamp: the upper bound wins, so an empty dim gives -1 (index_select's error).
        (false, _) => p.max(0).min(size - 1),
    };
    let positions = collect_n(n, (-before..size + after).map(source))?;
    Tensor::from_vec(positions, &[n])
}

/// Circular padding by PyTorch's steps (its graph: CopySlices over slices): the input is copied
/// into the middle of a new tensor, then each padded dim's ends are copied from the other end of
/// that tensor. Negative padding crops.
fn circular_pad(input: &Tensor, pad: &[i64]) -> Result<Tensor> {
    let in_shape: Vec<i64> = input.shape().iter().map(|&s| s as i64).collect();
    let mut out_shape = in_shape.clone();
    for (i, amounts) in pad.chunks(2).enumerate() {
        let dim = padded_dim(input, i);
        let (before, after) = (amounts[0], amounts[1]);
        if before > in_shape[dim] || after > in_shape[dim] {
            return Err(Error::Runtime("Padding value causes wrapping around more than once.".into()));
        }
        out_shape[dim] = in_shape[dim] + before + after;
        if out_shape[dim] < 0 {
            return Err(Error::Runtime("Negative padding value is resulting in an empty dimension".into()));
        }
    }
    let sizes: Vec<usize> = out_shape.iter().map(|&s| s as usize).collect();
    let out = Tensor::empty_on(&sizes, input.dtype(), input.device())?;
    let (mut out_slice, mut in_slice) = (out.clone(), input.clone());
    for (i, amounts) in pad.chunks(2).enumerate() {
        let dim = padded_dim(input, i);
        let (before, after) = (amounts[0].max(0), amounts[1].max(0));
        let (crop_before, crop_after) = (amounts[0].min(0).abs(), amounts[1].min(0).abs());
        out_slice = out_slice.narrow(dim as i64, before, out_shape[dim] - before - after)?;
        in_slice = in_slice.narrow(dim as i64, crop_before, in_shape[dim] - crop_before - crop_after)?;
    }
    out_slice.copy_(&in_slice)?;
    for (i, amounts) in pad.chunks(2).enumerate() {
        let dim = padded_dim(input, i);
        let (d, len) = (dim as i64, out_shape[dim]);
        let (before, after) = (amounts[0], amounts[1]);
        if before > 0 {
            out.narrow(d, 0, before)?.copy_(&out.narrow(d, len - before - after.max(0), before)?)?;
        }
        if after > 0 {
            out.narrow(d, len - after, after)?.copy_(&out.narrow(d, before.max(0), after)?)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::test_support::{grad_of, leaf};

    #[test]
    fn pads_with_pytorchs_nodes_and_gradients() -> Result<()> {
        let x = leaf(vec![1.0, 2.0, 3.0], &[1, 3])?;
        let c = pad(&x, &[2, -1], "constant", Some(Scalar::Float(0.5)))?;
        assert_eq!(c.to_vec::<f64>()?, [0.5, 0.5, 1.0, 2.0]);
        assert_eq!(c.grad_fn().expect("recorded").name(), "ConstantPadNdBackward0");
        assert_eq!(grad_of(&c, &x)?, [1.0, 1.0, 0.0]);

        let r = pad(&x, &[2, 1], "reflect", None)?;
        assert_eq!(r.to_vec::<f64>()?, [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]);
        assert_eq!(r.grad_fn().expect("recorded").name(), "ReflectionPad1DBackward0");
        assert_eq!(grad_of(&r, &x)?, [1.0, 3.0, 2.0]);

        let p = pad(&x, &[1, 2], "replicate", None)?;
        assert_eq!(p.to_vec::<f64>()?, [1.0, 1.0, 2.0, 3.0, 3.0, 3.0]);
        assert_eq!(p.grad_fn().expect("recorded").name(), "ReplicationPad1DBackward0");
        assert_eq!(grad_of(&p, &x)?, [2.0, 1.0, 3.0]);

        let w = pad(&x, &[1, 2], "circular", None)?;
        assert_eq!(w.to_vec::<f64>()?, [3.0, 1.0, 2.0, 3.0, 1.0, 2.0]);
        assert_eq!(grad_of(&w, &x)?, [2.0, 2.0, 2.0]);
        Ok(())
    }

    #[test]
    fn refuses_what_pytorch_refuses() -> Result<()> {
        let x = Tensor::from_vec(vec![1.0f32, 2.0], &[1, 2])?;
        let err = |r: Result<Tensor>| r.expect_err("refused").to_string();
        assert_eq!(err(pad(&x, &[1], "constant", None)), "Padding length must be divisible by 2");
        assert_eq!(err(pad(&x, &[1, 1], "bogus", None)), "Unrecognised padding mode bogus");
        assert_eq!(err(pad(&x, &[1, 1], "reflect", Some(Scalar::Int(1)))), "Padding mode \"reflect\" doesn't take in value argument");
        assert!(err(pad(&x, &[2, 0], "reflect", None)).starts_with("Argument #4: Padding size should be less than"));
        Ok(())
    }
}
