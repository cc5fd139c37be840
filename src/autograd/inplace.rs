//! In-place writes under autograd: which are refused, and how the written tensor's history is
//! moved onto what was written (for views, onto the tensor they view).

use std::collections::HashMap;

use crate::cpu::buffer::{alloc_error, with_capacity};
use crate::cpu::reduce::element_offsets;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

use super::grad_mode;
use super::op::{record, record_shown, Op, Positions};

/// What was written in place, which decides the node recording the write.
pub(crate) enum Written {
    /// An in-place op's result: replacing all of a tensor (not through a view), it becomes the
    /// tensor's history.
    Result,
    /// `copy_`'s source: over all of a tensor, PyTorch's CopyBackwards node lists the tensor's
    /// earlier history and the source.
    Copy,
    /// A number filled in (`fill_`, `x[i] = 2.0`): the node lists no value.
    Number,
}

impl Tensor {
    /// Before writing `src` into self in place: refuses what autograd cannot follow, and says
    /// whether the write must be recorded.
    pub(crate) fn check_inplace(&self, src: &Tensor) -> Result<bool> {
        if self.is_inference() && !grad_mode::is_inference_mode() {
            return Err(Error::Runtime(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.".into(),
            ));
        }
        if !grad_mode::is_enabled() {
            return Ok(false);
        }
        if self.is_leaf() && self.requires_grad() {
            return Err(Error::Runtime("a leaf Variable that requires grad is being used in an in-place operation.".into()));
        }
        let base = self.view_base().filter(|b| b.shares_storage(self));
        if let Some(b) = &base {
            if b.is_leaf() && b.requires_grad() {
                return Err(Error::Runtime("a view of a leaf Variable that requires grad is being used in an in-place operation.".into()));
            }
        }
        Ok(src.requires_grad() || self.requires_grad() || base.is_some_and(|b| b.requires_grad()))
    }

    /// Row-major positions in self of the elements at storage offsets `offsets`. Views made by
    /// `as_strided` may reach storage elements self does not view: an error, never a panic.
    pub(crate) fn positions_of(&self, offsets: &[usize]) -> Result<Vec<usize>> {
        let outside = || {
            Error::Runtime(
                "a view reaching storage elements outside the tensor it views (as_strided) cannot be written in place while autograd records it".into(),
            )
        };
        let mut out = with_capacity(offsets.len())?;
        if self.is_contiguous() {
            let (start, n) = (self.storage_offset(), self.numel());
            for &o in offsets {
                out.push(o.checked_sub(start).filter(|&p| p < n).ok_or_else(outside)?);
            }
            return Ok(out);
        }
        if let Some(dims) = peelable_dims(self.layout()) {
            let start = self.storage_offset();
            for &o in offsets {
                out.push(peel(&dims, o.checked_sub(start).ok_or_else(outside)?).ok_or_else(outside)?);
            }
            return Ok(out);
        }
        let mine = element_offsets(self.layout())?;
        let mut index: HashMap<usize, usize> = HashMap::new();
        let entry = std::mem::size_of::<(usize, usize)>();
        index.try_reserve(mine.len()).map_err(|_| alloc_error(mine.len().saturating_mul(entry)))?;
        index.extend(mine.into_iter().enumerate().map(|(i, o)| (o, i)));
        for o in offsets {
            out.push(index.get(o).copied().ok_or_else(outside)?);
        }
        Ok(out)
    }

    /// After `value` was written into self (at the storage offsets `region`, with `region_shape`,
    /// or over all of self): records the write so gradients reach `value` and, for the elements
    /// not written, self's earlier history.
    pub(crate) fn rebase_history(&self, region: Option<(&[usize], &[usize])>, value: &Tensor, written: Written) -> Result<()> {
        let target = self.write_target();
        let region = region.map(|(offsets, shape)| Ok::<_, Error>((Positions::Host(target.positions_of(offsets)?), shape))).transpose()?;
        self.rebase_history_at(region, value, written)
    }

    /// `rebase_history` for a write on the GPU at the storage offsets `origin + offsets` (int64,
    /// on the device) with `shape`: they stay on the device unless self views a strided base.
    pub(crate) fn rebase_history_on_device(
        &self,
        origin: usize,
        offsets: &Tensor,
        shape: &[usize],
        value: &Tensor,
        written: Written,
    ) -> Result<()> {
        let target = self.write_target();
        let shift = origin as i64 - target.storage_offset() as i64;
        let positions = offsets;
        let in_target = if !target.is_contiguous() {
            let offsets: Vec<usize> = positions.to_vec::<i64>()?.into_iter().map(|p| (p + origin as i64) as usize).collect();
            Positions::Host(target.positions_of(&offsets)?)
        } else if shift == 0 {
            Positions::Device(positions.clone())
        } else {
            Positions::Device(positions.binary_scalar(crate::tensor::BinaryOp::Add, crate::tensor::Scalar::Int(shift), false)?)
        };
        self.rebase_history_at(Some((in_target, shape)), value, written)
    }

    /// The tensor whose history an in-place write to self rebases: the base self views, or self.
    fn write_target(&self) -> Tensor {
        self.view_base().filter(|b| b.shares_storage(self)).unwrap_or_else(|| self.clone())
    }

