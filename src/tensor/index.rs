//! Indexing: Python's `t[...]` and `t[...] = v` (ints, slices, None, Ellipsis, integer and bool
//! tensors), and index_select, gather, scatter, index_add, take, masked ops, nonzero, and the
//! order-based selections sort, topk, kthvalue and median.

use crate::autograd::{is_grad_enabled, record, record_shown, GradMode, Op, Positions};
use crate::cpu::buffer::{collect_n, copied, filled, with_capacity};
use crate::cpu::num::Arith;
use crate::cpu::reduce::{element_offsets, map_lanes};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape::{broadcast_shapes, wrap_dim};
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

use crate::{with_arith_dtype, with_dtype};

/// One entry of a Python index tuple.
#[derive(Clone, Debug)]
pub enum TensorIndex {
    Int(i64),
    Slice(Option<i64>, Option<i64>, i64),
    NewAxis,
    Ellipsis,
    Tensor(Tensor),
}

/// Integer index values as i64, rejecting other dtypes as PyTorch does.
fn index_values(index: &Tensor, what: &str) -> Result<Vec<i64>> {
    match index.dtype() {
        DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U8 => index.to_vec::<i64>(),
        d => Err(Error::Index(format!("{what}(): Expected dtype int64 for index but got {}", d.name()))),
    }
}

/// Integer dtypes an index tensor may have.
fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U8)
}

/// Checks and wraps `v` against a dim of `size`.
fn wrap_index(v: i64, size: usize, dim: usize) -> Result<usize> {
    let n = size as i64;
    if v < -n || v >= n {
        return Err(Error::IndexOutOfRange { index: v, dim, size });
    }
    Ok(if v < 0 { (v + n) as usize } else { v as usize })
}

