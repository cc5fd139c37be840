//! The gather and scatter family: index_select, gather, take (elements read at index values),
//! scatter, scatter_add and index_add (elements written or added at them).

use super::is_index_dtype;
use crate::autograd::{is_grad_enabled, record, record_shown, GradMode, Op, Positions};
use crate::cpu::buffer::collect_n;
use crate::cpu::reduce::element_offsets;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape::wrap_dim;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

/// Integer index values as i64, rejecting other dtypes as PyTorch does.
fn index_values(index: &Tensor, what: &str) -> Result<Vec<i64>> {
    match index.dtype() {
        DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U8 => index.to_vec::<i64>(),
        d => Err(Error::Index(format!("{what}(): Expected dtype int64 for index but got {}", d.name()))),
    }
}

impl Tensor {
    /// Storage offsets of the elements selected by `index` along `dim` of `layout`, for an output
    /// of `out_shape` (`index_of(i)` gives the index value for output element `i`).
    fn offsets_along(layout: &Layout, dim: usize, out_shape: &[usize], index_of: impl Fn(usize) -> usize) -> Result<Vec<usize>> {
        let mut l = layout.clone();
        l.shape = out_shape.to_vec();
        let stride = l.strides[dim];
        l.strides[dim] = 0;
        let mut offsets = element_offsets(&l)?;
        offsets.iter_mut().enumerate().for_each(|(i, o)| *o += index_of(i) * stride);
        Ok(offsets)
    }

    /// `self` gathered along `d` by an integer `index` on the same device, for an output of
    /// `shape`: `index_at` views the index at that shape. The backend reads the indices where
    /// they lie (on a GPU they stay there, and one flag word comes back); None when the offsets
    /// must be made here instead (an index on another device, or one out of range, whose error
    /// that path words).
    fn gather_by_index(&self, d: usize, index: &Tensor, index_at: Layout, shape: &[usize]) -> Result<Option<Tensor>> {
        if index.device() != self.device() || !is_index_dtype(index.dtype()) {
            return Ok(None);
        }
        if shape.contains(&0) && index.numel() > 0 {
            // Nothing to gather, but the CPU still checks the indices: let the host path do so.
            return Ok(None);
        }
        let mut src_at = self.layout().clone();
        src_at.shape = shape.to_vec();
        src_at.strides[d] = 0;
        Ok(self.backend().gather_index(self.array(), &src_at, d, index.array(), &index_at, shape)?.map(Tensor::from_array))
    }

    pub fn index_select(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        if self.ndim() == 0 && self.requires_grad() && is_grad_enabled() {
            return self.reshape(&[1])?.index_select(dim, index)?.reshape(&[]);
        }
        let out = {
            let _raw = GradMode::disabled();
            self.index_select_raw(dim, index)?
        };
        if is_grad_enabled() && self.requires_grad() {
            let d = wrap_dim(dim, self.ndim())?;
            record_shown(None, Op::IndexSelect { dim: d }, &[self, index], &[&out], &[1], &[], Some(&[0]));
        }
        Ok(out)
    }

    fn index_select_raw(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        if index.ndim() > 1 {
            return Err(Error::Index("index_select(): Index is supposed to be a vector".into()));
        }
        let x = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
        let d = wrap_dim(dim, x.ndim())?;
        if let Some(out) = x.index_select_in_range(d, index)? {
            return if self.ndim() == 0 { out.reshape(&[]) } else { Ok(out) };
        }
        let idx = index_values(index, "index_select")?;
        let size = x.shape()[d];
        let idx = idx
            .iter()
            .map(|&v| if v < 0 || v as usize >= size { Err(Error::Index("index out of range in self".into())) } else { Ok(v as usize) })
            .collect::<Result<Vec<_>>>()?;
        let mut shape = x.shape().to_vec();
        shape[d] = idx.len();
        let inner: usize = shape[d + 1..].iter().product();
        let k = idx.len().max(1);
        let offs = Tensor::offsets_along(x.layout(), d, &shape, |i| idx[(i / inner.max(1)) % k])?;
        let out = x.take_offsets(&offs, &shape)?;
        if self.ndim() == 0 {
            out.reshape(&[])
        } else {
            Ok(out)
        }
    }

