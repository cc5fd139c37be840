"""ONNX mappings of shape, indexing, joining, reduction and conversion ops. Sizes read from a
tensor (`x.size(0)`, `x.shape`) become Shape/Gather nodes rather than numbers, so a reshape by
them follows a dynamic axis as PyTorch's exporter does."""
import numpy as np

from ._functions import _cast, _onnx, _tuple, as_input, mapping, shape_input
from ._graph import INT64_MAX, Value, np_dtype

# Tensor queries whose answers do not depend on the dims an export leaves dynamic: folded.
STATIC_QUERIES = {"dim", "ndimension", "is_floating_point", "is_complex", "element_size", "get_device",
                  "is_contiguous", "numel", "nelement"}


def _varargs(c, key):
    """Sizes given as `f(a, b)`, `f((a, b))` or `f(dims=(a, b))`."""
    items = list(c.args[1:]) or [c.kwargs[key]]
    return list(items[0]) if len(items) == 1 and isinstance(items[0], (tuple, list)) else items


@mapping("view", "reshape")
def _view(c):
    items = list(c.args[1:]) or [c.kwargs["shape"]]
    return Value(c.g.op("Reshape", [c.arg(0, "input").name, shape_input(c.g, items)]))


@mapping("flatten")
def _flatten(c):
    rank = c.rank()
    start, end = c.arg(1, "start_dim", 0), c.arg(2, "end_dim", -1)
    start, end = start % max(rank, 1), end % max(rank, 1)
    x = c.arg(0, "input").name
    if rank == 0:
        return Value(c.g.op("Reshape", [x, c.g.ints([1])]))
    if end == rank - 1 and start <= 1:
        if start == 0:
            return Value(c.g.op("Reshape", [x, c.g.ints([-1])]))
        return Value(c.g.op("Flatten", [x], axis=1))
    shape = c.g.op("Shape", [x])
    pieces = [c.g.op("Slice", [shape, c.g.ints([0]), c.g.ints([start])]), c.g.ints([-1]),
              c.g.op("Slice", [shape, c.g.ints([end + 1]), c.g.ints([INT64_MAX])])]
    return Value(c.g.op("Reshape", [x, c.g.op("Concat", pieces, axis=0)]))


@mapping("permute")
def _permute(c):
    rank = c.rank()
    return Value(c.g.op("Transpose", [c.arg(0, "input").name], perm=[d % rank for d in _varargs(c, "dims")]))


@mapping("transpose", "swapaxes", "t")
def _transpose(c):
    rank = c.rank()
    perm = list(range(rank))
    if c.name == "t":
        if rank < 2:
            return c.arg(0, "input")
        a, b = 0, 1
    else:
        a, b = c.arg(1, "dim0") % rank, c.arg(2, "dim1") % rank
    perm[a], perm[b] = perm[b], perm[a]
    return Value(c.g.op("Transpose", [c.arg(0, "input").name], perm=perm))


@mapping("unsqueeze")
def _unsqueeze(c):
    d = c.arg(1, "dim")
    return Value(c.g.unsqueeze(c.arg(0, "input").name, [d % (c.rank() + 1)]))


@mapping("squeeze")
def _squeeze(c):
    shape = list(c.carg(0, "input").shape)
    dims = c.arg(1, "dim")
    dims = range(len(shape)) if dims is None else [d % len(shape) for d in _tuple(dims, 1)]
    axes = [d for d in dims if shape[d] == 1]
    return Value(c.g.squeeze(c.arg(0, "input").name, axes)) if axes else c.arg(0, "input")


def _shape_of(c):
    return Value(c.g.op("Shape", [c.arg(0, "input").name]))


@mapping("size")
def _size(c):
    d = c.arg(1, "dim")
    shape = _shape_of(c).name
    if d is None:
        return Value(shape)
    return Value(c.g.op("Gather", [shape, c.g.const(d % c.rank(), np.int64)], axis=0))


