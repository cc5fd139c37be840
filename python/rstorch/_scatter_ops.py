"""The writes into a copy of a tensor that PyTorch defines over its index primitives: index_copy,
index_fill, put, masked_scatter, scatter_reduce, the select/slice/diagonal scatters, diag_embed,
diagflat, fill_diagonal_, repeat_interleave, take_along_dim. Each is written with differentiable
ops (`index_fill` to clear the written places, `index_add` to put the new values there), so the
gradients reach both the tensor written into and the values written."""
import builtins

from . import _C
from ._tensor import _in_place
from ._tensorfns import _title

Tensor = _C.Tensor


def _dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _index_mask(index, size, device):
    """A bool vector of `size` that is True at `index` (negative indices count from the end)."""
    mask = _C.zeros(size, dtype=_C.bool, device=device)
    if index.numel():
        mask.index_put_((index.reshape(-1).remainder(size),), _C.tensor(True, device=device))
    return mask


def _along(mask, dim, ndim):
    """`mask` (a vector) shaped to broadcast along `dim` of an `ndim`-d tensor."""
    return mask.reshape([-1 if d == dim else 1 for d in range(ndim)]) if ndim else mask.reshape(())


def index_fill(input, dim, index, value):
    """A copy of `input` with `value` (a number or a 0-d tensor) at `index` along `dim`."""
    d = _dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError("Index is supposed to be a vector")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    size = input.shape[d] if input.dim() else 1
    mask = _along(_index_mask(index, size, input.device), d, input.dim())
    if isinstance(value, Tensor):
        value = value.to(input.dtype)
    return _C.where(mask, value, input) if isinstance(value, Tensor) else input.masked_fill(mask, value)


def index_copy(input, dim, index, source):
    """A copy of `input` whose slices at `index` along `dim` are `source`'s."""
    d = _dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got 2)")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_title(input.dtype)} and (source) {_title(source.dtype)}")
    idx = index.reshape(-1)
    if input.dim() == 0:
        return source.reshape(()).clone() if idx.numel() else input.clone()
    src = source if source.dim() == input.dim() else source.unsqueeze(d)
    return index_fill(input, d, idx, 0).index_add(d, idx, src)


def put(input, index, source, accumulate=False):
    """A copy of `input` with `source` at the flat positions `index` (added when `accumulate`)."""
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{str(input.dtype).replace('rstorch.', '')} and source.dtype = "
                           f"{str(source.dtype).replace('rstorch.', '')}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    flat = input.reshape(-1)
    idx = index.reshape(-1).remainder(builtins.max(flat.numel(), 1))
    if not accumulate:
        flat = index_fill(flat, 0, idx, 0)
    return flat.index_add(0, idx, source.reshape(-1)).reshape(input.shape)


def masked_scatter(input, mask, source):
    """A copy of `input` where `mask` is True filled, in order, with `source`'s first elements."""
    if mask.dtype != _C.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_title(mask.dtype)}")
    mask = mask.broadcast_to(input.shape).reshape(-1)
    positions = mask.nonzero().reshape(-1)
    count = positions.numel()
    values = source.reshape(-1)
    if values.numel() < count:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    flat = input.reshape(-1).masked_fill(mask, 0)
    return flat.index_add(0, positions, values[:count].to(input.dtype)).reshape(input.shape)


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
# Accepted too, as PyTorch's parser does.
_REDUCTION_ALIASES = {"max": "amax", "min": "amin"}


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`src` reduced into a copy of `input` at `index` along `dim` by `reduce` (sum, prod, mean,
    amax, amin), `input`'s own values joining unless `include_self` is False."""
    reduce = _REDUCTION_ALIASES.get(reduce, reduce)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = _dim(dim, input.dim())
    touched = _C.zeros(input.shape, dtype=input.dtype, device=input.device).scatter(d, index, 1).bool()
    base = input if include_self else input.masked_fill(touched, 0 if reduce in ("sum", "mean") else 1)
    src = src.to(input.dtype)
    if reduce in ("sum", "mean"):
        out = base.scatter_add(d, index, src[tuple(slice(0, s) for s in index.shape)])
        if reduce == "sum":
            return out
        ones = _C.ones(index.shape, dtype=input.dtype, device=input.device)
        count = (input.new_ones(input.shape) if include_self else input.new_zeros(input.shape)).scatter_add(d, index, ones)
        count = count.masked_fill(count == 0, 1)
        return out.floor_divide(count) if not input.is_floating_point() else out / count
    return _extreme_or_product(input, base, touched, d, index, src, reduce, include_self)