    /// `rebase_history` with the written region as positions in the write target.
    fn rebase_history_at(&self, region: Option<(Positions, &[usize])>, value: &Tensor, written: Written) -> Result<()> {
        let base = self.view_base().filter(|b| b.shares_storage(self));
        let whole = region.is_none();
        let target = self.write_target();
        let shape: Vec<usize> = region.as_ref().map_or_else(|| self.shape().to_vec(), |(_, s)| s.to_vec());
        let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        let v = if value.shape() == shape.as_slice() { value.clone() } else { value.expand(&sizes)? };
        let v = v.to_dtype(target.dtype())?;
        if base.is_none() && whole {
            if let Written::Result = written {
                // All of self replaced by an op's result: self simply is `v` now.
                match v.grad_fn() {
                    Some(f) => self.set_grad_fn(f, v.output_nr()),
                    None if v.requires_grad() => record(Op::View { kind: "torch::autograd::CopyBackwards" }, &[&v], &[self], &[], &[]),
                    None => self.detach_(),
                }
                return Ok(());
            }
            if !v.requires_grad() && !self.requires_grad() {
                return Ok(());
            }
        }
        // Written through a view: PyTorch names the node of the base CopySlices; all of self
        // replaced, CopyBackwards (over self's earlier history and the value).
        let name = match (&base, whole) {
            (Some(_), _) => "torch::autograd::CopySlices",
            (None, true) => "torch::autograd::CopyBackwards",
            (None, false) => "IndexPutBackward0",
        };
        let shown: Option<&[usize]> = if let Written::Number = written { Some(&[0]) } else { None };
        // Found only here: a whole tensor replaced by a result (above) needs no positions, and
        // listing a million of them cost 5x the op (`relu_` in a training step).
        let positions = match region {
            Some((p, _)) => p,
            None => Positions::Host(target.positions_of(&element_offsets(self.layout())?)?),
        };
        record_shown(Some(name), Op::Put { name, offsets: positions, value_shape: shape }, &[&target, &v], &[&target], &[], &[], shown);
        if base.is_some() {
            // The view reads the new base.
            let mine = target.positions_of(&element_offsets(self.layout())?)?;
            record(Op::Take { kind: "AsStridedBackward0", offsets: Positions::Host(mine) }, &[&target], &[self], &[], &[]);
        }
        Ok(())
    }
}

/// One dim of a layout being inverted: its stride and size, and its stride in the row-major
/// numbering of positions.
struct PeelDim {
    stride: usize,
    size: usize,
    position_stride: usize,
}

/// The dims of `layout` ordered by falling stride, where each stride exceeds the whole reach
/// of the smaller ones: then every storage offset the layout holds has one decomposition, found
/// greedily from the largest stride down (transposes, narrows and steps of dense tensors are all
/// like this). None where the layout overlaps itself or interleaves: the caller's hash map
/// serves those.
fn peelable_dims(layout: &crate::layout::Layout) -> Option<Vec<PeelDim>> {
    let position_strides = crate::shape::contiguous_strides(&layout.shape).ok()?;
    let mut dims: Vec<PeelDim> = (0..layout.shape.len())
        .filter(|&d| layout.shape[d] > 1)
        .map(|d| PeelDim { stride: layout.strides[d], size: layout.shape[d], position_stride: position_strides[d] })
        .collect();
    dims.sort_by_key(|dim| std::cmp::Reverse(dim.stride));
    let mut reach = 0usize; // the largest offset the smaller-stride dims reach together
    for dim in dims.iter().rev() {
        if dim.stride <= reach {
            return None;
        }
        reach = reach.checked_add(dim.stride.checked_mul(dim.size - 1)?)?;
    }
    Some(dims)
}

/// The row-major position of the element at `relative` (its storage offset less the layout's
/// offset), or None where the layout holds no element there.
fn peel(dims: &[PeelDim], mut relative: usize) -> Option<usize> {
    let mut position = 0;
    for dim in dims {
        let index = relative / dim.stride;
        if index >= dim.size {
            return None;
        }
        relative -= index * dim.stride;
        position += index * dim.position_stride;
    }
    (relative == 0).then_some(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;

    /// Every element's storage offset peels back to its row-major position, and offsets the
    /// layout does not hold are refused, for the layouts views make; overlapping ones are not
    /// peelable.
    #[test]
    fn peeling_inverts_non_overlapping_layouts() {
        let layouts = [
            Layout { shape: vec![4, 3], strides: vec![1, 4], offset: 0 },        // transpose
            Layout { shape: vec![3, 2], strides: vec![1, 4], offset: 5 },        // narrowed transpose
            Layout { shape: vec![2, 3, 2], strides: vec![12, 2, 7], offset: 1 }, // steps, permuted
            Layout { shape: vec![1, 5], strides: vec![99, 3], offset: 2 },
            Layout { shape: vec![], strides: vec![], offset: 3 },
        ];
        for layout in &layouts {
            let dims = peelable_dims(layout).expect("non-overlapping");
            let offsets = element_offsets(layout).unwrap();
            for (position, &offset) in offsets.iter().enumerate() {
                assert_eq!(peel(&dims, offset - layout.offset), Some(position), "{layout:?}");
            }
            let held: std::collections::HashSet<usize> = offsets.iter().copied().collect();
            let top = offsets.iter().max().copied().unwrap_or(0) + 3;
            for offset in layout.offset..top {
                if !held.contains(&offset) {
                    assert_eq!(peel(&dims, offset - layout.offset), None, "{layout:?} at {offset}");
                }
            }
        }
        let expanded = Layout { shape: vec![3, 2], strides: vec![0, 1], offset: 0 };
        assert!(peelable_dims(&expanded).is_none());
        let interleaved = Layout { shape: vec![3, 3], strides: vec![2, 1], offset: 0 };
        assert!(peelable_dims(&interleaved).is_none());
    }
}