    /// `index_select` along `d` of self (at least one dim) by the vector (or zero-dim) `index`:
    /// the indices read where they lie, whole rows copied. None when the backend cannot serve
    /// it or an index is out of range, for the caller to word its own error. Records nothing.
    pub(super) fn index_select_in_range(&self, d: usize, index: &Tensor) -> Result<Option<Tensor>> {
        let mut out_shape = self.shape().to_vec();
        out_shape[d] = index.numel();
        // The index vector walks `d`; every other dim repeats it.
        let mut index_at = Layout::contiguous(out_shape.clone())?;
        index_at.strides = vec![0; out_shape.len()];
        index_at.strides[d] = if index.ndim() == 1 { index.strides()[0] } else { 0 };
        index_at.offset = index.storage_offset();
        self.gather_by_index(d, index, index_at, &out_shape)
    }

    pub fn gather(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        if self.ndim() == 0 && self.requires_grad() && is_grad_enabled() {
            let shape: Vec<i64> = index.shape().iter().map(|&v| v as i64).collect();
            return self.reshape(&[1])?.gather(0, &index.reshape(&[-1])?)?.reshape(&shape);
        }
        let out = {
            let _raw = GradMode::disabled();
            self.gather_raw(dim, index)?
        };
        if is_grad_enabled() && self.requires_grad() {
            let d = wrap_dim(dim, self.ndim())?;
            record_shown(None, Op::Gather { dim: d }, &[self, index], &[&out], &[1], &[], Some(&[0]));
        }
        Ok(out)
    }

    fn gather_raw(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        if index.ndim() != self.ndim() && !(index.ndim() <= 1 && self.ndim() <= 1) {
            return Err(Error::Runtime("Index tensor must have the same number of dimensions as input tensor".into()));
        }
        if self.ndim() == 0 {
            return self
                .reshape(&[1])?
                .gather(0, &index.reshape(&[-1])?)?
                .reshape(&index.shape().iter().map(|&v| v as i64).collect::<Vec<_>>());
        }
        for k in 0..self.ndim() {
            if k != d && index.shape()[k] > self.shape()[k] {
                return Err(Error::Runtime(format!(
                    "Size does not match at dimension {k} expected index {:?} to be no larger than self {:?} apart from dimension {d}",
                    index.shape(),
                    self.shape()
                )));
            }
        }
        // A strided src that the gather reads about whole (`x.t().gather(1, index)`) is first
        // copied dense (a transposed matrix in blocks): read in place at random along its long
        // stride, each element cost a cache line, the lines 4 KiB apart in one cache set (1M
        // float32 took 1.8x PyTorch).
        let dense;
        let src = if self.device() == Device::Cpu
            && !self.is_contiguous()
            && self.strides().iter().all(|&s| s != 0)
            && index.numel().saturating_mul(2) >= self.numel()
        {
            dense = self.contiguous()?;
            &dense
        } else {
            self
        };
        if let Some(out) = src.gather_by_index(d, index, index.layout().clone(), index.shape())? {
            return Ok(out);
        }
        let idx = index_values(index, "gather")?;
        let size = self.shape()[d];
        let idx = idx.iter().map(|&v| wrap_positive(v, size, d)).collect::<Result<Vec<_>>>()?;
        let offs = Tensor::offsets_along(self.layout(), d, index.shape(), |i| idx[i])?;
        self.take_offsets(&offs, index.shape())
    }

    /// `scatter` (`reduce_add` false) or `scatter_add`: a new tensor equal to self with `src`
    /// written (or added) at `index` along `dim`. Later writes win, as on PyTorch's CPU.
    pub fn scatter(&self, dim: i64, index: &Tensor, src: Arg, reduce_add: bool) -> Result<Tensor> {
        if let Arg::S(s) = src {
            s.checked_for(self.dtype(), crate::tensor::scalar_check::Spelling::Cpp)?;
        }
        let out = {
            let _raw = GradMode::disabled();
            self.scatter_raw(dim, index, src, reduce_add, false)?
        };
        if is_grad_enabled() && self.ndim() > 0 {
            let d = wrap_dim(dim, self.ndim())?;
            let op = Op::Scatter { dim: d, add: reduce_add };
            match src {
                // PyTorch lists no index (it has no gradient), and names the overload taking
                // a number ScatterBackward1.
                Arg::T(t) => record_shown(None, op, &[self, index, t], &[&out], &[1], &[], Some(&[0, 2])),
                Arg::S(_) => record_shown(Some("ScatterBackward1"), op, &[self, index], &[&out], &[1], &[], Some(&[0])),
            }
        }
        Ok(out)
    }