def _extreme_or_product(input, base, touched, d, index, src, reduce, include_self):
    """prod, amax and amin: the values from NumPy's `ufunc.at`; for amax and amin, the gradient
    shared evenly between the elements equal to the result, as PyTorch's is."""
    import numpy as np
    ufunc = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
    src = src[tuple(slice(0, s) for s in index.shape)]
    out_np = base.detach().cpu().numpy().copy()
    idx = index.cpu().numpy()
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    if reduce != "prod" and not include_self:
        # The first value written replaces the placeholder.
        fill = np.full_like(out_np, np.inf if reduce == "amin" else -np.inf) if out_np.dtype.kind == "f" else None
        if fill is None:
            info = np.iinfo(out_np.dtype)
            fill = np.full_like(out_np, info.max if reduce == "amin" else info.min)
        out_np = np.where(touched.cpu().numpy(), fill, out_np)
    ufunc.at(out_np, tuple(grids), src.detach().cpu().numpy())
    result = _C.from_numpy(np.ascontiguousarray(out_np)).to(input.device)
    if not (input.requires_grad or src.requires_grad):
        return result
    if reduce == "prod":
        return _product_with_gradient(input, result, touched, d, index, src, include_self, grids, np)
    # The winners' values, each weighted by 1 / (number of winners): their weighted sum is the
    # result, and its gradient is PyTorch's.
    r = result.detach()
    own = input == r
    if not include_self:
        own = own & touched.logical_not()
    theirs = src == r.gather(d, index)
    count = own.to(input.dtype) + r.new_zeros(r.shape).scatter_add(d, index, theirs.to(input.dtype))
    count = count.masked_fill(count == 0, 1)
    weighted = (input * own / count).masked_fill(own.logical_not(), 0)
    weighted = weighted.scatter_add(d, index, (src * theirs / count.gather(d, index)).masked_fill(theirs.logical_not(), 0))
    return r + (weighted - weighted.detach())


