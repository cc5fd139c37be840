//! Python's subscripts: `t[...]` (index) and `t[...] = v` (index_put) over ints, slices, None,
//! Ellipsis, and integer and bool tensors (advanced indexing, on the host or the device).

use crate::autograd::{is_grad_enabled, record, record_shown, GradMode, Op, Positions};
use crate::cpu::buffer::{filled, with_capacity};
use crate::cpu::reduce::element_offsets;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape::broadcast_shapes;
use crate::tensor::arith::Arg;
use crate::tensor::Tensor;

/// One entry of a Python index tuple.
#[derive(Clone, Debug)]
pub enum TensorIndex {
    Int(i64),
    Slice(Option<i64>, Option<i64>, i64),
    NewAxis,
    Ellipsis,
    Tensor(Tensor),
}

/// Checks and wraps `v` against a dim of `size`.
fn wrap_index(v: i64, size: usize, dim: usize) -> Result<usize> {
    let n = size as i64;
    if v < -n || v >= n {
        return Err(Error::IndexOutOfRange { index: v, dim, size });
    }
    Ok(if v < 0 { (v + n) as usize } else { v as usize })
}

impl Tensor {
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
            // A lone int or slice on a 0-dim tensor gets PyTorch's own words (old programs'
            // `loss.data[0]`).
            if self.ndim() == 0 && indices.len() == 1 {
                match indices.first() {
                    Some(TensorIndex::Int(_)) => {
                        return Err(Error::Index(
                            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number".into(),
                        ))
                    }
                    Some(TensorIndex::Slice(..)) => return Err(Error::Index("slice() cannot be applied to a 0-dim tensor.".into())),
                    _ => {}
                }
            }
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
    /// `view` is the layout of the indexed view: its own for storage offsets, or the contiguous
    /// layout of its shape for row-major positions in it (what a gradient is added at).
    fn advanced_offsets(view: &Layout, advanced: &[(usize, Tensor)], report_view_dim: bool) -> Result<(Vec<usize>, Vec<usize>)> {
        let mut bshape: Vec<usize> = vec![];
        for (_, t) in advanced {
            bshape = broadcast_shapes(&bshape, t.shape())?;
        }
        let adv_dims: Vec<usize> = advanced.iter().map(|(d, _)| *d).collect();
        // The offsets (one usize per element of the result) must be allocatable.
        let rest_shape: Vec<usize> = (0..view.ndim()).filter(|d| !adv_dims.contains(d)).map(|d| view.shape[d]).collect();
        crate::tensor::check_alloc(&[bshape.clone(), rest_shape].concat(), DType::I64)?;
        let nb: usize = bshape.iter().product();
        // Offset contributed by the indexed dims for each broadcast position.
        let mut adv_off = filled(nb, view.offset)?;
        for (k, (d, t)) in advanced.iter().enumerate() {
            let vals = t.with_layout(t.layout().broadcast_to(&bshape)).to_vec::<i64>()?;
            let (size, stride) = (view.shape[*d], view.strides[*d]);
            let reported = if report_view_dim { *d } else { k };
            for (o, &v) in adv_off.iter_mut().zip(&vals) {
                *o += wrap_index(v, size, reported)? * stride;
            }
        }
        let rest: Vec<usize> = (0..view.ndim()).filter(|d| !adv_dims.contains(d)).collect();
        let rest_layout = Layout {
            shape: rest.iter().map(|&d| view.shape[d]).collect(),
            strides: rest.iter().map(|&d| view.strides[d]).collect(),
            offset: 0,
        };
        let rest_off = element_offsets(&rest_layout)?;
        // Adjacent indexed dims keep their place; scattered ones go first (NumPy's rule).
        let adjacent = adv_dims.windows(2).all(|w| w[1] == w[0] + 1);
        let pos = if adjacent { adv_dims[0] } else { 0 };
        let before: Vec<usize> = rest.iter().filter(|&&d| d < pos).map(|&d| view.shape[d]).collect();
        let after: Vec<usize> = rest.iter().filter(|&&d| d >= pos).map(|&d| view.shape[d]).collect();
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
        let terms: Vec<crate::backend::IndexTerm<'_>> = advanced
            .iter()
            .map(|(d, t)| {
                let b = t.layout().broadcast_to(&bshape);
                let at = Layout {
                    shape: shape.clone(),
                    strides: [zeros(before.len()), b.strides, zeros(after.len())].concat(),
                    offset: b.offset,
                };
                crate::backend::IndexTerm { index: t.array(), at, stride: strides[*d], size: view.shape()[*d] }
            })
            .collect();
        Ok(view.backend().index_offsets(&walk, &terms, true)?.map(|offsets| (Tensor::from_array(offsets), shape)))
    }