    /// `scatter_add` for gradients outside create_graph, whose indices the forward pass
    /// checked: on a GPU they are not checked again (no read back, no wait for the device).
    pub(crate) fn scatter_add_of_checked(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_raw(dim, index, Arg::T(src), true, true)
    }

    fn scatter_raw(&self, dim: i64, index: &Tensor, src: Arg, reduce_add: bool, checked: bool) -> Result<Tensor> {
        // 0-dim tensors scatter as one-element vectors (PyTorch's `ensure_nonempty_dim`).
        let (x, index) = (nonempty(self)?, nonempty(index)?);
        let d = wrap_dim(dim, x.ndim())?;
        if index.ndim() != x.ndim() {
            return Err(Error::Runtime("Index tensor must have the same number of dimensions as self tensor".into()));
        }
        let src_tensor = match src {
            Arg::T(t) => {
                if t.dtype() != self.dtype() {
                    return Err(Error::Runtime("scatter(): Expected self.dtype to be equal to src.dtype".into()));
                }
                let t = nonempty(t)?;
                if t.ndim() != index.ndim() {
                    return Err(Error::Runtime("Index tensor must have the same number of dimensions as src tensor".into()));
                }
                Some(t)
            }
            Arg::S(_) => None,
        };
        let fits_src = |k: usize| src_tensor.as_ref().is_none_or(|t| index.shape()[k] <= t.shape()[k]);
        if (0..x.ndim()).any(|k| !fits_src(k) || (k != d && index.shape()[k] > x.shape()[k])) {
            return Err(Error::Runtime(format!(
                "Expected index {:?} to be no larger than self {:?} apart from dimension {d} and to be no larger size than src {:?}",
                index.shape(),
                x.shape(),
                src_tensor.as_ref().map_or(&[][..], |t| t.shape())
            )));
        }
        let out = x.copy_as(x.dtype())?;
        let self_shape = dims_i64(self.shape());
        if index.numel() == 0 {
            return out.reshape(&self_shape);
        }
        // The source values at the index positions, contiguous in the index's shape.
        let src = match (&src_tensor, src) {
            (Some(t), _) => {
                let mut l = t.layout().clone();
                l.shape = index.shape().to_vec();
                t.with_layout(l).contiguous()?
            }
            (None, Arg::S(s)) => Tensor::full(index.shape(), s, x.dtype())?,
            (None, Arg::T(_)) => unreachable!("tensor sources were kept above"),
        };
        if out.follows_on_device(&index) {
            // The indices stay on the device, which checks their range; an index out of range
            // falls through to the host path below, which words the error.
            let src = src.to_device(out.device())?.contiguous()?;
            if !reduce_add && out.backend().scatter_index(out.array(), d, index.array(), src.array())? {
                return out.reshape(&self_shape);
            }
            if reduce_add {
                let mut walk = out.layout().clone();
                walk.shape = index.shape().to_vec();
                walk.strides[d] = 0;
                let term = crate::backend::IndexTerm {
                    index: index.array(),
                    at: index.layout().clone(),
                    stride: out.strides()[d],
                    size: out.shape()[d],
                };
                let targets = if checked {
                    Some(Tensor::from_array(out.backend().index_offsets_of_checked(&walk, &[term])?))
                } else {
                    out.backend().index_offsets(&walk, &[term], false)?.map(Tensor::from_array)
                };
                if let Some(targets) = targets {
                    // `out` is a fresh contiguous copy: its storage offsets are its positions.
                    out.backend().add_at_positions(out.array(), targets.array(), src.array())?;
                    return out.reshape(&self_shape);
                }
            }
        }
        if out.device() == Device::Cpu && is_index_dtype(index.dtype()) {
            // One pass over the indices where they lie; one out of range falls through to the
            // path below, which words the error.
            let in_range = crate::cpu::index::scatter_index(out.array(), d, index.array(), index.layout(), src.array(), reduce_add)?;
            if in_range {
                return out.reshape(&self_shape);
            }
        }
        let idx = index_values(&index, "scatter")?;
        let size = out.shape()[d];
        let idx = idx.iter().map(|&v| wrap_positive(v, size, d)).collect::<Result<Vec<_>>>()?;
        let offs = Tensor::offsets_along(out.layout(), d, index.shape(), |i| idx[i])?;
        // Later writes win; repeated adds sum in index order.
        let src = src.to_device(out.device())?;
        if reduce_add {
            out.backend().add_at(out.array(), &offs, src.array())?;
        } else {
            out.backend().put(out.array(), &offs, src.array())?;
        }
        out.reshape(&self_shape)
    }

