//! `as_strided` and `set_`: tensors over a storage with a geometry the caller gives. Both take
//! untrusted numbers, so the geometry is checked against the storage (`Layout::from_user`)
//! before any tensor sees it.

use std::collections::HashMap;

use crate::autograd::{record, Op};
use crate::cpu::reduce::element_offsets;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::{Scalar, Tensor};

use super::view::ViewKind;

/// `set_`'s storage offset, sizes and strides (None: contiguous).
pub type Geometry<'a> = (i64, &'a [i64], Option<&'a [i64]>);

impl Tensor {
    /// `as_strided(size, stride, storage_offset)`: a view of self's storage (all of it, not only
    /// the elements self views) with the given geometry; the offset defaults to self's.
    pub fn as_strided(&self, size: &[i64], stride: &[i64], storage_offset: Option<i64>) -> Result<Tensor> {
        if size.len() != stride.len() {
            return Err(Error::Runtime("mismatch in length of strides and shape".into()));
        }
        if stride.iter().any(|&s| s < 0) {
            return Err(Error::Runtime(format!("as_strided: Negative strides are not supported at the moment, got strides: {stride:?}")));
        }
        let layout = self.user_layout(self, size, stride, storage_offset)?;
        self.view_op(layout, ViewKind::AsStrided)
    }

    /// The checked layout `size`/`stride`/`offset` over `source`'s storage, for self (the offset
    /// defaults to `source`'s own).
    fn user_layout(&self, source: &Tensor, size: &[i64], stride: &[i64], offset: Option<i64>) -> Result<Layout> {
        // An empty view's offset may exceed an int64; PyTorch's offsets cannot.
        let offset = match offset {
            Some(o) => o,
            None => i64::try_from(source.storage_offset())
                .map_err(|_| Error::SizeOverflow(format!("storage offset {}", source.storage_offset())))?,
        };
        let len = source.storage_cell().read().len();
        Layout::from_user(size, stride, offset, self.element_size(), len)
    }

    /// `set_(source)` / `set_(source, storage_offset, size, stride)` (`stride` None: contiguous)
    /// / `set_()` (`source` None: a new empty storage): the tensor self becomes, sharing
    /// `source`'s storage with the given geometry (by default `source`'s) and keeping self's
    /// autograd state. The caller puts it in self's place.
    pub fn set_from(&self, source: Option<&Tensor>, geometry: Option<Geometry<'_>>) -> Result<Tensor> {
        let view = match source {
            None => Tensor::empty_on(&[0], self.dtype(), self.device())?,
            Some(src) => {
                if src.dtype() != self.dtype() {
                    return Err(Error::Runtime(format!(
                        "Could not set tensor of type {} to a tensor of type {}",
                        src.dtype().cpp_name(),
                        self.dtype().cpp_name()
                    )));
                }
                match geometry {
                    None => src.detach(),
                    Some((offset, size, stride)) => {
                        let contiguous;
                        let stride = match stride {
                            Some(s) => s,
                            None => {
                                let shape = crate::shape::checked_shape(size, self.element_size())?;
                                contiguous = crate::shape::contiguous_strides(&shape)?.iter().map(|&s| s as i64).collect::<Vec<_>>();
                                &contiguous
                            }
                        };
                        if size.len() != stride.len() {
                            return Err(Error::Runtime(format!(
                                "unequal size length ({}) and stride length ({})",
                                size.len(),
                                stride.len()
                            )));
                        }
                        src.with_layout(self.user_layout(src, size, stride, Some(offset))?)
                    }
                }
            }
        };
        let record_it = self.check_inplace(source.unwrap_or(&view))?;
        let out = self.with_data_of(&view)?;
        if record_it {
            // PyTorch has no derivative for set_: the node exists, its backward fails.
            let inputs: Vec<&Tensor> = std::iter::once(self).chain(source).collect();
            record(Op::NotImplemented { forward: "set_" }, &inputs, &[&out], &[], &[]);
        }
        Ok(out)
    }
}

/// The gradient of `as_strided` for its input: each element of the gradient `g` goes to the
/// storage element its output element views; each input element takes what reached its storage
/// element, shared equally among the input elements viewing that same storage element.
/// Storage elements the input does not view drop their gradient.
pub(crate) fn as_strided_backward(g: &Tensor, input: &Layout, output: &Layout) -> Result<Tensor> {
    let sizes: Vec<i64> = input.shape.iter().map(|&s| s as i64).collect();
    let in_offsets = element_offsets(input)?;
    // Each storage element the input views, numbered in order of first appearance.
    let mut slot: HashMap<usize, usize> = HashMap::with_capacity(in_offsets.len());
    let in_slots: Vec<i64> = in_offsets
        .iter()
        .map(|&o| {
            let n = slot.len();
            *slot.entry(o).or_insert(n) as i64
        })
        .collect();
    let (mut taken, mut to_slot) = (Vec::new(), Vec::new());
    for (i, o) in element_offsets(output)?.into_iter().enumerate() {
        if let Some(&s) = slot.get(&o) {
            taken.push(i as i64);
            to_slot.push(s as i64);
        }
    }
    let device = g.device();
    let index = |v: Vec<i64>| -> Result<Tensor> {
        let n = v.len();
        Tensor::from_vec(v, &[n])?.to_device(device)
    };
    let flat = g.reshape(&[-1])?;
    let reached = if taken.len() == flat.numel() { flat } else { flat.index_select(0, &index(taken)?)? };
    let per_slot = Tensor::zeros_on(&[slot.len()], g.dtype(), device)?.index_add(0, &index(to_slot)?, &reached, Scalar::Int(1))?;
    let in_slots = index(in_slots)?;
    let mut grad = per_slot.index_select(0, &in_slots)?;
    if slot.len() < in_offsets.len() {
        // Input elements sharing storage split what reached it.
        let ones = Tensor::full(&[in_offsets.len()], Scalar::Int(1), g.dtype())?.to_device(device)?;
        let counts = Tensor::zeros_on(&[slot.len()], g.dtype(), device)?.index_add(0, &in_slots, &ones, Scalar::Int(1))?;
        grad = grad.binary(crate::tensor::BinaryOp::Div, &counts.index_select(0, &in_slots)?)?;
    }
    grad.reshape(&sizes)
}
