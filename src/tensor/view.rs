//! Views: new layouts over the same storage (no copy), and the shape ops built from them.

use crate::autograd::{record, Op, Positions};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape::{infer_size, wrap_dim, wrap_dim_strict, wrap_dims};
use crate::tensor::Tensor;

/// How a view's gradient maps back to its input.
pub(crate) enum ViewKind<'a> {
    /// Same elements in the same order (view, reshape, squeeze, unsqueeze).
    Same(&'static str),
    Permute(Vec<usize>, &'static str),
    Expand,
    /// A selection of the input's elements, possibly repeated (unfold, diagonal).
    Take(&'static str),
    /// Distinct elements of the input (narrow, slices, select): the function that made the view's
    /// layout from the input's, applied to a contiguous layout of the input's shape when recorded.
    Window(&'static str, &'a dyn Fn(&Layout) -> Result<Layout>),
    /// Any elements of the input's storage (`as_strided`), which need not be the input's own.
    AsStrided,
}

impl Tensor {
    /// A view of self with `layout`, recorded for autograd and remembering its base. `layout`
    /// lies inside self's storage (views of a checked layout, or `Layout::from_user`).
    pub(crate) fn view_op(&self, layout: Layout, kind: ViewKind<'_>) -> Result<Tensor> {
        let out = self.with_layout(layout);
        if crate::autograd::is_grad_enabled() && self.requires_grad() {
            let op = match kind {
                ViewKind::Same(k) => Op::View { kind: k },
                ViewKind::Permute(dims, k) => Op::Permute { dims, kind: k },
                ViewKind::Expand => Op::Expand,
                ViewKind::Take(k) => {
                    let offsets = crate::cpu::reduce::element_offsets(out.layout())?;
                    Op::Take { kind: k, offsets: Positions::Host(self.positions_of(&offsets)?) }
                }
                ViewKind::Window(k, pick) => Op::Window { kind: k, window: pick(&Layout::contiguous(self.shape().to_vec())?)? },
                ViewKind::AsStrided => Op::AsStrided { input: self.layout().clone(), output: out.layout().clone() },
            };
            record(op, &[self], &[&out], &[], &[]);
        }
        // Always remembered: an in-place write through the view must reach the base's history
        // even when only the written value requires grad.
        out.set_view_base(self);
        Ok(out)
    }

    /// `view`: fails where the strides do not allow a view.
    pub fn view(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = infer_size(sizes, self.numel())?;
        let strides = self.layout().view_strides(&shape).ok_or_else(|| {
            Error::Runtime(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.".into(),
            )
        })?;
        self.view_op(Layout { shape, strides, offset: self.storage_offset() }, ViewKind::Same("ViewBackward0"))
    }

    /// `reshape`: a view when possible, else a copy. PyTorch's nodes: ViewBackward0 for a
    /// contiguous input, ReshapeAliasBackward0 for another view, and for a copy
    /// UnsafeViewBackward0 over the CloneBackward0 of the copy.
    pub fn reshape(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = infer_size(sizes, self.numel())?;
        match self.layout().view_strides(&shape) {
            Some(strides) => {
                let kind = if self.is_contiguous() { "ViewBackward0" } else { "ReshapeAliasBackward0" };
                self.view_op(Layout { shape, strides, offset: self.storage_offset() }, ViewKind::Same(kind))
            }
            None => self.copy_as(self.dtype())?.unsafe_view(shape),
        }
    }

    /// The same contiguous elements under another shape, recorded as PyTorch's `_unsafe_view`
    /// (no view: in-place writes to it do not go through a base).
    pub(crate) fn unsafe_view(&self, shape: Vec<usize>) -> Result<Tensor> {
        debug_assert!(self.is_contiguous());
        let strides = crate::shape::contiguous_strides(&shape)?;
        let out = self.with_layout(Layout { shape, strides, offset: self.storage_offset() });
        record(Op::View { kind: "UnsafeViewBackward0" }, &[self], &[&out], &[], &[]);
        Ok(out)
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        if dims.len() != self.ndim() {
            return Err(Error::Runtime(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                self.ndim(),
                dims.len()
            )));
        }
        let d = wrap_dims(dims, self.ndim())?;
        self.view_op(self.layout().permute(&d), ViewKind::Permute(d.clone(), "PermuteBackward0"))
    }

    pub fn transpose(&self, a: i64, b: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            wrap_dim(a, 0)?;
            wrap_dim(b, 0)?;
            return Ok(self.clone());
        }
        let (a, b) = (wrap_dim(a, self.ndim())?, wrap_dim(b, self.ndim())?);
        let mut order: Vec<usize> = (0..self.ndim()).collect();
        order.swap(a, b);
        self.view_op(self.layout().transpose(a, b), ViewKind::Permute(order, "TransposeBackward0"))
    }

    /// `t()`: transposes a matrix, leaves 0-d and 1-d tensors alone.
    pub fn t(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            return Err(Error::Runtime(format!("t() expects a tensor with <= 2 dimensions, but self is {}D", self.ndim())));
        }
        if self.ndim() < 2 {
            return Ok(self.clone());
        }
        self.view_op(self.layout().transpose(0, 1), ViewKind::Permute(vec![1, 0], "TBackward0"))
    }

    /// Moves dim `src` to position `dst`, keeping the others in order.
    pub fn movedim(&self, src: i64, dst: i64) -> Result<Tensor> {
        let n = self.ndim();
        let (s, d) = (wrap_dim(src, n)?, wrap_dim(dst, n)?);
        if n == 0 {
            return Ok(self.clone());
        }
        let mut order: Vec<usize> = (0..n).filter(|&i| i != s).collect();
        order.insert(d, s);
        self.view_op(self.layout().permute(&order), ViewKind::Permute(order.clone(), "PermuteBackward0"))
    }

    /// `narrow(dim, start, length)`: `start` may be negative; the range must fit in the dim.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::Runtime("narrow() cannot be applied to a 0-dim tensor.".into()));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if start < -size || start > size {
            return Err(Error::Index(format!("start out of range (expected to be in range of [{}, {size}], but got {start})", -size)));
        }
        if length < 0 {
            return Err(Error::Runtime("narrow(): length must be non-negative.".into()));
        }
        let start = if start < 0 { start + size } else { start };
        // `start <= size` here, so the sum only overflows when it exceeds the size anyway.
        if start.checked_add(length).is_none_or(|end| end > size) {
            return Err(Error::Runtime(format!("start ({start}) + length ({length}) exceeds dimension size ({size}).")));
        }
        let pick = |l: &Layout| l.narrow(d, start as usize, length as usize);
        self.view_op(pick(self.layout())?, ViewKind::Window("SliceBackward0", &pick))
    }

    /// Python slicing `start:end:step` along `dim` (bounds clamped as Python does).
    pub fn slice(&self, dim: usize, start: Option<i64>, end: Option<i64>, step: i64) -> Result<Tensor> {
        if step <= 0 {
            return Err(Error::Value("step must be greater than zero".into()));
        }
        let size = self.shape()[dim] as i64;
        let clamp = |v: i64| if v < 0 { (v + size).max(0) } else { v.min(size) };
        let s = start.map_or(0, clamp);
        let e = end.map_or(size, clamp);
        let pick = |l: &Layout| l.slice(dim, s as usize, e.max(s) as usize, step as usize);
        self.view_op(pick(self.layout())?, ViewKind::Window("SliceBackward0", &pick))
    }

    /// Indexes `dim` with one integer, dropping the dim.
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::Index("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number".into()));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if index < -size || index >= size {
            return Err(Error::IndexOutOfRange { index, dim: d, size: size as usize });
        }
        let i = if index < 0 { index + size } else { index };
        let pick = |l: &Layout| l.select(d, i as usize);
        self.view_op(pick(self.layout())?, ViewKind::Window("SelectBackward0", &pick))
    }

    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        self.view_op(self.layout().unsqueeze(d), ViewKind::Same("UnsqueezeBackward0"))
    }

    /// `squeeze()` (all size-1 dims) or `squeeze(dims)`.
    pub fn squeeze_dims(&self, dims: &[i64]) -> Result<Tensor> {
        if self.ndim() == 0 {
            for &d in dims {
                wrap_dim(d, 0)?;
            }
            return Ok(self.clone());
        }
        let d = wrap_dims(dims, self.ndim())?;
        // PyTorch's overloads: squeeze(dim) and squeeze(dims).
        let name = if dims.len() == 1 { "SqueezeBackward1" } else { "SqueezeBackward2" };
        self.view_op(self.layout().squeeze_dims(&d), ViewKind::Same(name))
    }

    pub fn squeeze(&self) -> Result<Tensor> {
        let all: Vec<usize> = (0..self.ndim()).collect();
        self.view_op(self.layout().squeeze_dims(&all), ViewKind::Same("SqueezeBackward0"))
    }

    /// `expand`: -1 keeps a size; new leading dims may be added.
    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        if sizes.len() < self.ndim() {
            return Err(Error::Runtime(format!(
                "expand(torch.FloatTensor{{{:?}}}, size=[{}]): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                self.shape(),
                sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                sizes.len(),
                self.ndim()
            )));
        }
        let lead = sizes.len() - self.ndim();
        let mut target = Vec::with_capacity(sizes.len());
        for (i, &s) in sizes.iter().enumerate() {
            let cur = if i >= lead { Some(self.shape()[i - lead]) } else { None };
            let t = match (s, cur) {
                (-1, Some(c)) => c,
                (-1, None) => {
                    return Err(Error::Runtime(format!(
                        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                    )))
                }
                (s, _) if s < 0 => return Err(Error::NegativeDimension(s, sizes.to_vec())),
                (s, Some(c)) if c != 1 && c as i64 != s => {
                    return Err(Error::Runtime(format!(
                        "The expanded size of the tensor ({s}) must match the existing size ({c}) at non-singleton dimension {i}.  Target sizes: {sizes:?}.  Tensor sizes: {:?}",
                        self.shape()
                    )))
                }
                (s, _) => s as usize,
            };
            target.push(t);
        }
        crate::shape::numel(&target)?;
        self.view_op(self.layout().broadcast_to(&target), ViewKind::Expand)
    }

    /// `flatten(start_dim, end_dim)`.
    pub fn flatten(&self, start: i64, end: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return self.reshape(&[1]);
        }
        let (s, e) = (wrap_dim(start, self.ndim())?, wrap_dim(end, self.ndim())?);
        if s > e {
            return Err(Error::Runtime("flatten() has invalid args: start_dim cannot come after end_dim".into()));
        }
        let mut sizes: Vec<i64> = self.shape()[..s].iter().map(|&v| v as i64).collect();
        sizes.push(self.shape()[s..=e].iter().product::<usize>() as i64);
        sizes.extend(self.shape()[e + 1..].iter().map(|&v| v as i64));
        self.reshape(&sizes)
    }

    /// `unflatten(dim, sizes)`.
    pub fn unflatten(&self, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        let d = wrap_dim_strict(dim, self.ndim())?;
        let inner = infer_size(sizes, self.shape()[d]).map_err(|_| {
            Error::Runtime(format!(
                "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {dim} ({}) in the input tensor",
                self.shape()[d]
            ))
        })?;
        let mut shape: Vec<i64> = self.shape()[..d].iter().map(|&v| v as i64).collect();
        shape.extend(inner.iter().map(|&v| v as i64));
        shape.extend(self.shape()[d + 1..].iter().map(|&v| v as i64));
        self.view(&shape).or_else(|_| self.reshape(&shape))
    }

    pub fn unbind(&self, dim: i64) -> Result<Vec<Tensor>> {
        let d = wrap_dim_strict(dim, self.ndim())?;
        let n = self.shape()[d];
        // An expanded or empty tensor can have a dim of 2**40: the piece list is refused
        // before it is built, as the allocator refuses it in PyTorch.
        let mut parts = crate::cpu::buffer::with_capacity(n)?;
        let sizes = crate::cpu::buffer::filled(n, 1)?;
        {
            let _raw = crate::autograd::GradMode::disabled();
            for i in 0..n {
                parts.push(self.select(d as i64, i as i64)?);
            }
        }
        Ok(self.record_pieces(parts, d, sizes, true, "UnbindBackward0"))
    }

    /// Views `parts` of self (pieces of `sizes` along `dim`, each without that dim when
    /// `squeezed`) as the outputs of one node named `kind`, as PyTorch's split and unbind.
    fn record_pieces(&self, parts: Vec<Tensor>, dim: usize, sizes: Vec<usize>, squeezed: bool, kind: &'static str) -> Vec<Tensor> {
        let refs: Vec<&Tensor> = parts.iter().collect();
        record(Op::Split { dim, sizes, squeezed, kind }, &[self], &refs, &[], &[]);
        parts
    }

    /// Pieces of `sizes` along `dim`; they must add up to the dim's size.
    pub fn split_sizes(&self, sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
        self.split_pieces(sizes, dim, "SplitWithSizesBackward0")
    }

    fn split_pieces(&self, sizes: &[i64], dim: i64, kind: &'static str) -> Result<Vec<Tensor>> {
        self.expect_dims("split")?;
        let d = wrap_dim(dim, self.ndim())?;
        let total = sizes.iter().try_fold(0i64, |acc, &s| if s < 0 { None } else { acc.checked_add(s) });
        if total != Some(self.shape()[d] as i64) {
            return Err(Error::Runtime(format!(
                "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {}), but got split_sizes={:?}",
                self.shape()[d],
                d,
                sizes
            )));
        }
        let mut start = 0;
        let parts = {
            let _raw = crate::autograd::GradMode::disabled();
            sizes
                .iter()
                .map(|&s| {
                    let t = self.narrow(d as i64, start, s);
                    start += s;
                    t
                })
                .collect::<Result<Vec<_>>>()?
        };
        Ok(self.record_pieces(parts, d, sizes.iter().map(|&s| s as usize).collect(), false, kind))
    }

    /// Pieces of `size` along `dim` (the last may be smaller).
    pub fn split(&self, size: i64, dim: i64) -> Result<Vec<Tensor>> {
        self.expect_dims("split")?;
        let d = wrap_dim(dim, self.ndim())?;
        if size < 0 {
            return Err(Error::Runtime(format!("split expects split_size be non-negative, but got split_size={size}")));
        }
        if size == 0 && self.shape()[d] > 0 {
            return Err(Error::Runtime(format!(
                "split_size can only be 0 if dimension size is 0, but got dimension size of {}",
                self.shape()[d]
            )));
        }
        let n = self.shape()[d] as i64;
        if n == 0 {
            return Ok(vec![self.clone()]);
        }
        // One piece per `size` elements: an expanded dim can ask for more than memory holds.
        let mut sizes = crate::cpu::buffer::filled((n / size) as usize, size)?;
        if n % size != 0 {
            sizes.push(n % size);
        }
        self.split_pieces(&sizes, dim, "SplitBackward0")
    }

    /// `chunk(chunks, dim)`: pieces of ceil(size / chunks).
    pub fn chunk(&self, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
        self.expect_dims("chunk")?;
        if chunks <= 0 {
            return Err(Error::Runtime(format!("chunk expects `chunks` to be greater than 0, got: {chunks}")));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let n = self.shape()[d] as i64;
        // ceil(n / chunks) as PyTorch computes it, in wrapping 64-bit arithmetic: a count of
        // chunks near 2**63 wraps to a negative size, which `split` refuses as PyTorch does.
        let size = n.wrapping_add(chunks).wrapping_sub(1) / chunks;
        if n == 0 && size == 0 {
            // `chunks` empty pieces, whose list alone may not fit in memory.
            return self.split_pieces(&crate::cpu::buffer::filled(chunks as usize, 0)?, dim, "SplitBackward0");
        }
        self.split(size, dim)
    }

    /// `unfold(dim, size, step)`: sliding windows as a new last dim.
    pub fn unfold(&self, dim: i64, size: i64, step: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] as i64 };
        if size < 0 || size > n {
            return Err(Error::Runtime(format!("maximum size for tensor at dimension {d} is {n} but size is {size}")));
        }
        if step <= 0 {
            return Err(Error::Runtime(format!("step is {step} but must be > 0")));
        }
        if self.ndim() == 0 {
            // A 0-dim tensor unfolds into one window of its single element (or none).
            let shape = vec![size as usize];
            return self.view_op(Layout { shape, strides: vec![1], offset: self.storage_offset() }, ViewKind::Take("UnfoldBackward0"));
        }
        self.view_op(self.layout().unfold(d, size as usize, step as usize)?, ViewKind::Take("UnfoldBackward0"))
    }

    /// `diagonal(offset, dim1, dim2)`: the diagonal of the planes over `dim1` and `dim2` (above
    /// the main one for a positive `offset`, below it for a negative one) as a view, in a new
    /// last dim.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let n = self.ndim();
        let (d1, d2) = (wrap_dim(dim1, n)?, wrap_dim(dim2, n)?);
        if d1 == d2 {
            return Err(Error::Runtime(format!("diagonal dimensions cannot be identical {dim1}, {dim2}")));
        }
        if n < 2 {
            // One of two distinct dims of a 0-d or 1-d tensor is out of range.
            return Err(Error::DimOutOfRange { dim: if d1 >= n { dim1 } else { dim2 }, lo: -(n as i64), hi: n as i64 - 1 });
        }
        let (s1, s2) = (self.shape()[d1], self.shape()[d2]);
        let (st1, st2) = (self.strides()[d1], self.strides()[d2]);
        let k = offset.unsigned_abs() as usize;
        let len = if offset >= 0 { s1.min(s2.saturating_sub(k)) } else { s1.saturating_sub(k).min(s2) };
        let mut start = self.storage_offset();
        if len > 0 {
            // The first diagonal element is an element of self, inside its storage.
            start += k * if offset >= 0 { st2 } else { st1 };
        }
        let mut shape = Vec::with_capacity(n - 1);
        let mut strides = Vec::with_capacity(n - 1);
        for d in (0..n).filter(|&d| d != d1 && d != d2) {
            shape.push(self.shape()[d]);
            strides.push(self.strides()[d]);
        }
        shape.push(len);
        // Two steps of a diagonal of two or more elements stay inside self; a shorter one never
        // steps, so an overflowing sum (possible only for strides no element uses) is moot.
        strides.push(st1.checked_add(st2).unwrap_or(st1));
        self.view_op(Layout { shape, strides, offset: start }, ViewKind::Take("DiagonalBackward0"))
    }

    /// PyTorch's "`op` expects at least a 1-dimensional tensor" check.
    fn expect_dims(&self, op: &str) -> Result<()> {
        if self.ndim() == 0 {
            return Err(Error::Runtime(format!("{op} expects at least a 1-dimensional tensor")));
        }
        Ok(())
    }
}
