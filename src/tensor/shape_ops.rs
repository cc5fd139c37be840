//! Ops that build new tensors from pieces of others: cat, stack, flip, repeat, tile, roll,
//! tril/triu, diag and trace.

use crate::autograd::{record, GradMode, Op};
use crate::dtype::{result_type, DType, Operand};
use crate::error::{Error, Result};
use crate::shape::wrap_dim;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

impl Tensor {
    /// `torch.cat`: the result dtype promotes over all inputs; legacy empty 1-D inputs are skipped.
    pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            Tensor::cat_raw(tensors, dim)?
        };
        if crate::autograd::is_grad_enabled() && tensors.iter().any(|t| t.requires_grad()) {
            let parts: Vec<&Tensor> = tensors.iter().filter(|t| !(t.ndim() == 1 && t.numel() == 0)).collect();
            let d = wrap_dim(dim, out.ndim())?;
            let sizes = parts.iter().map(|t| t.shape()[d]).collect();
            record(Op::Cat { dim: d, sizes }, &parts, &[&out], &[], &[]);
        }
        Ok(out)
    }

    fn cat_raw(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        if tensors.is_empty() {
            return Err(Error::Runtime("torch.cat(): expected a non-empty list of Tensors".into()));
        }
        let parts: Vec<&Tensor> = tensors.iter().filter(|t| !(t.ndim() == 1 && t.numel() == 0)).collect();
        let dtype = result_type(&tensors.iter().map(|t| Operand::Tensor(t.dtype())).collect::<Vec<_>>());
        // Every part must be on one device (PyTorch allows no CPU scalars here).
        let device = crate::device::common_device(&tensors.iter().collect::<Vec<_>>(), false)?;
        let Some(first) = parts.first() else {
            return Tensor::zeros_on(&[0], dtype, device);
        };
        if first.ndim() == 0 {
            return Err(Error::Runtime("zero-dimensional tensor (at position 0) cannot be concatenated".into()));
        }
        let d = wrap_dim(dim, first.ndim())?;
        let mut shape = first.shape().to_vec();
        let mut total = 0usize;
        for (i, t) in parts.iter().enumerate() {
            if t.ndim() != first.ndim() {
                return Err(Error::Runtime(format!("Tensors must have same number of dimensions: got {} and {}", first.ndim(), t.ndim())));
            }
            for k in 0..first.ndim() {
                if k != d && t.shape()[k] != first.shape()[k] {
                    return Err(Error::Runtime(format!(
                        "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                        first.shape()[k],
                        t.shape()[k]
                    )));
                }
            }
            total = total.checked_add(t.shape()[d]).ok_or_else(|| Error::SizeOverflow("cat".into()))?;
        }
        shape[d] = total;
        crate::tensor::check_alloc(&shape, dtype)?;
        // Parts of the result's dtype, laid out densely: the backend writes them straight into
        // a new array.
        if parts.iter().all(|t| t.dtype() == dtype) {
            let arrays: Vec<&crate::backend::Array> = parts.iter().map(|t| t.array()).collect();
            if let Some(out) = first.backend().cat(&arrays, d, &shape)? {
                return Ok(Tensor::from_array(out));
            }
        }
        // Every element is written below, so the output needs no clearing.
        let out = Tensor::empty_on(&shape, dtype, device)?;
        let mut start = 0i64;
        for t in parts {
            let len = t.shape()[d] as i64;
            out.narrow(d as i64, start, len)?.copy_(t)?;
            start += len;
        }
        Ok(out)
    }

    pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        crate::autograd::named("StackBackward0", &tensors.iter().collect::<Vec<_>>(), || {
            let Some(first) = tensors.first() else {
                return Err(Error::Runtime("stack expects a non-empty TensorList".into()));
            };
            for (i, t) in tensors.iter().enumerate() {
                if t.shape() != first.shape() {
                    return Err(Error::Runtime(format!(
                        "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                        first.shape(),
                        t.shape()
                    )));
                }
            }
            let d = wrap_dim(dim, first.ndim() + 1)? as i64;
            let parts = tensors.iter().map(|t| t.unsqueeze(d)).collect::<Result<Vec<_>>>()?;
            Tensor::cat(&parts, d)
        })
    }

    pub fn flip(&self, dims: &[i64]) -> Result<Tensor> {
        let wrapped = crate::shape::wrap_dims(dims, self.ndim())?;
        if self.ndim() > 0 && self.numel() > 0 && !wrapped.is_empty() {
            let found = {
                let _raw = GradMode::disabled();
                self.backend().flip(self.array(), &wrapped)?
            };
            if let Some(found) = found {
                // One copy read in memory order, its gradient the gradient flipped back.
                let out = Tensor::from_array(found);
                if crate::autograd::is_grad_enabled() && self.requires_grad() {
                    record(Op::Flip { dims: wrapped }, &[self], &[&out], &[], &[]);
                }
                return Ok(out);
            }
        }
        crate::autograd::named("FlipBackward0", &[self], || {
            let dims = wrapped;
            let mut out = self.clone();
            // An empty tensor has nothing to reverse; its dims may still be 2**40 long, too
            // long for an index list.
            let flipped = if self.numel() == 0 { Vec::new() } else { dims };
            for d in flipped.into_iter().filter(|&d| d < self.ndim()) {
                let n = self.shape()[d] as i64;
                let rev = Tensor::arange(Scalar::Int(n - 1), Scalar::Int(-1), Scalar::Int(-1), DType::I64)?;
                out = out.index_select(d as i64, &rev)?;
            }
            if out.same(self) {
                out = self.contiguous()?.copy_as(self.dtype())?;
            }
            Ok(out)
        })
    }

    pub fn repeat(&self, reps: &[i64]) -> Result<Tensor> {
        crate::autograd::named("RepeatBackward0", &[self], || {
            if reps.len() < self.ndim() {
                return Err(Error::Runtime(
                    "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor".into(),
                ));
            }
            let lead = reps.len() - self.ndim();
            let padded: Vec<i64> = std::iter::repeat_n(1, lead).chain(self.shape().iter().map(|&s| s as i64)).collect();
            if reps.iter().any(|&r| r < 0) {
                // PyTorch names the negative size of the result.
                let sizes: Vec<i64> = padded.iter().zip(reps).map(|(&s, &r)| s.saturating_mul(r)).collect();
                let neg = sizes.iter().copied().find(|&v| v < 0).unwrap_or(-1);
                return Err(Error::NegativeDimension(neg, sizes));
            }
            let x = self.reshape(&padded)?;
            // View as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], then merge pairs.
            let mut inter = Vec::with_capacity(2 * reps.len());
            let mut expanded = Vec::with_capacity(2 * reps.len());
            for (i, &s) in padded.iter().enumerate() {
                inter.extend([1, s]);
                expanded.extend([reps[i], s]);
            }
            let final_shape: Vec<i64> = padded.iter().zip(reps).map(|(s, r)| s * r).collect();
            x.reshape(&inter)?.expand(&expanded)?.contiguous()?.reshape(&final_shape)
        })
    }

    /// `tile(dims)`: `repeat`, with `dims` padded by leading ones when it has fewer entries than
    /// self has dims.
    pub fn tile(&self, dims: &[i64]) -> Result<Tensor> {
        let mut reps = vec![1; self.ndim().saturating_sub(dims.len())];
        reps.extend_from_slice(dims);
        self.repeat(&reps)
    }

    /// `diag(diagonal)`: a 1-D input becomes the square matrix holding it on that diagonal (zero
    /// elsewhere); a 2-D input gives a copy of that diagonal.
    pub fn diag(&self, diagonal: i64) -> Result<Tensor> {
        match self.ndim() {
            1 => crate::autograd::named("DiagEmbedBackward0", &[self], || {
                let m = self.shape()[0] + diagonal.unsigned_abs() as usize;
                let first = if diagonal >= 0 { diagonal as usize } else { diagonal.unsigned_abs() as usize * m };
                let pos: Vec<i64> = (0..self.shape()[0]).map(|i| (first + i * (m + 1)) as i64).collect();
                let idx = Tensor::from_vec(pos, &[self.shape()[0]])?.to_device(self.device())?;
                let flat = Tensor::zeros_on(&[m * m], self.dtype(), self.device())?;
                flat.index_add(0, &idx, self, Scalar::Int(1))?.reshape(&[m as i64, m as i64])
            }),
            2 => crate::autograd::named("DiagonalBackward0_copy", &[self], || self.diagonal(diagonal, 0, 1)?.copy_as(self.dtype())),
            n => Err(Error::Runtime(format!("diag(): Supports 1D or 2D tensors. Got {n}D"))),
        }
    }

    /// `trace()`: the sum of a matrix's main diagonal (integers sum to int64).
    pub fn trace(&self) -> Result<Tensor> {
        crate::autograd::named("TraceBackward0", &[self], || {
            if self.ndim() != 2 {
                return Err(Error::Runtime(format!("trace: expected a matrix, but got tensor with dim {}", self.ndim())));
            }
            if self.dtype() == DType::Bool {
                return Err(Error::NotImplemented("\"trace\" not implemented for 'Bool'".into()));
            }
            self.diagonal(0, 0, 1)?.sum(None, false)
        })
    }

    /// `roll(shifts, dims)`: computed unrecorded, its node's gradient the gradient rolled back
    /// (one copy, where the parts it is made of would each scatter a full-size gradient).
    pub fn roll(&self, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.roll_raw(shifts, dims)?
        };
        if crate::autograd::is_grad_enabled() && self.requires_grad() {
            // Each shift undone as `n - s mod n`, which cannot overflow as `-s` could.
            let back = |s: i64, n: usize| if n == 0 { 0 } else { n as i64 - s.rem_euclid(n as i64) };
            let undo: Vec<i64> = if dims.is_empty() {
                shifts.iter().map(|&s| back(s, self.numel())).collect()
            } else {
                let sizes =
                    dims.iter().map(|&d| Ok(self.shape()[crate::shape::wrap_dim_strict(d, self.ndim())?])).collect::<Result<Vec<_>>>()?;
                shifts.iter().zip(sizes).map(|(&s, n)| back(s, n)).collect()
            };
            record(Op::Roll { shifts: undo, dims: dims.to_vec() }, &[self], &[&out], &[], &[]);
        }
        Ok(out)
    }

    fn roll_raw(&self, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        if dims.is_empty() {
            let [s] = shifts else {
                return Err(Error::Runtime(format!("shifts and dimensions must align. shifts: {}, dims:0", shifts.len())));
            };
            return self.flatten(0, -1)?.roll_raw(&[*s], &[0])?.reshape(&self.shape().iter().map(|&v| v as i64).collect::<Vec<_>>());
        }
        if shifts.len() != dims.len() {
            return Err(Error::Runtime(format!("shifts and dimensions must align. shifts: {}, dims:{}", shifts.len(), dims.len())));
        }
        let mut out = self.clone();
        for (&s, &d) in shifts.iter().zip(dims) {
            let dd = crate::shape::wrap_dim_strict(d, self.ndim())?;
            let n = self.shape()[dd] as i64;
            if n == 0 {
                continue;
            }
            let s = s.rem_euclid(n);
            if s == 0 {
                continue;
            }
            out = Tensor::cat(&[out.narrow(d, n - s, s)?, out.narrow(d, 0, n - s)?], d)?;
        }
        if out.same(self) {
            out = self.copy_as(self.dtype())?;
        }
        Ok(out)
    }

    /// `tril` (`upper` false) or `triu` (`upper` true) of the last two dims.
    pub fn triangle(&self, diagonal: i64, upper: bool) -> Result<Tensor> {
        crate::autograd::named(if upper { "TriuBackward0" } else { "TrilBackward0" }, &[self], || {
            if self.ndim() < 2 {
                return Err(Error::Runtime(format!(
                    "{}: input tensor must have at least 2 dimensions",
                    if upper { "triu" } else { "tril" }
                )));
            }
            if self.numel() == 0 {
                // Nothing to mask, and the dims may be too long for index lists.
                return self.contiguous()?.copy_as(self.dtype());
            }
            let (r, c) = (self.shape()[self.ndim() - 2], self.shape()[self.ndim() - 1]);
            // Element (i, j) is kept when j - i <= diagonal (tril) or >= it (triu), compared as
            // j - diagonal against i: one broadcast comparison of a row and a column of indices
            // writes the bool mask, with no r x c int64 offsets. A diagonal past every column or
            // row gives the mask it gives clamped there, and clamped it cannot overflow.
            let diagonal = diagonal.clamp(-(r as i64) - 1, c as i64 + 1);
            let rows = Tensor::arange(Scalar::Int(0), Scalar::Int(r as i64), Scalar::Int(1), DType::I64)?.unsqueeze(1)?;
            let shifted = Tensor::arange(Scalar::Int(-diagonal), Scalar::Int(c as i64 - diagonal), Scalar::Int(1), DType::I64)?;
            let op = if upper { BinaryOp::Ge } else { BinaryOp::Le };
            // The mask is built on the host and moved to the input's device (a no-op on the CPU).
            let keep = shifted.binary(op, &rows)?.to_device(self.device())?;
            let zero = Tensor::zeros_on(&[], self.dtype(), self.device())?;
            Tensor::where_(&keep, Arg::T(self), Arg::T(&zero))
        })
    }
}
