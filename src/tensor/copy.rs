//! Copies and in-place writes of whole tensors (clone, dtype conversion, copy_, fill_, and the
//! write of an in-place op's result), recorded for autograd: above the tensor core, which
//! knows nothing of the graph.

use crate::autograd::{self, GradMode, Op};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape;

use super::{arith, check_alloc, scalar_check, Tensor};

impl Tensor {
    /// Self if already contiguous, else a contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.copy_as(self.dtype())
    }

    /// A new contiguous tensor with the same values, converted to `dtype`.
    pub fn copy_as(&self, dtype: DType) -> Result<Tensor> {
        self.copy_in_order(None, dtype)
    }

    /// `clone()` and `.to(dtype)`: a copy converted to `dtype` in self's memory order
    /// (PyTorch's preserve_format: a transposed tensor's clone is transposed too).
    pub fn clone_as(&self, dtype: DType) -> Result<Tensor> {
        self.copy_in_order(crate::result_layout::preserved_order(self.layout()), dtype)
    }

    /// A copy converted to `dtype` whose memory is in `order` (None: row-major).
    pub fn copy_in_order(&self, order: Option<crate::result_layout::ResultOrder>, dtype: DType) -> Result<Tensor> {
        check_alloc(self.shape(), dtype)?;
        let src = self.dtype();
        let x = self.array();
        let out = crate::result_layout::compute_in_order(order, self.shape(), &[x], |xs, _| self.backend().copy_as(&xs[0], dtype))?;
        let out = Tensor::from_array(out);
        if src == dtype {
            autograd::record(Op::View { kind: "CloneBackward0" }, &[self], &[&out], &[], &[]);
        } else {
            autograd::record(Op::Copy { from: src }, &[self], &[&out], &[], &[]);
        }
        Ok(out)
    }

    /// A new result (not yet recorded) copied into channels-last order where `yes`: PyTorch's
    /// conv, pooling and batch_norm give channels-last results for channels-last inputs.
    pub(crate) fn channels_last_result(self, yes: bool) -> Result<Tensor> {
        use crate::result_layout::{channels_last_order, is_contiguous_in, MemoryFormat};
        if !yes || is_contiguous_in(self.layout(), MemoryFormat::ChannelsLast) {
            return Ok(self);
        }
        let _raw = GradMode::disabled();
        self.copy_in_order(channels_last_order(self.shape())?, self.dtype())
    }

    /// Self when the dtype matches, else a converted copy in self's memory order (as PyTorch's
    /// `.to(dtype)`).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        self.clone_as(dtype)
    }

    /// `copy_(src)`: writes `src` (broadcast to self's shape, converted to self's dtype) into
    /// self in place; its node (CopyBackwards, or CopySlices through a view) passes gradients
    /// to `src` and, for what was not overwritten, to self's earlier history.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        if self.same(src) {
            // Copying a tensor onto itself changes nothing (and is allowed even when expanded).
            return Ok(());
        }
        self.check_no_overlap()?;
        self.write_(src, autograd::Written::Copy)
    }

    /// Writes the result of an in-place op (computed out of place) into self: self's history
    /// becomes the result's.
    pub(crate) fn assign_(&self, result: &Tensor) -> Result<()> {
        self.check_no_overlap()?;
        self.write_(result, autograd::Written::Result)
    }

    /// `assign_` for the in-place ops PyTorch lets write through overlapping views (masked_fill_,
    /// where every element is given one value whichever of its positions is read).
    pub(crate) fn assign_overlapping_(&self, result: &Tensor) -> Result<()> {
        self.write_(result, autograd::Written::Result)
    }

    /// PyTorch's error for an in-place write or copy into a view whose positions share storage
    /// elements (fill_, zero_ and indexed writes of numbers are allowed there).
    fn check_no_overlap(&self) -> Result<()> {
        if self.layout().has_internal_overlap() {
            return Err(Error::Runtime(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
            ));
        }
        Ok(())
    }

    fn write_(&self, src: &Tensor, written: autograd::Written) -> Result<()> {
        let tracked = self.check_inplace(src)?;
        // An op's result written over its own input: its node must not keep the input as it was.
        let result = tracked && matches!(written, autograd::Written::Result);
        let keep_result = if result { autograd::op::before_inplace_write(self, src)? } else { false };
        {
            let _raw = GradMode::disabled();
            self.copy_raw(src)?;
        }
        if tracked {
            if result {
                autograd::op::after_inplace_write(self, src, keep_result);
            }
            self.rebase_history(None, src, written)?;
        }
        Ok(())
    }

    /// `fill_(value)`: a number, or a zero-dim tensor (which then gets a gradient).
    pub fn fill_(&self, value: arith::Arg) -> Result<()> {
        match value {
            arith::Arg::S(s) => {
                let s = s.checked_for(self.dtype(), scalar_check::Spelling::Cpp)?;
                self.fill_named(&Tensor::scalar_tensor(s, self.dtype())?, "FillBackward2")
            }
            arith::Arg::T(t) => {
                if t.ndim() != 0 {
                    return Err(Error::Runtime(format!(
                        "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                        t.ndim()
                    )));
                }
                self.fill_named(t, "FillBackward3")
            }
        }
    }

    pub fn zero_(&self) -> Result<()> {
        self.fill_named(&Tensor::zeros(&[], self.dtype())?, "ZeroBackward0")
    }

    /// Writes the zero-dim `value` everywhere. A tensor with history gets a node `kind` of its
    /// own (PyTorch's ZeroBackward0 / FillBackward2 / FillBackward3) over that history; a view
    /// writes through its base as `copy_` does.
    fn fill_named(&self, value: &Tensor, kind: &'static str) -> Result<()> {
        let tracked = self.check_inplace(value)?;
        let through_view = self.view_base().is_some_and(|b| b.shares_storage(self));
        if !tracked {
            return self.write_(value, autograd::Written::Copy);
        }
        if through_view {
            // Written through the base, which lists no number written.
            {
                let _raw = GradMode::disabled();
                self.copy_raw(value)?;
            }
            let written = if kind == "FillBackward3" { autograd::Written::Copy } else { autograd::Written::Number };
            return self.rebase_history(None, value, written);
        }
        // The values before the write, with their history, become the node's first input.
        let before = self.detach();
        if let Some(f) = self.grad_fn() {
            before.set_grad_fn(f, self.output_nr());
        }
        {
            let _raw = GradMode::disabled();
            self.write_(value, autograd::Written::Copy)?;
        }
        let inputs: Vec<&Tensor> = if kind == "FillBackward3" { vec![&before, value] } else { vec![&before] };
        autograd::record(Op::Fill { kind }, &inputs, &[self], &[], &[]);
        Ok(())
    }

    /// Writes `src` into self, recording nothing (also the backward of a view, into a window of
    /// fresh zeros).
    pub(crate) fn copy_raw(&self, src: &Tensor) -> Result<()> {
        let shape = shape::broadcast_shapes(self.shape(), src.shape())?;
        if shape != self.shape() {
            return Err(Error::Runtime(format!("output with shape {:?} doesn't match the broadcast shape {:?}", self.shape(), shape)));
        }
        // Reading and writing one storage at once would need two locks on it: go through a copy.
        let src = if self.shares_storage(src) { src.copy_as(src.dtype())? } else { src.clone() };
        // A copy between devices moves the data first (converted where it is cheapest: before
        // an upload, after a download).
        let src = match (src.device(), self.device()) {
            (a, b) if a == b => src.to_dtype(self.dtype())?,
            (Device::Cpu, b) => src.to_dtype(self.dtype())?.to_device(b)?,
            (_, b) => src.to_device(b)?.to_dtype(self.dtype())?,
        };
        self.backend().copy(&src.array().broadcast_to(self.shape()), self.array())
    }
}
