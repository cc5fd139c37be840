"""How a DataLoader turns a list of samples into a batch (default_collate) or converts a single
sample (default_convert): PyTorch's rules, type by type."""
import collections.abc
import copy

import numpy as np

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def _rstorch():
    import rstorch
    return rstorch


def _is_string_array(arr):
    # Arrays of text or Python objects have no tensor form.
    return arr.dtype.kind in ("U", "S", "O")


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _rebuild_mapping(elem, values):
    if isinstance(elem, collections.abc.MutableMapping):
        # A copy keeps the mapping's own type and any attributes it carries.
        clone = copy.copy(elem)
        clone.update(values)
        return clone
    try:
        return type(elem)(values)
    except TypeError:
        return values


def _rebuild_sequence(elem, items):
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def _collate_tensor(batch, *, collate_fn_map=None):
    return _rstorch().stack(list(batch), 0)


def _collate_numpy_array(batch, *, collate_fn_map=None):
    if _is_string_array(batch[0]):
        raise TypeError(_ERR.format(batch[0].dtype))
    torch = _rstorch()
    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalar(batch, *, collate_fn_map=None):
    # Through one NumPy array: it keeps the scalars' dtype (int32 stays int32).
    return _rstorch().as_tensor(np.array(list(batch)))


def _collate_float(batch, *, collate_fn_map=None):
    torch = _rstorch()
    return torch.tensor(list(batch), dtype=torch.float64)


def _collate_int(batch, *, collate_fn_map=None):
    # bools are ints to Python: a batch of them becomes a bool tensor, as in PyTorch.
    return _rstorch().tensor(list(batch))


def _collate_str(batch, *, collate_fn_map=None):
    return batch


def _tensor_type():
    return _rstorch().Tensor


# Types looked up in order with isinstance; the first match collates the batch. Filled lazily so
# that importing this module does not import rstorch's core.
default_collate_fn_map = {}


def _default_map():
    if not default_collate_fn_map:
        default_collate_fn_map.update({
            _tensor_type(): _collate_tensor,
            np.ndarray: _collate_numpy_array,
            np.generic: _collate_numpy_scalar,
            float: _collate_float,
            int: _collate_int,
            str: _collate_str,
            bytes: _collate_str,
        })
    return default_collate_fn_map


def collate(batch, *, collate_fn_map=None):
    """Collates `batch` using the per-type functions of `collate_fn_map`, recursing into
    mappings and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                # numpy strings are np.generic but have no tensor form.
                if kind is np.generic and isinstance(elem, (np.str_, np.bytes_)):
                    continue
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch],
                                                    collate_fn_map=collate_fn_map)
                                       for key in elem})
    if _is_namedtuple(elem):
        return elem_type(*(collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        items = [collate(list(s), collate_fn_map=collate_fn_map) for s in transposed]
        if isinstance(elem, tuple):
            return items  # PyTorch returns tuples of fields as a list
        return _rebuild_sequence(elem, items)
    raise TypeError(_ERR.format(elem_type))


def default_collate(batch):
    """Stacks tensors and arrays, turns numbers into tensors, keeps strings, and recurses into
    dicts, namedtuples and sequences."""
    return collate(batch, collate_fn_map=_default_map())


def default_convert(data):
    """What a DataLoader does to each sample when automatic batching is off: NumPy arrays and
    scalars become tensors, containers are converted inside, everything else is kept."""
    torch = _rstorch()
    if isinstance(data, torch.Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if _is_string_array(data) else torch.as_tensor(data)
    if isinstance(data, np.generic):
        return data if isinstance(data, (np.str_, np.bytes_)) else torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