/// `out[i] = src[offsets[i]]`.
fn take<T: Element>(src: &[T], offsets: &[usize]) -> Result<Vec<T>> {
    collect_n(offsets.len(), offsets.iter().map(|&o| src[o]))
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

    /// The adjoint of `take_offsets`, without recording: a zero tensor of `shape` with each
    /// element `k` of `self` added at offset `offsets[k]`, in order (repeated offsets sum the
    /// same way every run). One pass, for gradients of gathers when no graph of the backward
    /// is being built. Half precision is left to callers (it would need f32 accumulation).
    pub(crate) fn put_add_offsets(&self, offsets: &[usize], shape: &[usize]) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        debug_assert!(offsets.len() == self.numel() && offsets.iter().all(|&o| o < n));
        let src = self.contiguous()?;
        if !self.device().is_cpu() {
            let out = Tensor::zeros_on(shape, self.dtype(), self.device())?;
            let from: Vec<usize> = (src.storage_offset()..src.storage_offset() + offsets.len()).collect();
            crate::wgpu::add_at(&out, offsets, &src, &from)?;
            return Ok(out);
        }
        with_arith_dtype!(self.dtype(), T => src.with_slice::<T, _>("index_add", |s, l| {
            let mut out = filled(n, T::zero())?;
            for (&o, &v) in offsets.iter().zip(&s[l.offset..l.offset + offsets.len()]) {
                out[o] = out[o].add(v);
            }
            Tensor::from_vec(out, shape)
        })?)
    }

    /// `self` gathered along `d` by an integer `index` on the same GPU, for an output of `shape`:
    /// `index_at` views the index at that shape. The indices stay on the device (bounds are
    /// checked there: one flag word comes back); None when the gather must run on the host
    /// instead (a CPU index, or an index out of range, whose error the host path words).
    fn gather_on_device(&self, d: usize, index: &Tensor, index_at: Layout, shape: &[usize]) -> Result<Option<Tensor>> {
        if self.device().is_cpu() || index.device() != self.device() || !is_index_dtype(index.dtype()) {
            return Ok(None);
        }
        if shape.contains(&0) && index.numel() > 0 {
            // Nothing to gather, but the CPU still checks the indices: let the host path do so.
            return Ok(None);
        }
        let mut src_at = self.layout().clone();
        src_at.shape = shape.to_vec();
        src_at.strides[d] = 0;
        crate::wgpu::gather_index(self, &src_at, d, index, &index_at, shape)
    }

    /// Whether `index` is an integer tensor on self's GPU, where an op can follow it without
    /// reading it back.
    fn follows_on_device(&self, index: &Tensor) -> bool {
        !self.device().is_cpu() && index.device() == self.device() && is_index_dtype(index.dtype())
    }

    /// A contiguous tensor of `shape` holding self's elements (on a GPU) at the row-major int64
    /// `positions` (on the device, in range): read from self's storage, or from a contiguous
    /// copy of a strided self. Records nothing.
    pub(crate) fn take_positions(&self, positions: &Tensor, shape: &[usize]) -> Result<Tensor> {
        let _raw = GradMode::disabled();
        let src = self.contiguous()?;
        let at = src.storage_offset();
        let offsets = if at == 0 { positions.clone() } else { positions.binary_scalar(BinaryOp::Add, Scalar::Int(at as i64), false)? };
        crate::wgpu::take_at(&src, &offsets, shape)
    }

    /// A contiguous tensor of `shape` gathering `self`'s elements at storage `offsets`.
    fn take_offsets(&self, offsets: &[usize], shape: &[usize]) -> Result<Tensor> {
        if !self.device().is_cpu() {
            return crate::wgpu::take(self, offsets, shape);
        }
        with_dtype!(self.dtype(), T => self.with_slice::<T, _>("index", |s, _| Tensor::from_vec(take(s, offsets)?, shape))?)
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
        let mut out_shape = x.shape().to_vec();
        out_shape[d] = index.numel();
        // The index vector walks `d`; every other dim repeats it.
        let mut index_at = Layout::contiguous(out_shape.clone())?;
        index_at.strides = vec![0; out_shape.len()];
        index_at.strides[d] = if index.ndim() == 1 { index.strides()[0] } else { 0 };
        index_at.offset = index.storage_offset();
        if let Some(out) = x.gather_on_device(d, index, index_at, &out_shape)? {
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
        if let Some(out) = self.gather_on_device(d, index, index.layout().clone(), index.shape())? {
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
            if !reduce_add && crate::wgpu::scatter_index(&out, d, &index, &src)? {
                return out.reshape(&self_shape);
            }
            if reduce_add {
                let mut walk = out.layout().clone();
                walk.shape = index.shape().to_vec();
                walk.strides[d] = 0;
                let term =
                    crate::wgpu::IndexTerm { index: &index, at: index.layout().clone(), stride: out.strides()[d], size: out.shape()[d] };
                let targets = if checked {
                    Some(crate::wgpu::index_offsets_of_checked(&walk, &[term])?)
                } else {
                    crate::wgpu::index_offsets(&walk, &[term], false)?
                };
                if let Some(targets) = targets {
                    // `out` is a fresh contiguous copy: its storage offsets are its positions.
                    crate::wgpu::add_at_positions(&out, &targets, &src)?;
                    return out.reshape(&self_shape);
                }
            }
        }
        let idx = index_values(&index, "scatter")?;
        let size = out.shape()[d];
        let idx = idx.iter().map(|&v| wrap_positive(v, size, d)).collect::<Result<Vec<_>>>()?;
        let offs = Tensor::offsets_along(out.layout(), d, index.shape(), |i| idx[i])?;
        let dt = out.dtype();
        if !out.device().is_cpu() {
            // `out` is a fresh contiguous copy: its storage offsets are its positions.
            let src = src.to_device(out.device())?;
            if reduce_add {
                let from: Vec<usize> = (src.storage_offset()..src.storage_offset() + offs.len()).collect();
                crate::wgpu::add_at(&out, &offs, &src, &from)?;
            } else {
                crate::wgpu::put(&out, &offs, &src)?;
            }
            return out.reshape(&self_shape);
        }
        if reduce_add && !dt.is_floating_point() {
            // Integer adds must be exact: do them in i64.
            let exact = out.to_dtype(DType::I64)?;
            let vals = src.to_vec::<i64>()?;
            exact.with_slice_mut::<i64, _>("scatter", |o, _| {
                for (k, &off) in offs.iter().enumerate() {
                    o[off] = o[off].wrapping_add(vals[k]);
                }
            })?;
            return exact.to_dtype(dt)?.reshape(&self_shape);
        }
        with_dtype!(dt, T => {
            let vals = src.to_vec::<T>()?;
            out.with_slice_mut::<T, _>("scatter", |o, _| {
                for (k, &off) in offs.iter().enumerate() {
                    o[off] = if reduce_add { T::from_f64(o[off].to_f64() + vals[k].to_f64()) } else { vals[k] };
                }
            })?;
        });
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
                crate::tensor::arith::title_name(self.dtype()),
                crate::tensor::arith::title_name(source.dtype())
            )));
        }
        if !is_index_dtype(index.dtype()) {
            index_values(index, "index_add")?;
        }
        let size = x.shape()[d];
        let scaled = src.binary_scalar(BinaryOp::Mul, alpha, false)?.to_dtype(self.dtype())?;
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
            let term = crate::wgpu::IndexTerm { index, at, stride: inner, size };
            let targets = if checked {
                Some(crate::wgpu::index_offsets_of_checked(&walk, &[term])?)
            } else {
                crate::wgpu::index_offsets(&walk, &[term], false)?
            };
            if let Some(targets) = targets {
                crate::wgpu::add_at_positions(&out, &targets, &scaled.to_device(out.device())?)?;
                return out.to_dtype(x.dtype())?.reshape(&dims_i64(self.shape()));
            }
        }
        let idx = index_values(index, "index_add")?;
        let idx = idx.iter().map(|&v| wrap_positive(v, size, d)).collect::<Result<Vec<_>>>()?;
        if !out.device().is_cpu() {
            let n = outer * idx.len() * inner;
            let (mut targets, mut from) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for o in 0..outer {
                for (j, &i) in idx.iter().enumerate() {
                    for k in 0..inner {
                        targets.push((o * size + i) * inner + k);
                        from.push(scaled.storage_offset() + (o * idx.len() + j) * inner + k);
                    }
                }
            }
            crate::wgpu::add_at(&out, &targets, &scaled, &from)?;
            return out.to_dtype(x.dtype())?.reshape(&dims_i64(self.shape()));
        }
        with_arith_dtype!(work, T => {
            scaled.with_slice::<T, _>("index_add", |src, sl| {
                let src = &src[sl.offset..];
                out.with_slice_mut::<T, _>("index_add", |dst, _| {
                    for o in 0..outer {
                        for (j, &i) in idx.iter().enumerate() {
                            let from = &src[(o * idx.len() + j) * inner..][..inner];
                            let to = &mut dst[(o * size + i) * inner..][..inner];
                            for (t, &f) in to.iter_mut().zip(from) {
                                *t = t.add(f);
                            }
                        }
                    }
                })
            })??;
        });
        out.to_dtype(x.dtype())?.reshape(&dims_i64(self.shape()))
    }

    /// `masked_fill(mask, value)`: mask and self broadcast together, so the result may be
    /// larger than self.
    pub fn masked_fill(&self, mask: &Tensor, value: Arg) -> Result<Tensor> {
        check_mask_dtype(mask)?;
        // PyTorch broadcasts the mask against self, naming the mask first on a mismatch.
        broadcast_shapes(mask.shape(), self.shape())?;
        let v = match value {
            Arg::T(t) => {
                if t.ndim() != 0 {
                    return Err(Error::Runtime(format!(
                        "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                        t.ndim()
                    )));
                }
                t.to_dtype(self.dtype())?
            }
            Arg::S(s) => Tensor::scalar_tensor(s.checked_for(self.dtype(), crate::tensor::scalar_check::Spelling::Cpp)?, self.dtype())?,
        };
        let filled = Tensor::where_(mask, Arg::T(&v), Arg::T(self))?;
        // PyTorch's overloads: a scalar value, or a 0-dim tensor one (which gets a gradient).
        Ok(match value {
            Arg::T(t) => crate::autograd::composite("MaskedFillBackward1", &[self, t], vec![filled]),
            Arg::S(_) => crate::autograd::composite("MaskedFillBackward0", &[self], vec![filled]),
        }
        .pop()
        .expect("one output in, one out"))
    }

    /// `masked_fill_(mask, value)`: the mask must broadcast to self's shape.
    pub fn masked_fill_(&self, mask: &Tensor, value: Arg) -> Result<()> {
        check_mask_dtype(mask)?;
        // In place, self is named first on a mismatch; a mask that would grow self fails in copy_.
        broadcast_shapes(self.shape(), mask.shape())?;
        let filled = self.masked_fill(mask, value)?;
        self.assign_overlapping_(&filled)
    }

    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        let on_device = {
            let _raw = GradMode::disabled();
            self.masked_select_on_device(mask)?
        };
        if let Some((out, positions)) = on_device {
            if is_grad_enabled() && self.requires_grad() {
                record(Op::Take { kind: "MaskedSelectBackward0", offsets: Positions::Device(positions) }, &[self], &[&out], &[], &[]);
            }
            return Ok(out);
        }
        let (out, offsets) = {
            let _raw = GradMode::disabled();
            self.masked_select_raw(mask)?
        };
        if is_grad_enabled() && self.requires_grad() {
            record(
                Op::Take { kind: "MaskedSelectBackward0", offsets: Positions::Host(self.positions_of(&offsets)?) },
                &[self],
                &[&out],
                &[],
                &[],
            );
        }
        Ok(out)
    }

    /// masked_select on the GPU where the mask broadcasts to self's shape: the selected
    /// positions are the mask's `nonzero`, so only their count comes back. The gathered values
    /// and the positions, which stay on the device; None where the host path applies.
    fn masked_select_on_device(&self, mask: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
        if self.device().is_cpu() || mask.device() != self.device() || mask.dtype() != DType::Bool || self.ndim() == 0 {
            return Ok(None);
        }
        if broadcast_shapes(self.shape(), mask.shape())? != self.shape() {
            return Ok(None);
        }
        let n = self.numel() as i64;
        let full = mask.with_layout(mask.layout().broadcast_to(self.shape())).contiguous()?.reshape(&[n])?;
        let positions = full.nonzero()?.reshape(&[-1])?;
        let out = self.take_positions(&positions, &[positions.numel()])?;
        Ok(Some((out, positions)))
    }

    fn masked_select_raw(&self, mask: &Tensor) -> Result<(Tensor, Vec<usize>)> {
        if mask.dtype() != DType::Bool {
            return Err(Error::Runtime("masked_select: expected BoolTensor for mask".into()));
        }
        let shape = broadcast_shapes(self.shape(), mask.shape())?;
        let x = self.with_layout(self.layout().broadcast_to(&shape));
        let m = mask.with_layout(mask.layout().broadcast_to(&shape)).to_vec::<bool>()?;
        let (mut offs, mut keep) = (element_offsets(x.layout())?, m.iter());
        offs.retain(|_| *keep.next().expect("a mask value per element"));
        Ok((x.take_offsets(&offs, &[offs.len()])?, offs))
    }

    /// Indices of non-zero elements, shape `[count, ndim]`.
    pub fn nonzero(&self) -> Result<Tensor> {
        if !self.device().is_cpu() && self.ndim() > 0 && self.numel() > 0 {
            let _raw = GradMode::disabled();
            return self.nonzero_on_device();
        }
        let flags = self.to_vec::<bool>()?;
        let shape = self.shape();
        let nd = shape.len();
        let mut out = Vec::new();
        let mut count = 0;
        for (flat, &f) in flags.iter().enumerate() {
            if f {
                let mut rem = flat;
                let start = out.len();
                out.resize(start + nd, 0i64);
                for d in (0..nd).rev() {
                    out[start + d] = (rem % shape[d]) as i64;
                    rem /= shape[d];
                }
                count += 1;
            }
        }
        Tensor::from_vec(out, &[count, nd])?.to_device(self.device())
    }

    /// `nonzero` on the GPU: the element's ranks among the non-zero ones are a running count
    /// on the device, and every element's coordinates are written to its rank's row (the zero
    /// ones to a spare row, dropped). Only the count comes back: it is the result's shape.
    fn nonzero_on_device(&self) -> Result<Tensor> {
        let (shape, n, nd) = (self.shape().to_vec(), self.numel(), self.ndim());
        let dev = self.device();
        let flags = self.to_dtype(DType::Bool)?.reshape(&[n as i64])?;
        let ranks = flags.to_dtype(DType::I64)?.cumulative(0, false)?;
        let count = ranks.select(0, n as i64 - 1)?.item()?.to_i64() as usize;
        // Coordinates of every element, [shape.., nd], from one small range per dim.
        let coords = Tensor::zeros_on(&[shape.clone(), vec![nd]].concat(), DType::I64, dev)?;
        let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        for (d, &size) in shape.iter().enumerate() {
            let mut along = vec![1i64; nd];
            along[d] = size as i64;
            let range = Tensor::from_vec((0..size as i64).collect::<Vec<_>>(), &[size])?.to_device(dev)?;
            coords.select(nd as i64, d as i64)?.copy_(&range.reshape(&along)?.expand(&sizes)?)?;
        }
        let rows =
            Tensor::where_(&flags, Arg::T(&ranks.binary_scalar(BinaryOp::Sub, Scalar::Int(1), false)?), Arg::S(Scalar::Int(count as i64)))?;
        // Element (row, d) of the result: position row * nd + d, in range by construction.
        let dims = Tensor::from_vec((0..nd as i64).collect::<Vec<_>>(), &[1, nd])?.to_device(dev)?;
        let targets = rows.binary_scalar(BinaryOp::Mul, Scalar::Int(nd as i64), false)?.unsqueeze(1)?.binary(BinaryOp::Add, &dims)?;
        let out = Tensor::zeros_on(&[count + 1, nd], DType::I64, dev)?;
        crate::wgpu::put_at_positions(&out, &targets, &coords.reshape(&[n as i64, nd as i64])?.contiguous()?)?;
        out.narrow(0, 0, count as i64)?.contiguous()
    }

    /// Stable sort along `dim`; NaNs sort as the largest values. Returns (values, int64 indices).
    pub fn sort(&self, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
        crate::autograd::named_pair("SortBackward0", &[self], || {
            let x = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
            let d = wrap_dim(dim, x.ndim())?;
            let len = x.shape()[d];
            let work = if x.dtype().is_half() { x.to_dtype(DType::F32)? } else { x.clone() };
            if !work.device().is_cpu() {
                // Integer and bool keys order the same in int64.
                let work = if work.dtype().is_floating_point() { work } else { work.to_dtype(DType::I64)? };
                let last = x.ndim() as i64 - 1;
                let indices = crate::wgpu::sort(&work, d, descending)?.movedim(last, d as i64)?.contiguous()?;
                let values = x.gather(d as i64, &indices)?;
                if self.ndim() == 0 {
                    return Ok((values.reshape(&[])?, indices.reshape(&[])?));
                }
                return Ok((values, indices));
            }
            let order: Vec<i64> = with_arith_dtype!(work.dtype(), T => work.with_slice::<T, _>("sort", |s, l| {
                map_lanes(s, l, d, len, |lane: &[T], o: &mut [i64]| {
                    let mut idx: Vec<usize> = collect_n(lane.len(), 0..lane.len())?;
                    let key = |a: T, b: T| {
                        match (a.is_nan(), b.is_nan()) {
                            (true, true) => std::cmp::Ordering::Equal,
                            (true, false) => std::cmp::Ordering::Greater,
                            (false, true) => std::cmp::Ordering::Less,
                            _ => a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal),
                        }
                    };
                    if descending {
                        idx.sort_by(|&a, &b| key(lane[b], lane[a]));
                    } else {
                        idx.sort_by(|&a, &b| key(lane[a], lane[b]));
                    }
                    o.iter_mut().zip(idx).for_each(|(o, i)| *o = i as i64);
                    Ok(())
                })
            })??);
            let mut moved = x.shape().to_vec();
            let n = moved.remove(d);
            moved.push(n);
            let last = moved.len() as i64 - 1;
            let indices = Tensor::from_vec(order, &moved)?.movedim(last, d as i64)?.contiguous()?;
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
            if t.device().is_cpu() {
                t.rank_indices(d, rank, &shape)?
            } else {
                t.rank_indices_by_sort(d, rank)?.reshape(&shape.iter().map(|&v| v as i64).collect::<Vec<_>>())?
            }
        };
        let values = t.gather(d as i64, &indices.reshape(&kept)?)?;
        Ok((values.reshape(&shape.iter().map(|&v| v as i64).collect::<Vec<_>>())?, indices))
    }

    /// `rank_indices` on a GPU, from its sort (which orders NaN and ties the same way), with
    /// `d` kept: the median's position in a sorted lane is that of its first NaN, `n - count`,
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

    /// Per lane along `d`, the index of the element of 0-based rank `rank`, or for None of the
    /// lower middle element (or of the first NaN in a lane that has one). NaN ranks above every
    /// number. Ties resolve as PyTorch's CPU kernels do: the median is the one a stable sort
    /// puts in the middle; the k-th value is the one `quick_select` leaves at rank k.
    fn rank_indices(&self, d: usize, rank: Option<usize>, shape: &[usize]) -> Result<Tensor> {
        let x = if self.dtype().is_half() { self.to_dtype(DType::F32)? } else { self.clone() };
        let len = x.shape()[d];
        let idx: Vec<i64> = with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>("kthvalue", |s, l| {
            map_lanes(s, l, d, 1, |lane: &[T], o: &mut [i64]| {
                let k = match (rank, lane.iter().position(|v| v.is_nan())) {
                    (Some(k), _) => {
                        let mut values = copied(lane)?;
                        let mut positions: Vec<i64> = collect_n(lane.len(), 0..lane.len() as i64)?;
                        quick_select(&mut values, &mut positions, k);
                        o[0] = positions[k];
                        return Ok(());
                    }
                    (None, Some(first_nan)) => {
                        o[0] = first_nan as i64;
                        return Ok(());
                    }
                    (None, None) => (len - 1) / 2,
                };
                let order = |a: &usize, b: &usize| lane[*a].partial_cmp(&lane[*b]).unwrap_or(std::cmp::Ordering::Equal).then(a.cmp(b));
                let mut positions: Vec<usize> = collect_n(lane.len(), 0..lane.len())?;
                positions.select_nth_unstable_by(k, order);
                o[0] = positions[k] as i64;
                Ok(())
            })
        })??);
        Tensor::from_vec(idx, shape)
    }

    /// `take(index)`: the elements at row-major positions `index` of self (negative positions
    /// count from the end), shaped like `index`.
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        if index.dtype() != DType::I64 {
            return Err(Error::Runtime(format!(
                "take(): Expected a long tensor for index, but got {}",
                crate::tensor::arith::title_name(index.dtype())
            )));
        }
        let n = self.numel();
        if n > 0 && self.follows_on_device(index) {
            // Positions made and checked on the device; one out of range falls through to the
            // host path, which words the error.
            let walk = Layout { shape: index.shape().to_vec(), strides: vec![0; index.ndim()], offset: 0 };
            let term = crate::wgpu::IndexTerm { index, at: index.layout().clone(), stride: 1, size: n };
            if let Some(positions) = crate::wgpu::index_offsets(&walk, &[term], true)? {
                let out = self.take_positions(&positions, index.shape())?;
                if is_grad_enabled() && self.requires_grad() {
                    record(Op::Take { kind: "TakeBackward0", offsets: Positions::Device(positions) }, &[self], &[&out], &[], &[]);
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

    // ----- Python indexing ---------------------------------------------------------------

    /// Applies the basic parts of an index (ints, slices, None, Ellipsis) as a view, returning it
    /// with the remaining tensor indices and the view dims they apply to.
    fn basic_index(&self, indices: &[TensorIndex]) -> Result<(Tensor, Vec<(usize, Tensor)>)> {
        // A uint8 index tensor is a mask, as a bool one (PyTorch's deprecated spelling).
        let indices: Vec<TensorIndex> = indices
            .iter()
            .map(|i| match i {
                TensorIndex::Tensor(t) if t.dtype() == DType::U8 => Ok(TensorIndex::Tensor(t.to_dtype(DType::Bool)?)),
                i => Ok(i.clone()),
            })
            .collect::<Result<_>>()?;
        let consumed: usize = indices
            .iter()
            .map(|i| match i {
                TensorIndex::Int(_) | TensorIndex::Slice(..) => 1,
                TensorIndex::Tensor(t) if t.dtype() == DType::Bool => t.ndim(),
                TensorIndex::Tensor(_) => 1,
                _ => 0,
            })
            .sum();
        if indices.iter().filter(|i| matches!(i, TensorIndex::Ellipsis)).count() > 1 {
            return Err(Error::Index("an index can only have a single ellipsis ('...')".into()));
        }
        if consumed > self.ndim() {
            return Err(Error::Index(format!("too many indices for tensor of dimension {}", self.ndim())));
        }
        let mut view = self.clone();
        let mut dim = 0usize;
        let mut advanced = Vec::new();
        for idx in &indices {
            match idx {
                TensorIndex::Int(i) => {
                    let size = view.shape()[dim];
                    let w = wrap_index(*i, size, dim)
                        .map_err(|_| Error::Index(format!("index {i} is out of bounds for dimension {dim} with size {size}")))?;
                    view = view.select(dim as i64, w as i64)?;
                }
                TensorIndex::Slice(s, e, st) => {
                    // A slice over the whole dim, among other indices, is no op (PyTorch
                    // records none either; a lone `x[:]` is a slice).
                    let size = view.shape()[dim] as i64;
                    let clamp = |v: i64| if v < 0 { (v + size).max(0) } else { v.min(size) };
                    let whole = indices.len() > 1 && *st == 1 && s.map_or(0, clamp) == 0 && e.map_or(size, clamp) == size;
                    if !whole {
                        view = view.slice(dim, *s, *e, *st)?;
                    }
                    dim += 1;
                }
                TensorIndex::NewAxis => {
                    view = view.unsqueeze(dim as i64)?;
                    dim += 1;
                }
                TensorIndex::Ellipsis => dim += self.ndim() - consumed,
                TensorIndex::Tensor(t) if t.dtype() == DType::Bool => {
                    // A mask indexes as many dims as it has, through its non-zero positions.
                    for k in 0..t.ndim() {
                        if t.shape()[k] != view.shape()[dim + k] {
                            return Err(Error::Index(format!(
                                "The shape of the mask {:?} at index {k} does not match the shape of the indexed tensor {:?} at index {}",
                                t.shape(),
                                view.shape(),
                                dim + k
                            )));
                        }
                    }
                    if t.ndim() == 0 {
                        // x[True] adds a dim of size 1, x[False] one of size 0.
                        view = view.unsqueeze(dim as i64)?;
                        let keep = Tensor::from_vec(if t.item()?.to_i64() != 0 { vec![0i64] } else { vec![] }, &[])?;
                        let n = keep.numel();
                        advanced.push((dim, keep.reshape(&[n as i64])?));
                        dim += 1;
                        continue;
                    }
                    let nz = t.nonzero()?;
                    for k in 0..t.ndim() {
                        advanced.push((dim + k, nz.select(1, k as i64)?));
                    }
                    dim += t.ndim();
                }
                TensorIndex::Tensor(t) => {
                    if t.dtype().is_floating_point() {
                        return Err(Error::Index("tensors used as indices must be long, int, byte or bool tensors".into()));
                    }
                    advanced.push((dim, t.clone()));
                    dim += 1;
                }
            }
        }
        Ok((view, advanced))
    }

    /// Storage offsets selected by advanced indices on `view`, with the result's shape.
    /// An out-of-range index names, as PyTorch does, the position of its index tensor among the
    /// advanced indices, or the dim of `view` it indexes when `report_view_dim` is set.
    fn advanced_offsets(view: &Tensor, advanced: &[(usize, Tensor)], report_view_dim: bool) -> Result<(Vec<usize>, Vec<usize>)> {
        let mut bshape: Vec<usize> = vec![];
        for (_, t) in advanced {
            bshape = broadcast_shapes(&bshape, t.shape())?;
        }
        let adv_dims: Vec<usize> = advanced.iter().map(|(d, _)| *d).collect();
        // The offsets (one usize per element of the result) must be allocatable.
        let rest_shape: Vec<usize> = (0..view.ndim()).filter(|d| !adv_dims.contains(d)).map(|d| view.shape()[d]).collect();
        crate::tensor::check_alloc(&[bshape.clone(), rest_shape].concat(), DType::I64)?;
        let nb: usize = bshape.iter().product();
        // Offset contributed by the indexed dims for each broadcast position.
        let mut adv_off = filled(nb, view.storage_offset())?;
        for (k, (d, t)) in advanced.iter().enumerate() {
            let vals = t.with_layout(t.layout().broadcast_to(&bshape)).to_vec::<i64>()?;
            let (size, stride) = (view.shape()[*d], view.strides()[*d]);
            let reported = if report_view_dim { *d } else { k };
            for (o, &v) in adv_off.iter_mut().zip(&vals) {
                *o += wrap_index(v, size, reported)? * stride;
            }
        }
        let rest: Vec<usize> = (0..view.ndim()).filter(|d| !adv_dims.contains(d)).collect();
        let rest_layout = Layout {
            shape: rest.iter().map(|&d| view.shape()[d]).collect(),
            strides: rest.iter().map(|&d| view.strides()[d]).collect(),
            offset: 0,
        };
        let rest_off = element_offsets(&rest_layout)?;
        // Adjacent indexed dims keep their place; scattered ones go first (NumPy's rule).
        let adjacent = adv_dims.windows(2).all(|w| w[1] == w[0] + 1);
        let pos = if adjacent { adv_dims[0] } else { 0 };
        let before: Vec<usize> = rest.iter().filter(|&&d| d < pos).map(|&d| view.shape()[d]).collect();
        let after: Vec<usize> = rest.iter().filter(|&&d| d >= pos).map(|&d| view.shape()[d]).collect();
        let (nbefore, nafter) = (before.iter().product::<usize>(), after.iter().product::<usize>());
        let mut offs = with_capacity(nb * rest_off.len())?;
        for i in 0..nbefore {
            for &a in &adv_off {
                for j in 0..nafter {
                    offs.push(a + rest_off[i * nafter + j]);
                }
            }
        }
        let shape: Vec<usize> = before.into_iter().chain(bshape).chain(after).collect();
        Ok((offs, shape))
    }

    /// `advanced_offsets` on the GPU, for integer indices on view's device: the elements'
    /// offsets from `origin` in view's storage (or, with `dense`, their row-major positions in
    /// view), as int64 on the device, with the result's shape. The indices never leave the
    /// device; None when one is out of range (the host path words the error) or they are not
    /// all there.
    fn advanced_on_device(view: &Tensor, advanced: &[(usize, Tensor)], origin: usize, dense: bool) -> Result<Option<(Tensor, Vec<usize>)>> {
        if !advanced.iter().all(|(_, t)| view.follows_on_device(t)) {
            return Ok(None);
        }
        let mut bshape: Vec<usize> = vec![];
        for (_, t) in advanced {
            bshape = broadcast_shapes(&bshape, t.shape())?;
        }
        let adv_dims: Vec<usize> = advanced.iter().map(|(d, _)| *d).collect();
        let strides = if dense { Layout::contiguous(view.shape().to_vec())?.strides } else { view.strides().to_vec() };
        let rest: Vec<usize> = (0..view.ndim()).filter(|d| !adv_dims.contains(d)).collect();
        // Adjacent indexed dims keep their place; scattered ones go first (NumPy's rule).
        let adjacent = adv_dims.windows(2).all(|w| w[1] == w[0] + 1);
        let pos = if adjacent { adv_dims[0] } else { 0 };
        let (before, after): (Vec<usize>, Vec<usize>) = rest.iter().partition(|&&d| d < pos);
        let shape: Vec<usize> =
            before.iter().map(|&d| view.shape()[d]).chain(bshape.iter().copied()).chain(after.iter().map(|&d| view.shape()[d])).collect();
        crate::tensor::check_alloc(&shape, DType::I64)?;
        // The walk steps through the dims not indexed; the indexed ones come from the indices.
        let zeros = |n: usize| vec![0usize; n];
        let walk_strides =
            [before.iter().map(|&d| strides[d]).collect(), zeros(bshape.len()), after.iter().map(|&d| strides[d]).collect()].concat();
        let base = if dense { 0 } else { view.storage_offset() - origin };
        let walk = Layout { shape: shape.clone(), strides: walk_strides, offset: base };
        let terms: Vec<crate::wgpu::IndexTerm<'_>> = advanced
            .iter()
            .map(|(d, t)| {
                let b = t.layout().broadcast_to(&bshape);
                let at = Layout {
                    shape: shape.clone(),
                    strides: [zeros(before.len()), b.strides, zeros(after.len())].concat(),
                    offset: b.offset,
                };
                crate::wgpu::IndexTerm { index: t, at, stride: strides[*d], size: view.shape()[*d] }
            })
            .collect();
        Ok(crate::wgpu::index_offsets(&walk, &terms, true)?.map(|offsets| (offsets, shape)))
    }

    /// `self[indices]`.
    pub fn index(&self, indices: &[TensorIndex]) -> Result<Tensor> {
        let (view, advanced) = self.basic_index(indices)?;
        if advanced.is_empty() {
            if view.identity() == self.identity() {
                // Nothing indexed (`x[...]`, `x[:, :]`): a new view of all of self.
                return self.view_op(self.layout().clone(), super::view::ViewKind::Same("AliasBackward0"));
            }
            return Ok(view);
        }
        if let Some((positions, shape)) = Tensor::advanced_on_device(&view, &advanced, 0, true)? {
            let out = view.take_positions(&positions, &shape)?;
            if is_grad_enabled() && view.requires_grad() {
                record(Op::Take { kind: "IndexBackward0", offsets: Positions::Device(positions) }, &[&view], &[&out], &[], &[]);
            }
            return Ok(out);
        }
        let (offs, shape) = Tensor::advanced_offsets(&view, &advanced, false)?;
        let out = view.take_offsets(&offs, &shape)?;
        if is_grad_enabled() && view.requires_grad() {
            record(Op::Take { kind: "IndexBackward0", offsets: Positions::Host(view.positions_of(&offs)?) }, &[&view], &[&out], &[], &[]);
        }
        Ok(out)
    }

    /// `self[indices] = value` in place.
    pub fn index_put(&self, indices: &[TensorIndex], value: Arg) -> Result<()> {
        if let Arg::S(s) = value {
            s.checked_for(self.dtype(), crate::tensor::scalar_check::Spelling::Cpp)?;
        }
        let (view, advanced) = self.basic_index(indices)?;
        // PyTorch fills a scalar through one index tensor along the dim it indexes, and names
        // that dim when an index is out of range.
        let report_view_dim = matches!(value, Arg::S(_)) && advanced.len() == 1;
        let number = matches!(value, Arg::S(_));
        if advanced.is_empty() {
            // A number is filled in (the node lists no value), a tensor copied.
            return match value {
                Arg::S(s) => view.fill_(Arg::S(s)),
                Arg::T(t) => view.copy_(t),
            };
        }
        let value = match value {
            Arg::T(t) => t.clone(),
            Arg::S(s) => Tensor::scalar_tensor(s, self.dtype())?,
        };
        // Where the values go: positions made on the device (offsets from self's start, which
        // for a contiguous self are its row-major positions), or storage offsets on the host.
        enum Targets {
            Device(Tensor),
            Host(Vec<usize>),
        }
        let on_device =
            if self.is_contiguous() { Tensor::advanced_on_device(&view, &advanced, self.storage_offset(), false)? } else { None };
        let (region, shape) = match on_device {
            Some((positions, shape)) => (Targets::Device(positions), shape),
            None => {
                let (offs, shape) = Tensor::advanced_offsets(&view, &advanced, report_view_dim)?;
                (Targets::Host(offs), shape)
            }
        };
        let b = broadcast_shapes(&shape, value.shape())?;
        if b != shape {
            return Err(shape_mismatch(value.shape(), &shape));
        }
        let tracked = view.check_inplace(&value)?;
        {
            let _raw = GradMode::disabled();
            let v = value.to_dtype(self.dtype())?;
            let v = v.with_layout(v.layout().broadcast_to(&shape));
            match &region {
                Targets::Device(positions) => crate::wgpu::put_at_positions(self, positions, &v.contiguous()?.to_device(self.device())?)?,
                // A number (or CPU value) is broadcast on the host and uploaded.
                Targets::Host(offs) if !self.device().is_cpu() => crate::wgpu::put(self, offs, &v.contiguous()?.to_device(self.device())?)?,
                Targets::Host(offs) => with_dtype!(self.dtype(), T => {
                    let vals = v.to_vec::<T>()?;
                    self.with_slice_mut::<T, _>("index_put_", |o, _| {
                        for (k, &off) in offs.iter().enumerate() {
                            o[off] = vals[k];
                        }
                    })?;
                }),
            }
        }
        if tracked {
            let written = if number { crate::autograd::Written::Number } else { crate::autograd::Written::Copy };
            match &region {
                Targets::Device(positions) => view.rebase_history_on_device(self.storage_offset(), positions, &shape, &value, written)?,
                Targets::Host(offs) => view.rebase_history(Some((offs, &shape)), &value, written)?,
            }
        }
        Ok(())
    }
}

/// index_put's error for a value that does not broadcast to the indexed shape.
fn shape_mismatch(value: &[usize], indexed: &[usize]) -> Error {
    Error::Runtime(format!("shape mismatch: value tensor of shape {value:?} cannot be broadcast to indexing result of shape {indexed:?}"))
}

fn check_mask_dtype(mask: &Tensor) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            crate::tensor::arith::cpp_name(mask.dtype())
        )));
    }
    Ok(())
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

