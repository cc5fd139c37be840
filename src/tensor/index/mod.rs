//! Indexing and selection on tensors, one file per family: `gather_scatter` (index_select,
//! gather, scatter, index_add, take), `masked` (masked_fill, masked_select, nonzero), `sort`
//! (sort, topk, kthvalue, median) and `subscript` (Python's `t[...]` and `t[...] = v`). This
//! file holds what they share: reading and writing elements at computed offsets or positions.

mod gather_scatter;
mod masked;
mod sort;
mod subscript;

pub use subscript::TensorIndex;

use crate::autograd::GradMode;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{BinaryOp, Scalar, Tensor};

/// Integer dtypes an index tensor may have.
fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U8)
}

impl Tensor {
    /// The adjoint of `take_offsets`, without recording: a zero tensor of `shape` with each
    /// element `k` of `self` added at offset `offsets[k]`, in order (repeated offsets sum the
    /// same way every run). One pass, for gradients of gathers when no graph of the backward
    /// is being built. Half precision is left to callers (it would need f32 accumulation).
    pub(crate) fn put_add_offsets(&self, offsets: &[usize], shape: &[usize]) -> Result<Tensor> {
        debug_assert!(offsets.len() == self.numel() && offsets.iter().all(|&o| o < shape.iter().product()));
        let src = self.contiguous()?;
        let out = Tensor::zeros_on(shape, self.dtype(), self.device())?;
        out.backend().add_at(out.array(), offsets, src.array())?;
        Ok(out)
    }

    /// Whether `index` is an integer tensor on self's device, whose backend follows it there
    /// without reading it back.
    fn follows_on_device(&self, index: &Tensor) -> bool {
        self.backend().indices_stay_on_device() && index.device() == self.device() && is_index_dtype(index.dtype())
    }

    /// A contiguous tensor of `shape` holding self's elements (on a GPU) at the row-major int64
    /// `positions` (on the device, in range): read from self's storage, or from a contiguous
    /// copy of a strided self. Records nothing.
    pub(crate) fn take_positions(&self, positions: &Tensor, shape: &[usize]) -> Result<Tensor> {
        let _raw = GradMode::disabled();
        let src = self.contiguous()?;
        let at = src.storage_offset();
        let offsets = if at == 0 { positions.clone() } else { positions.binary_scalar(BinaryOp::Add, Scalar::Int(at as i64), false)? };
        Ok(Tensor::from_array(src.backend().take_at(src.array(), offsets.array(), shape)?))
    }

    /// A contiguous tensor of `shape` gathering `self`'s elements at storage `offsets`.
    fn take_offsets(&self, offsets: &[usize], shape: &[usize]) -> Result<Tensor> {
        Ok(Tensor::from_array(self.backend().take(self.array(), offsets, shape)?))
    }
}