    /// `index_add(dim, index, source, alpha)` out of place.
    pub fn index_add(&self, dim: i64, index: &Tensor, source: &Tensor, alpha: Scalar) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.index_add_raw(dim, index, source, alpha, false)?
        };
        if is_grad_enabled() && self.ndim() > 0 {
            let d = wrap_dim(dim, self.ndim())?;
            record_shown(None, Op::IndexAdd { dim: d, alpha: alpha.to_f64() }, &[self, index, source], &[&out], &[1], &[], Some(&[0, 2]));
        }
        Ok(out)
    }

    /// `index_add` (alpha 1) for gradients outside create_graph, whose indices the forward
    /// pass checked: on a GPU they are not checked again (no read back, no wait for the device).
    pub(crate) fn index_add_of_checked(&self, dim: i64, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        self.index_add_raw(dim, index, source, Scalar::Int(1), true)
    }

    fn index_add_raw(&self, dim: i64, index: &Tensor, source: &Tensor, alpha: Scalar, checked: bool) -> Result<Tensor> {
        let (x, src) = (nonempty(self)?, nonempty(source)?);
        let d = wrap_dim(dim, x.ndim())?;
        if index.ndim() > 1 {
            return Err(Error::Index("index_add_(): Index is supposed to be a vector".into()));
        }
        if d >= src.ndim() {
            return Err(Error::Index(format!(
                "index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {}",
                src.ndim()
            )));
        }
        if index.numel() != src.shape()[d] {
            return Err(Error::Index(format!(
                "index_add_(): Number of indices ({}) should be equal to source.size(dim) ({})",
                index.numel(),
                src.shape()[d]
            )));
        }
        let same_slices = src.ndim() == x.ndim() && (0..x.ndim()).all(|k| k == d || src.shape()[k] == x.shape()[k]);
        if !same_slices {
            return Err(Error::Runtime(format!(
                "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {:?} source.shape = {:?}",
                self.shape(),
                source.shape()
            )));
        }
        if source.dtype() != self.dtype() {
            return Err(Error::Runtime(format!(
                "index_add_(): self ({}) and source ({}) must have the same scalar type",
                self.dtype().title_name(),
                source.dtype().title_name()
            )));
        }
        if !is_index_dtype(index.dtype()) {
            index_values(index, "index_add")?;
        }
        let size = x.shape()[d];
        // alpha 1 (every gradient's) scales nothing: no pass over the source for it.
        let scaled = if matches!(alpha, Scalar::Int(1)) || matches!(alpha, Scalar::Float(a) if a == 1.0) {
            src.clone()
        } else {
            src.binary_scalar(BinaryOp::Mul, alpha, false)?.to_dtype(self.dtype())?
        };
        // Half-precision sums accumulate in float32.
        let work = if matches!(x.dtype(), DType::F16 | DType::BF16) { DType::F32 } else { x.dtype() };
        let out = x.copy_as(work)?;
        let scaled = scaled.to_dtype(work)?.contiguous()?;
        // out[o, idx[j], i] += scaled[o, j, i], in index order (so repeated indices sum the same
        // way every run).
        let outer: usize = x.shape()[..d].iter().product();
        let inner: usize = x.shape()[d + 1..].iter().product();
        if out.follows_on_device(index) {
            // The targets are made, checked and used on the device; an index out of range falls
            // through to the host path below, which words the error.
            let m = index.numel();
            let walk = Layout { shape: vec![outer, m, inner], strides: vec![size * inner, 0, 1], offset: 0 };
            let along = if index.ndim() == 1 { index.strides()[0] } else { 0 };
            let at = Layout { shape: walk.shape.clone(), strides: vec![0, along, 0], offset: index.storage_offset() };
            let term = crate::backend::IndexTerm { index: index.array(), at, stride: inner, size };
            let targets = if checked {
                Some(Tensor::from_array(out.backend().index_offsets_of_checked(&walk, &[term])?))
            } else {
                out.backend().index_offsets(&walk, &[term], false)?.map(Tensor::from_array)
            };
            if let Some(targets) = targets {
                out.backend().add_at_positions(out.array(), targets.array(), scaled.to_device(out.device())?.array())?;
                return out.to_dtype(x.dtype())?.reshape(&dims_i64(self.shape()));
            }
        }
        let idx = index_values(index, "index_add")?;
        let idx = idx.iter().map(|&v| wrap_positive(v, size, d)).collect::<Result<Vec<_>>>()?;
        out.backend().index_add(out.array(), d, &idx, scaled.array())?;
        out.to_dtype(x.dtype())?.reshape(&dims_i64(self.shape()))
    }

    /// `take(index)`: the elements at row-major positions `index` of self (negative positions
    /// count from the end), shaped like `index`.
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        if index.dtype() != DType::I64 {
            return Err(Error::Runtime(format!("take(): Expected a long tensor for index, but got {}", index.dtype().title_name())));
        }
        let n = self.numel();
        if n > 0 && self.follows_on_device(index) {
            // Positions made and checked on the device; one out of range falls through to the
            // host path, which words the error.
            let walk = Layout { shape: index.shape().to_vec(), strides: vec![0; index.ndim()], offset: 0 };
            let term = crate::backend::IndexTerm { index: index.array(), at: index.layout().clone(), stride: 1, size: n };
            if let Some(positions) = index.backend().index_offsets(&walk, &[term], true)?.map(Tensor::from_array) {
                let out = self.take_positions(&positions, index.shape())?;
                if is_grad_enabled() && self.requires_grad() {
                    record(Op::Take { kind: "TakeBackward0", offsets: Positions::Device(positions) }, &[self], &[&out], &[], &[]);
                }
                return Ok(out);
            }
        }
        if n > 0 && self.device().is_cpu() && index.device().is_cpu() {
            // The indices read where they lie and the elements written straight out (the path
            // below made three vectors of positions first); None for a negative index or one
            // out of range, which the path below wraps or words.
            let flat = {
                let _raw = crate::autograd::GradMode::disabled();
                self.contiguous()?.reshape(&[-1])?
            };
            let src_at = Layout { shape: index.shape().to_vec(), strides: vec![0; index.ndim()], offset: flat.storage_offset() };
            if let Some(out) = self.backend().gather_index(flat.array(), &src_at, 0, index.array(), index.layout(), index.shape())? {
                let out = Tensor::from_array(out);
                if is_grad_enabled() && self.requires_grad() {
                    let positions = collect_n(index.numel(), index.to_vec::<i64>()?.into_iter().map(|p| p as usize))?;
                    record(Op::Take { kind: "TakeBackward0", offsets: Positions::Host(positions) }, &[self], &[&out], &[], &[]);
                }
                return Ok(out);
            }
        }
        let wanted = index.to_vec::<i64>()?;
        if n == 0 && !wanted.is_empty() {
            return Err(Error::Index("take(): tried to take from an empty tensor".into()));
        }
        let positions = wanted
            .iter()
            .map(|&i| {
                if i < -(n as i64) || i >= n as i64 {
                    return Err(Error::Index(format!("out of range: tried to access index {i} on a tensor of {n} elements.")));
                }
                Ok(if i < 0 { (i + n as i64) as usize } else { i as usize })
            })
            .collect::<Result<Vec<usize>>>()?;
        let offsets: Vec<usize> = if self.is_contiguous() {
            collect_n(positions.len(), positions.iter().map(|&p| self.storage_offset() + p))?
        } else {
            let all = element_offsets(self.layout())?;
            collect_n(positions.len(), positions.iter().map(|&p| all[p]))?
        };
        let out = self.take_offsets(&offsets, index.shape())?;
        if is_grad_enabled() && self.requires_grad() {
            record(Op::Take { kind: "TakeBackward0", offsets: Positions::Host(positions) }, &[self], &[&out], &[], &[]);
        }
        Ok(out)
    }
}

fn wrap_positive(v: i64, size: usize, dim: usize) -> Result<usize> {
    if v < 0 || v as usize >= size {
        return Err(Error::IndexOutOfRange { index: v, dim, size });
    }
    Ok(v as usize)
}

/// A 0-dim tensor as a one-element vector; other tensors unchanged.
fn nonempty(t: &Tensor) -> Result<Tensor> {
    if t.ndim() == 0 {
        t.reshape(&[1])
    } else {
        Ok(t.clone())
    }
}

fn dims_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&v| v as i64).collect()
}