/// Moves the element of 0-based rank `k` of `values` (NaN above every number) to position `k`,
/// carrying `positions` along: Hoare partitioning around a median-of-three pivot, narrowed to
/// the side holding `k`. Among ties, the one it leaves at `k` is the one PyTorch's CPU
/// kthvalue reports.
fn quick_select<T: Arith + PartialOrd>(values: &mut [T], positions: &mut [i64], k: usize) {
    let above = |a: T, b: T| (a.is_nan() && !b.is_nan()) || a > b;
    let mut swap = |v: &mut [T], i: usize, j: usize| {
        v.swap(i, j);
        positions.swap(i, j);
    };
    let (mut lo, mut hi) = (0usize, values.len().saturating_sub(1));
    loop {
        if hi <= lo {
            return;
        }
        if hi == lo + 1 {
            if above(values[lo], values[hi]) {
                swap(values, lo, hi);
            }
            return;
        }
        // The median of values[lo], values[mid], values[hi] goes to lo, the smaller one to
        // lo + 1 and the larger to hi, where they stop the scans below.
        let mid = lo + (hi - lo) / 2;
        swap(values, mid, lo + 1);
        if above(values[lo + 1], values[hi]) {
            swap(values, lo + 1, hi);
        }
        if above(values[lo], values[hi]) {
            swap(values, lo, hi);
        }
        if above(values[lo + 1], values[lo]) {
            swap(values, lo + 1, lo);
        }
        let pivot = values[lo];
        let (mut i, mut j) = (lo + 1, hi);
        loop {
            i += 1;
            while above(pivot, values[i]) {
                i += 1;
            }
            j -= 1;
            while above(values[j], pivot) {
                j -= 1;
            }
            if j < i {
                break;
            }
            swap(values, i, j);
        }
        swap(values, lo, j);
        if j <= k {
            lo = i;
        }
        if j >= k {
            hi = j - 1;
        }
    }
}
