//! The order-based selections: sort, topk, kthvalue and median (whole and along a dim), with
//! the rank selection they share.

use crate::autograd::{is_grad_enabled, record, GradMode, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::wrap_dim;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

impl Tensor {
    /// Stable sort along `dim`; NaNs sort as the largest values. Returns (values, int64 indices).
    pub fn sort(&self, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
        crate::autograd::named_pair("SortBackward0", &[self], || {
            let x = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
            let d = wrap_dim(dim, x.ndim())?;
            let work = if x.dtype().is_half() { x.to_dtype(DType::F32)? } else { x.clone() };
            let last = x.ndim() as i64 - 1;
            let indices = Tensor::from_array(work.backend().sort(work.array(), d, descending)?).movedim(last, d as i64)?.contiguous()?;
            let values = x.gather(d as i64, &indices)?;
            if self.ndim() == 0 {
                return Ok((values.reshape(&[])?, indices.reshape(&[])?));
            }
            Ok((values, indices))
        })
    }

    /// `topk(k, dim, largest, sorted)`: results come sorted.
    pub fn topk(&self, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
        crate::autograd::named_pair("TopkBackward0", &[self], || {
            if self.dtype() == DType::Bool {
                return Err(Error::NotImplemented("topk does not support bool dtypes on CPU".into()));
            }
            let d = wrap_dim(dim, self.ndim())?;
            let size = if self.ndim() == 0 { 1 } else { self.shape()[d] };
            if k < 0 || k as usize > size {
                return Err(Error::Runtime("selected index k out of range".into()));
            }
            if self.ndim() > 0 {
                if let Some(found) = self.backend().topk_indices(self.array(), d, k as usize, largest)? {
                    // Selected without sorting the lanes: indices with `d` last, values gathered
                    // (differentiably) with them.
                    let last = self.ndim() as i64 - 1;
                    let indices = Tensor::from_array(found).movedim(last, d as i64)?.contiguous()?;
                    return Ok((self.gather(d as i64, &indices)?, indices));
                }
            }
            let (v, i) = self.sort(dim, largest)?;
            if self.ndim() == 0 {
                return Ok((v, i));
            }
            Ok((v.narrow(d as i64, 0, k)?.contiguous()?, i.narrow(d as i64, 0, k)?.contiguous()?))
        })
    }

    /// `kthvalue(k, dim, keepdim)`: values and indices of the `k`-th smallest elements (k
    /// counts from 1) along `dim`.
    pub fn kthvalue(&self, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        crate::autograd::named_pair("KthvalueBackward0", &[self], || self.select_rank("kthvalue", Some(k), dim, keepdim))
    }

    /// `median(dim, keepdim)`: values and indices of the lower of the two middle elements along
    /// `dim` (of the first NaN, where a lane holds one).
    pub fn median_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        crate::autograd::named_pair("MedianBackward1", &[self], || self.select_rank("median", None, dim, keepdim))
    }

    /// `median()` over all elements (NaN if there is one). Its gradient is shared evenly by the
    /// elements equal to it, as max()'s is.
    pub fn median(&self) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            if self.numel() == 0 {
                // PyTorch's NaN, converted as its CPU converts it to each dtype.
                let empty = match self.dtype() {
                    DType::I64 => Scalar::Int(i64::MIN),
                    DType::I32 => Scalar::Int(i32::MIN as i64),
                    DType::Bool => Scalar::Bool(true),
                    d if d.is_floating_point() => Scalar::Float(f64::NAN),
                    _ => Scalar::Int(0),
                };
                Tensor::full(&[], empty, self.dtype())?.to_device(self.device())?
            } else if self.dtype() == DType::Bool {
                return Err(Error::NotImplemented("\"median_cpu\" not implemented for 'Bool'".into()));
            } else {
                self.reshape(&[-1])?.select_rank("median", None, 0, false)?.0
            }
        };
        if is_grad_enabled() && self.requires_grad() {
            let dims = (0..self.ndim()).collect();
            record(Op::Extremum { dims, keepdim: false, max: true, nan_ties: true }, &[self], &[&out], &[0], &[0]);
        }
        Ok(crate::autograd::composite("MedianBackward0", &[self], vec![out]).pop().expect("one output in, one out"))
    }

    /// The element of rank `k` (from 1) along `dim`, or the median when `k` is None: indices
    /// found without recording, values gathered (differentiably) with them.
    fn select_rank(&self, name: &str, k: Option<i64>, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        if self.dtype() == DType::Bool {
            // PyTorch's kernel names: median along a dim is `median_out`.
            let kernel = if name == "median" { "median_out" } else { "kthvalue_cpu" };
            return Err(Error::NotImplemented(format!("\"{kernel}\" not implemented for 'Bool'")));
        }
        let t = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
        let d = wrap_dim(dim, t.ndim())?;
        let size = t.shape()[d];
        let rank = match k {
            Some(k) if k < 1 || k as usize > size => {
                return Err(Error::Runtime(format!("kthvalue(): selected number k out of range for dimension {d}")));
            }
            Some(k) => Some(k as usize - 1),
            None if size == 0 => {
                return Err(Error::Index(format!("{name}(): Expected reduction dim {d} to have non-zero size.")));
            }
            None => None,
        };
        let (_, mut shape) = t.reduction_shape(Some(&[d as i64]), keepdim)?;
        if self.ndim() == 0 {
            shape.clear();
        }
        let kept: Vec<i64> = t.reduction_shape(Some(&[d as i64]), true)?.1.iter().map(|&v| v as i64).collect();
        let indices = {
            let _raw = GradMode::disabled();
            match t.backend().rank_indices(t.array(), d, rank)? {
                // A fresh array, `d` removed: viewed at the result's shape, it stays a tensor of its own.
                Some(found) => Tensor::from_array(found.view_as(&shape)?),
                None => t.rank_indices_by_sort(d, rank)?.reshape(&shape.iter().map(|&v| v as i64).collect::<Vec<_>>())?,
            }
        };
        let values = t.gather(d as i64, &indices.reshape(&kept)?)?;
        Ok((values.reshape(&shape.iter().map(|&v| v as i64).collect::<Vec<_>>())?, indices))
    }

    /// The backend's `rank_indices` where it has no such kernel, from its sort (which orders
    /// NaN and ties the same way), with `d` kept: the median's position in a sorted lane is that of its first NaN, `n - count`,
    /// when it holds `count` NaNs, else the lower middle.
    fn rank_indices_by_sort(&self, d: usize, rank: Option<usize>) -> Result<Tensor> {
        let order = self.sort(d as i64, false)?.1;
        let n = self.shape()[d];
        let Some(k) = rank.or((!self.dtype().is_floating_point()).then_some((n - 1) / 2)) else {
            let nans = self.binary(BinaryOp::Ne, self)?.to_dtype(DType::F32)?.sum(Some(&[d as i64]), true)?;
            let has_nan = nans.binary_scalar(BinaryOp::Gt, Scalar::Float(0.0), false)?;
            let first_nan = nans.binary_scalar(BinaryOp::Sub, Scalar::Float(n as f64), true)?;
            let middle = Scalar::Float(((n - 1) / 2) as f64);
            let pos = Tensor::where_(&has_nan, Arg::T(&first_nan), Arg::S(middle))?.to_dtype(DType::I64)?;
            return order.gather(d as i64, &pos);
        };
        order.narrow(d as i64, k as i64, 1)?.contiguous()
    }
}
