//! In-place writes under autograd: which are refused, and how the written tensor's history is
//! moved onto what was written (for views, onto the tensor they view).

use std::collections::HashMap;

use crate::cpu::reduce::element_offsets;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

use super::grad_mode;
use super::op::{record, Op};

impl Tensor {
    /// Before writing `src` into self in place: refuses what autograd cannot follow, and says
    /// whether the write must be recorded.
    pub(crate) fn check_inplace(&self, src: &Tensor) -> Result<bool> {
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

    /// Row-major positions in self of the elements at storage offsets `offsets`.
    pub(crate) fn positions_of(&self, offsets: &[usize]) -> Vec<usize> {
        if self.is_contiguous() {
            return offsets.iter().map(|&o| o - self.storage_offset()).collect();
        }
        let index: HashMap<usize, usize> = element_offsets(self.layout()).into_iter().enumerate().map(|(i, o)| (o, i)).collect();
        offsets.iter().map(|o| index[o]).collect()
    }

    /// After `value` was written into self (at the storage offsets `region`, with `region_shape`,
    /// or over all of self): records the write so gradients reach `value` and, for the elements
    /// not written, self's earlier history.
    pub(crate) fn rebase_history(&self, region: Option<(&[usize], &[usize])>, value: &Tensor) -> Result<()> {
        let base = self.view_base().filter(|b| b.shares_storage(self));
        let (offsets, shape): (Vec<usize>, Vec<usize>) = match region {
            Some((o, s)) => (o.to_vec(), s.to_vec()),
            None => (element_offsets(self.layout()), self.shape().to_vec()),
        };
        let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        let v = if value.shape() == shape.as_slice() { value.clone() } else { value.expand(&sizes)? };
        let target = base.clone().unwrap_or_else(|| self.clone());
        let v = v.to_dtype(target.dtype())?;
        if base.is_none() && region.is_none() {
            // All of self replaced: self simply is `v` now.
            match v.grad_fn() {
                Some(f) => self.set_grad_fn(f, v.output_nr()),
                None if v.requires_grad() => record(Op::View { kind: "torch::autograd::CopyBackwards" }, &[&v], &[self], &[], &[]),
                None => self.detach_(),
            }
            return Ok(());
        }
        let positions = target.positions_of(&offsets);
        // Written through a view: PyTorch names the node of the base CopySlices.
        let name = if base.is_some() { "torch::autograd::CopySlices" } else { "IndexPutBackward0" };
        record(Op::Put { name, offsets: positions, value_shape: shape }, &[&target, &v], &[&target], &[], &[]);
        if base.is_some() {
            // The view reads the new base.
            let mine = target.positions_of(&element_offsets(self.layout()));
            record(Op::Take { kind: "AsStridedBackward0", offsets: mine }, &[&target], &[self], &[], &[]);
        }
        Ok(())
    }
}
