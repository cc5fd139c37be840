//! In-place writes under autograd: which are refused, and how the written tensor's history is
//! moved onto what was written (for views, onto the tensor they view).

use std::collections::HashMap;

use crate::cpu::reduce::element_offsets;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

use super::grad_mode;
use super::op::{record, record_shown, Op};

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
    pub(crate) fn rebase_history(&self, region: Option<(&[usize], &[usize])>, value: &Tensor, written: Written) -> Result<()> {
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
        let positions = target.positions_of(&offsets);
        // Written through a view: PyTorch names the node of the base CopySlices; all of self
        // replaced, CopyBackwards (over self's earlier history and the value).
        let name = match (&base, region) {
            (Some(_), _) => "torch::autograd::CopySlices",
            (None, None) => "torch::autograd::CopyBackwards",
            (None, Some(_)) => "IndexPutBackward0",
        };
        let shown: Option<&[usize]> = if let Written::Number = written { Some(&[0]) } else { None };
        record_shown(Some(name), Op::Put { name, offsets: positions, value_shape: shape }, &[&target, &v], &[&target], &[], &[], shown);
        if base.is_some() {
            // The view reads the new base.
            let mine = target.positions_of(&element_offsets(self.layout()));
            record(Op::Take { kind: "AsStridedBackward0", offsets: mine }, &[&target], &[self], &[], &[]);
        }
        Ok(())
    }
}