    /// `self[indices]`.
    pub fn index(&self, indices: &[TensorIndex]) -> Result<Tensor> {
        if let [TensorIndex::Tensor(mask)] = indices {
            if mask.dtype() == DType::Bool
                && mask.ndim() > 0
                && mask.shape() == self.shape()
                && self.device().is_cpu()
                && mask.device().is_cpu()
            {
                // A mask of self's shape selects what masked_select does, in one pass over the
                // mask (its `nonzero` coordinates, then offsets from them, took twice as long).
                let recorded = is_grad_enabled() && self.requires_grad();
                let (out, positions) = {
                    let _raw = GradMode::disabled();
                    self.masked_select_raw(mask, recorded)?
                };
                if recorded {
                    record(Op::Take { kind: "IndexBackward0", offsets: Positions::Host(positions) }, &[self], &[&out], &[], &[]);
                }
                return Ok(out);
            }
        }
        let (view, advanced) = self.basic_index(indices)?;
        if advanced.is_empty() {
            if view.identity() == self.identity() {
                // Nothing indexed (`x[...]`, `x[:, :]`): a new view of all of self.
                return self.view_op(self.layout().clone(), crate::tensor::view::ViewKind::Same("AliasBackward0"));
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
        if let [(d, idx)] = advanced.as_slice() {
            if idx.ndim() == 1 && idx.dtype() == DType::I64 && view.device().is_cpu() {
                // One vector of indices: index_select's row copies, and its gradient (index_add
                // at the indices) under PyTorch's node; negative or out-of-range indices take
                // the path below, which wraps them or words the error.
                let out = {
                    let _raw = GradMode::disabled();
                    view.index_select_in_range(*d, idx)?
                };
                if let Some(out) = out {
                    if is_grad_enabled() && view.requires_grad() {
                        record_shown(Some("IndexBackward0"), Op::IndexSelect { dim: *d }, &[&view, idx], &[&out], &[1], &[], Some(&[0]));
                    }
                    return Ok(out);
                }
            }
        }
        let (offs, shape) = Tensor::advanced_offsets(view.layout(), &advanced, false)?;
        let out = view.take_offsets(&offs, &shape)?;
        if is_grad_enabled() && view.requires_grad() {
            // The gradient is added at row-major positions in the view: for a strided view they
            // come from its contiguous layout directly (mapping storage offsets back to them
            // took a hash map of every element of the view).
            let positions = if view.is_contiguous() {
                view.positions_of(&offs)?
            } else {
                Tensor::advanced_offsets(&Layout::contiguous(view.shape().to_vec())?, &advanced, false)?.0
            };
            record(Op::Take { kind: "IndexBackward0", offsets: Positions::Host(positions) }, &[&view], &[&out], &[], &[]);
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
        // A dense self (row-major or permuted, as a clone of a permuted tensor is) has its
        // elements at offsets 0..numel from its first one: those are the positions.
        let dense = crate::result_layout::is_dense(self.layout());
        let on_device = if dense { Tensor::advanced_on_device(&view, &advanced, self.storage_offset(), false)? } else { None };
        let (region, shape) = match on_device {
            Some((positions, shape)) => (Targets::Device(positions), shape),
            None => {
                let (offs, shape) = Tensor::advanced_offsets(view.layout(), &advanced, report_view_dim)?;
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
                Targets::Device(positions) => {
                    let span = Layout { shape: vec![self.numel()], strides: vec![1], offset: self.storage_offset() };
                    let flat = self.array().with_layout(span);
                    self.backend().put_at_positions(&flat, positions.array(), v.contiguous()?.to_device(self.device())?.array())?
                }
                // A number (or a value on another device) is broadcast where it is and moved.
                Targets::Host(offs) => self.backend().put(self.array(), offs, v.contiguous()?.to_device(self.device())?.array())?,
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