def _product_with_gradient(input, result, touched, d, index, src, include_self, grids, np):
    """scatter_reduce's prod with its gradient: each factor's derivative is the product of the
    other factors of its output element (exact with zeros: one zero among them makes the others
    0 but itself the product of the rest, two make all 0). Elements no index reaches keep `input`
    (derivative 1); with include_self False the input's values at reached ones are not factors.
    First derivatives only: the products of the others enter as constants."""
    a = input.detach().cpu().numpy()
    b = src.detach().cpu().numpy()
    reached = touched.cpu().numpy()
    own = reached & include_self
    zeros = np.where(own & (a == 0), 1, 0)
    np.add.at(zeros, tuple(grids), (b == 0).astype(zeros.dtype))
    nonzero = np.where(own & (a != 0), a, 1).astype(a.dtype)
    np.multiply.at(nonzero, tuple(grids), np.where(b == 0, 1, b))

    def others(values, z, p):
        safe = np.where(values == 0, 1, values)
        return np.where(z == 0, p / safe, np.where((z == 1) & (values == 0), p, 0))

    mine = np.where(reached, np.where(own, others(a, zeros, nonzero), 0), 1)
    theirs = others(b, zeros[tuple(grids)], nonzero[tuple(grids)])

    def constant(x):
        return _C.from_numpy(np.ascontiguousarray(x)).to(input.device)
    weighted = (input * constant(mine)).scatter_add(d, index, src * constant(theirs))
    return result + (weighted - weighted.detach())


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """`source`'s slices reduced into a copy of `input` at `index` along `dim` (prod, mean, amax,
    amin): `scatter_reduce` with the index spread over the other dims."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _dim(dim, input.dim())
    shape = list(source.shape)
    spread = index.reshape([-1 if k == d else 1 for k in range(source.dim())]).expand(shape)
    return scatter_reduce(input, d, spread, source, reduce, include_self=include_self)


def nonzero_static(input, *, size, fill_value=-1):
    """`nonzero()` cut or padded with `fill_value` to `size` rows."""
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size]
    pad = _C.full((size - found.shape[0], input.dim()), fill_value, dtype=_C.int64, device=input.device)
    return _C.cat([found, pad], 0)


def _triangle_indices(lower, row, col, offset, dtype, device):
    rows = _C.arange(row, device=device).unsqueeze(1).expand(row, col)
    cols = _C.arange(col, device=device).unsqueeze(0).expand(row, col)
    keep = (cols - rows <= offset) if lower else (cols - rows >= offset)
    return _C.stack([rows[keep], cols[keep]]).to(dtype)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, col) indices of the lower triangle of a row x col matrix, row by row."""
    return _triangle_indices(True, row, col, offset, dtype or _C.int64, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, col) indices of the upper triangle of a row x col matrix, row by row."""
    return _triangle_indices(False, row, col, offset, dtype or _C.int64, device)


def select_scatter(input, src, dim, index):
    """A copy of `input` whose `select(dim, index)` is `src`."""
    d = _dim(dim, input.dim())
    i = _C.tensor([index % input.shape[d]], device=input.device)
    return index_fill(input, d, i, 0).index_add(d, i, src.to(input.dtype).unsqueeze(d))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of `input` whose slice `start:end:step` along `dim` is `src`."""
    d = _dim(dim, input.dim())
    positions = _C.arange(input.shape[d], device=input.device)[start:end:step]
    return index_fill(input, d, positions, 0).index_add(d, positions, src.to(input.dtype))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of `input` whose `diagonal(offset, dim1, dim2)` is `src`."""
    positions = _C.arange(input.numel(), device=input.device).reshape(input.shape).diagonal(offset, dim1, dim2)
    if tuple(src.shape) != tuple(positions.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(positions.shape)}")
    return put(input, positions, src.to(input.dtype))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of `input` (contiguous) whose `as_strided(size, stride, storage_offset)` view is `src`."""
    positions = _C.arange(input.numel(), device=input.device).as_strided(size, stride, storage_offset)
    return put(input.contiguous(), positions, src.to(input.dtype).reshape(positions.shape))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensors whose diagonals (in the planes `dim1`, `dim2` of the result) are `input`'s last dim."""
    n = input.dim() + 1
    d1, d2 = _dim(dim1, n), _dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = input.shape[-1] + abs(offset) if input.dim() else 1 + abs(offset)
    lead = list(input.shape[:-1])
    shape = []
    for k in range(n):
        shape.append(size if k in (d1, d2) else lead.pop(0))
    zeros = _C.zeros(shape, dtype=input.dtype, device=input.device)
    return diagonal_scatter(zeros, input, offset, d1, d2)


