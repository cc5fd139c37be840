"""The functions PyTorch writes in Python over its ops (torch/functional.py's share): broadcasting
helpers, grids, block matrices, tensor contractions and index arithmetic. Each is composed of
rstorch's ops, so it runs on every device and differentiates through them."""
import functools
import warnings

from . import _C
from ._size import Size

__all__ = ["broadcast_shapes", "broadcast_tensors", "meshgrid", "cartesian_prod", "block_diag", "tensordot",
           "chain_matmul", "unravel_index", "equal"]


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (each an int or a sequence of ints)."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for i, shape in enumerate(shapes):
        for k, size in enumerate(reversed(shape)):
            at = ndim - 1 - k
            if size == out[at] or size == 1:
                continue
            if out[at] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {-1 - k}! Mismatching "
                                   f"argument at index {i} had {shape}; but expected shape should be broadcastable to "
                                   f"{out[ndim - len(shape):] if len(shape) <= ndim else out}")
            out[at] = size
    return Size(out)


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = list(tensors[0].shape) if tensors else []
    for t in tensors[1:]:
        shape = _broadcast_pair(shape, list(t.shape))
    return tuple(t.expand(*shape) for t in tensors)


def _broadcast_pair(a, b):
    """Two shapes broadcast, with the error PyTorch's broadcast of tensors raises."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
        out.append(y if x == 1 else x)
    return out


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 0-d or 1-d tensors: `ij` (matrix) or `xy` (Cartesian) indexing."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    parts = [t.reshape(-1) for t in tensors]
    # `xy` swaps the first two axes of the grid: the first input runs along columns.
    swap = indexing == "xy" and len(parts) >= 2
    if swap:
        parts[0], parts[1] = parts[1], parts[0]
    shape = [p.numel() for p in parts]
    grids = []
    for i, p in enumerate(parts):
        view = [1] * len(parts)
        view[i] = -1
        grids.append(p.reshape(view).expand(*shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of the 1-d tensors' elements, one per row (the input itself for one)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def block_diag(*tensors):
    """The tensors (0-d, 1-d as a row, or 2-d) as the blocks of a block-diagonal matrix."""
    from . import promote_types, zeros
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        blocks.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not blocks:
        return zeros(1, 0)
    dtype = functools.reduce(promote_types, (b.dtype for b in blocks))
    device = blocks[0].device
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        rows.append(_C.cat([zeros(r, left, dtype=dtype, device=device), b.to(dtype),
                            zeros(r, width - left - c, dtype=dtype, device=device)], 1))
        left += c
    return _C.cat(rows, 0)


def tensordot(a, b, dims=2, out=None):
    """Sums the products of `a`'s and `b`'s elements over the paired dims: the last `dims` of `a`
    with the first `dims` of `b`, or the dims listed in `dims = (a_dims, b_dims)`."""
    if isinstance(dims, int) or (hasattr(dims, "dim") and dims.dim() == 0):
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        dims_a, dims_b = list(range(a.dim() - n, a.dim())), list(range(n))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else [int(x) for x in d] for d in dims)
    dims_a = [d % a.dim() for d in dims_a] if a.dim() else dims_a
    dims_b = [d % b.dim() for d in dims_b] if b.dim() else dims_b
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    size = 1
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
        size *= a.shape[da]
    out_shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    left = a.permute(*free_a, *dims_a).reshape(-1, size)
    right = b.permute(*dims_b, *free_b).reshape(size, -1)
    result = left.matmul(right).reshape(out_shape)
    if out is not None:
        out.copy_(result)
        return out
    return result


def chain_matmul(*matrices, out=None):
    """The product of the matrices in order (deprecated in PyTorch for `linalg.multi_dot`)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    result = matrices[0] if len(matrices) == 1 else functools.reduce(lambda x, y: x.matmul(y), matrices)
    if out is not None:
        out.copy_(result)
        return out
    return result


def unravel_index(indices, shape):
    """The coordinates in an array of `shape` of each flat index (row-major), one tensor per dim."""
    from . import Tensor, tensor
    if not isinstance(indices, Tensor):
        indices = tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or str(indices.dtype).endswith("bool"):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    coords, stride = [], 1
    for size in reversed(shape):
        coords.append((indices // stride) % size)
        stride *= size
    return tuple(reversed(coords))


def equal(input, other):
    """True if the tensors have the same shape and equal elements (NaN equals nothing)."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool((input == other).all())