@mapping("getattr")
def _getattr(c):
    attr = c.args[1]
    if attr == "shape":
        return _shape_of(c)
    if attr in ("T", "mT") and c.rank() == 2:
        return Value(c.g.op("Transpose", [c.arg(0, "input").name], perm=[1, 0]))
    if attr in ("dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "data"):
        return c.arg(0, "input") if attr == "data" else c.out
    raise c.unsupported()


@mapping("getitem")
def _getitem(c):
    base, index = c.args[0], c.args[1]
    cbase = c.cargs[0]
    if not isinstance(base, Value):
        return base[index]
    items = list(index) if isinstance(index, tuple) else [index]
    if any(i is Ellipsis for i in items):
        at = items.index(Ellipsis)
        explicit = sum(1 for i in items if i is not None and i is not Ellipsis)
        rank = cbase.dim() if hasattr(cbase, "dim") else 1
        items[at:at + 1] = [slice(None)] * (rank - explicit)
    x, axis = base.name, 0
    for item in items:
        if item is None:
            x = c.g.unsqueeze(x, [axis])
            axis += 1
        elif isinstance(item, slice):
            if item == slice(None):
                axis += 1
                continue
            step = 1 if item.step is None else item.step
            start = item.start if item.start is not None else (0 if step > 0 else -1)
            stop = item.stop if item.stop is not None else (INT64_MAX if step > 0 else -INT64_MAX)
            bounds = [c.g.unsqueeze(b.name, [0]) if isinstance(b, Value) else c.g.ints([b]) for b in (start, stop)]
            x = c.g.op("Slice", [x] + bounds + [c.g.ints([axis]), c.g.ints([step])])
            axis += 1
        elif isinstance(item, int):
            x = c.g.op("Gather", [x, c.g.const(item, np.int64)], axis=axis)
        elif isinstance(item, Value) and np_dtype(_concrete_index(c, item)) != np.bool_:
            rank = _concrete_index(c, item).dim() if hasattr(_concrete_index(c, item), "dim") else 0
            x = c.g.op("Gather", [x, item.name], axis=axis)
            axis += rank
        else:
            raise c.unsupported()
    return Value(x)


def _concrete_index(c, item):
    index = c.cargs[1]
    if isinstance(index, tuple):
        return next(ci for i, ci in zip(c.args[1], index) if i is item)
    return index


@mapping("cat", "concat", "concatenate", "stack", "hstack", "vstack")
def _cat(c):
    tensors, ctensors = c.arg(0, "tensors"), c.carg(0, "tensors")
    rank = ctensors[0].dim()
    dtype = c.dtype()
    names = [_cast(c.g, as_input(c.g, t, dtype), np_dtype(ct), dtype) for t, ct in zip(tensors, ctensors)]
    if c.name == "stack":
        d = c.arg(1, "dim", 0) % (rank + 1)
        return Value(c.g.op("Concat", [c.g.unsqueeze(n, [d]) for n in names], axis=d))
    d = {"hstack": 1 if rank > 1 else 0, "vstack": 0}.get(c.name, c.arg(1, "dim", 0))
    return Value(c.g.op("Concat", names, axis=d % rank))


@mapping("chunk", "split", "unbind", "tensor_split")
def _split(c):
    outs = c.out
    axis_key, axis_pos = ("dim", 1) if c.name == "unbind" else ("dim", 2)
    d = c.arg(axis_pos, axis_key, 0) % c.rank()
    x = c.arg(0, "input").name
    if c.name == "unbind":
        parts = c.g.op("Split", [x, c.g.ints([1] * len(outs))], outputs=len(outs), axis=d) if len(outs) > 1 else [x]
        return tuple(Value(c.g.squeeze(p, [d])) for p in parts)
    sizes = [o.shape[d] for o in outs]
    if len(outs) == 1:
        return (Value(c.g.op("Identity", [x])),)
    return tuple(Value(n) for n in c.g.op("Split", [x, c.g.ints(sizes)], outputs=len(outs), axis=d))


@mapping("mean", "sum", "amax", "amin", "prod")
def _reduce(c):
    op_type = {"mean": "ReduceMean", "sum": "ReduceSum", "amax": "ReduceMax", "amin": "ReduceMin", "prod": "ReduceProd"}[c.name]
    rank = c.rank()
    dims = c.arg(1, "dim")
    axes = None if dims in (None, (), []) else [d % rank for d in _tuple(dims, 1)]
    x = c.arg(0, "input").name
    dtype = c.dtype()
    x = _cast(c.g, x, np_dtype(c.carg(0, "input")), dtype)
    return Value(c.g.reduce(op_type, x, axes, c.arg(2, "keepdim", False)))


@mapping("to", "type", "type_as", "float", "double", "half", "long", "int", "bool", "bfloat16")
def _convert(c):
    x = c.arg(0, "input")
    have, want = np_dtype(c.carg(0, "input")), np_dtype(c.out)
    return x if have == want else Value(c.g.op("Cast", [x.name], to=_onnx(want)))


@mapping("expand", "expand_as")
def _expand(c):
    if c.name == "expand_as":
        shape = c.g.op("Shape", [c.arg(1, "other").name])
    else:
        # -1 keeps the input's dim: Expand broadcasts a 1 to it.
        items = [1 if (not isinstance(i, Value) and i == -1) else i for i in _varargs(c, "size")]
        shape = shape_input(c.g, items)
    return Value(c.g.op("Expand", [c.arg(0, "input").name, shape]))


@mapping("masked_fill")
def _masked_fill(c):
    dtype = c.dtype()
    return Value(c.g.op("Where", [c.arg(1, "mask").name, as_input(c.g, c.arg(2, "value"), dtype), c.arg(0, "input").name]))


@mapping("where")
def _where(c):
    dtype = c.dtype()
    a, b = c.arg(1, "input"), c.arg(2, "other")
    ca, cb = c.carg(1, "input"), c.carg(2, "other")
    names = [_cast(c.g, as_input(c.g, v, dtype), np_dtype(cv), dtype) for v, cv in ((a, ca), (b, cb))]
    return Value(c.g.op("Where", [c.arg(0, "condition").name] + names))


@mapping("argmax", "argmin")
def _argmax(c):
    dim = c.arg(1, "dim")
    x = c.arg(0, "input").name
    keep = int(bool(c.arg(2, "keepdim", False)))
    if dim is None:
        x, dim = c.g.op("Reshape", [x, c.g.ints([-1])]), 0
    return Value(c.g.op("ArgMax" if c.name == "argmax" else "ArgMin", [x], axis=int(dim), keepdims=keep))