def diagflat(input, offset=0):
    """A 2-d tensor with the flattened `input` on its `offset` diagonal."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


def fill_diagonal_(self, fill_value, wrap=False):
    """Writes `fill_value` on the main diagonal (all dims equal beyond 2-d; a tall 2-d matrix
    restarts the diagonal every `cols + 1` rows when `wrap`)."""
    shape = list(self.shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    n = builtins.min(shape)
    step = builtins.sum(shape[0] ** k for k in range(len(shape))) if len(shape) > 2 else shape[1] + 1
    stop = self.numel() if wrap and len(shape) == 2 else n * step
    positions = _C.arange(0, builtins.min(stop, self.numel()), step, device=self.device)
    if len(shape) == 2 and not wrap:
        positions = positions[:n]
    flat = index_fill(self.reshape(-1), 0, positions, fill_value)
    return self._assign_(flat.reshape(shape))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along `dim`) repeated `repeats` times (an int, or a tensor of one
    count per element); `repeat_interleave(counts)` repeats the indices 0..n-1."""
    if repeats is None:
        counts = input
        return repeat_interleave(_C.arange(counts.numel(), device=counts.device), counts)
    if dim is None:
        input, dim = input.reshape(-1), 0
    d = _dim(dim, input.dim())
    size = input.shape[d] if input.dim() else 1
    if isinstance(repeats, Tensor) and repeats.numel() == 1:
        repeats = repeats.item()
    if isinstance(repeats, builtins.int):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        counts = [repeats] * size
    else:
        counts = repeats.tolist()
        if len(counts) != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{len(counts)} and input.size({d}) = {size}")
        if any(c < 0 for c in counts):
            raise RuntimeError("repeats can not be negative")
    index = [i for i, c in enumerate(counts) for _ in range(c)]
    return input.index_select(d, _C.tensor(index, dtype=_C.int64, device=input.device))


def take_along_dim(input, indices, dim=None):
    """`gather` with `input` and `indices` broadcast against each other except along `dim`
    (the flattened input when `dim` is None)."""
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    d = _dim(dim, input.dim())
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    for k in range(input.dim()):
        if k != d:
            m = builtins.max(shape_in[k], shape_ix[k])
            shape_in[k] = shape_ix[k] = m
    return input.expand(shape_in).gather(d, indices.expand(shape_ix))


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, **_):
    """An uninitialized tensor with this geometry (over a storage just large enough)."""
    size, stride = tuple(size), tuple(stride)
    extent = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = _C.empty(extent, dtype=dtype, device=device)
    return base.as_strided(size, stride).requires_grad_(requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, **_):
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


_index_put_core, _index_put_core_ = Tensor.index_put, Tensor.index_put_


def index_put(input, indices, values, accumulate=False):
    """A copy of `input` with `values` at `indices` (a tuple of integer index tensors for the
    leading dims), added to what is there when `accumulate` (repeated indices adding up)."""
    if not accumulate or any(i.dtype == _C.bool for i in indices):
        return _index_put_core(input, indices, values, accumulate)
    k, shape = len(indices), list(input.shape)
    linear = 0
    for j, idx in enumerate(indices):
        span = 1
        for s in shape[j + 1:k]:
            span *= s
        linear = linear + idx.remainder(shape[j]) * span
    rest = shape[k:]
    flat = input.reshape([-1] + rest)
    vals = values.to(input.dtype).broadcast_to(list(linear.shape) + rest).reshape([-1] + rest)
    return flat.index_add(0, linear.reshape(-1), vals).reshape(shape)


def _index_put_(self, indices, values, accumulate=False):
    if not accumulate:
        return _index_put_core_(self, indices, values)
    return self._assign_(index_put(self, indices, values, True))


_METHODS = """as_strided_scatter index_put index_fill index_copy put masked_scatter scatter_reduce select_scatter
              slice_scatter diagonal_scatter diag_embed diagflat repeat_interleave take_along_dim index_reduce
              nonzero_static""".split()
_IN_PLACE = "index_fill index_copy put masked_scatter scatter_reduce index_reduce".split()
TORCH_FUNCTIONS = _METHODS + ["empty_strided", "tril_indices", "triu_indices"]


def install():
    g = globals()
    for name in _METHODS:
        setattr(Tensor, name, g[name])
    for name in _IN_PLACE:
        setattr(Tensor, name + "_", _in_place(name, composite=True))
    Tensor.fill_diagonal_ = fill_diagonal_
    Tensor.index_put_ = _index_put_
    Tensor.new_empty_strided = _new_empty_strided
    # A tensor object of `cls` over the same data (the deepcopy protocol's wrapping).
    Tensor.as_subclass = lambda self, cls: Tensor.__new__(cls, self)
