"""Writes PyTorch's zip checkpoint format (what `torch.save` writes), so that files move both ways.

The archive `<name>/` holds `data.pkl` (a protocol-2 pickle of the object), one raw little-endian
entry `data/<key>` per storage, and the small records PyTorch 2.x writes (`version`, `byteorder`,
`.format_version`, `.storage_alignment`, `.data/serialization_id`), with every storage entry
starting at a multiple of 64 bytes as PyTorch aligns them for mmap loading.

In the pickle a tensor is a call of `torch._utils._rebuild_tensor_v2` on a storage persistent id
`('storage', torch.FloatStorage, key, 'cpu', numel)`, a Parameter a call of `_rebuild_parameter`,
and every class or function of rstorch is named by its PyTorch path (`rstorch.nn.modules.linear.Linear`
as `torch.nn.modules.linear.Linear`), so PyTorch reads the file and `rstorch.load` maps the names
back. Everything else is pickled as the `pickle` module does it.
"""
import collections
import io
import os
import pickle
import struct
import types
import zipfile

from . import _C

_ALIGNMENT = 64
_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage",
    "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
}


class _TorchName:
    """A global of PyTorch named in the pickle; never imported here (PyTorch need not be installed)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        # pickle's save_reduce wants a callable; this one only ever names PyTorch's function.
        raise TypeError(f"{self.module}.{self.name} is a name written into checkpoints, not a function")


_REBUILD_TENSOR = _TorchName("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _TorchName("torch._utils", "_rebuild_parameter")
_SIZE = _TorchName("torch", "Size")
_DEVICE = _TorchName("torch", "device")


def _torch_module(module):
    # rstorch's modules mirror PyTorch's paths (rstorch.nn.modules.linear <-> torch.nn.modules.linear).
    if module == "rstorch" or module.startswith("rstorch."):
        return "torch" + module[len("rstorch"):]
    return module


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


class _StorageRef:
    """One storage of the archive: the tensors that view one block of memory share it."""

    __slots__ = ("key", "dtype", "numel", "source", "numel_written")

    def __init__(self, key, dtype, source):
        self.key, self.dtype, self.source = key, dtype, source
        self.numel = 0
        self.numel_written = None  # what the first persistent id said


def _extent(t):
    """Elements of the storage from its start that `t` reaches."""
    if t.numel() == 0:
        return t.storage_offset()
    return t.storage_offset() + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1


class _Pickler(pickle._Pickler):
    """The pure-Python pickler, whose `save_global` can name rstorch's objects by PyTorch's paths
    without importing PyTorch (the C pickler checks every name by importing it)."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol, storages, numels):
        super().__init__(file, protocol)
        self.storages = storages      # (data_ptr of the storage's start, dtype) -> _StorageRef
        self.numels = numels          # key -> numel known from an earlier pass
        self.keep = []                # objects made while pickling, so their ids stay unique

    def _write_global(self, module, name, obj):
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)

    def save_torch_name(self, obj):
        self._write_global(obj.module, obj.name, obj)

    dispatch[_TorchName] = save_torch_name

    def save_global(self, obj, name=None):
        module = getattr(obj, "__module__", None)
        if isinstance(module, str) and (module == "rstorch" or module.startswith("rstorch.")):
            self._write_global(_torch_module(module), name or obj.__qualname__, obj)
        else:
            super().save_global(obj, name)

    # The copied table holds the base class's save_global for these; name them by PyTorch's paths.
    for _kind in (type, types.FunctionType, types.BuiltinFunctionType):
        dispatch[_kind] = save_global
    del _kind

    def persistent_id(self, obj):
        if type(obj) is not _StorageRef:
            return None
        numel = self.numels.get(obj.key, obj.numel)
        if obj.numel_written is None:
            obj.numel_written = numel
        storage_type = _TorchName("torch", _STORAGE_NAMES[_dtype_name(obj.dtype)])
        self.keep.append(storage_type)
        return ("storage", storage_type, obj.key, "cpu", numel)

    def storage_of(self, t):
        if t.device.type != "cpu":
            t = t.cpu()
            self.keep.append(t)
        itemsize = t.element_size()
        key = (t.data_ptr() - t.storage_offset() * itemsize, str(t.dtype))
        ref = self.storages.get(key)
        if ref is None:
            ref = self.storages[key] = _StorageRef(str(len(self.storages)), t.dtype, t)
        ref.numel = max(ref.numel, _extent(t))
        if _extent(t) > _extent(ref.source):
            ref.source = t
        return ref, t

    def reducer_override(self, obj):
        import rstorch
        if isinstance(obj, rstorch.Tensor):
            param = type(obj) is not rstorch.Tensor and _is_parameter(obj)
            if param:
                data = obj.detach()
                self.keep.append(data)
                return (_REBUILD_PARAMETER, (data, obj.requires_grad, collections.OrderedDict()))
            if obj.grad_fn is not None:
                raise RuntimeError(
                    "rstorch.save cannot store a tensor that is not a leaf of the autograd graph "
                    "(it has a grad_fn); save tensor.detach() instead")
            ref, t = self.storage_of(obj)
            return (_REBUILD_TENSOR, (ref, t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                                      obj.requires_grad, collections.OrderedDict()))
        if isinstance(obj, rstorch.Size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, rstorch.device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_DEVICE, args)
        if isinstance(obj, rstorch.dtype):
            # A string names a global of the object's module: `torch.float32` for rstorch.float32.
            return _dtype_name(obj)
        return NotImplemented


def _is_parameter(t):
    import sys
    param = sys.modules.get("rstorch.nn.parameter")
    return param is not None and isinstance(t, param.Parameter)


def _pickle(obj, protocol, numels):
    storages = {}
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol, storages, numels)
    pickler.dispatch_table = {}
    pickler.dump(obj)
    return buf.getvalue(), storages


def _dump(obj, protocol):
    pkl, storages = _pickle(obj, protocol, {})
    if any(ref.numel_written != ref.numel for ref in storages.values()):
        # A later view reached further into a storage than the first one: the first persistent id
        # declared too few elements. Pickle again, declaring every storage's whole extent.
        pkl, storages = _pickle(obj, protocol, {ref.key: ref.numel for ref in storages.values()})
    return pkl, storages


def _padded_info(name, offset):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    start = offset + 30 + len(name.encode("utf-8"))
    pad = -(start + 4) % _ALIGNMENT
    # An extra field of PyTorch's own id "FB" whose only purpose is to align the data after it.
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    return info


def archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        base = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return base or "archive"
    return "archive"


def save_zip(obj, name, protocol=2):
    """The bytes of a PyTorch zip checkpoint holding `obj`, its entries under `<name>/`."""
    pkl, storages = _dump(obj, protocol)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        def put(entry, data):
            full = f"{name}/{entry}"
            z.writestr(_padded_info(full, buf.tell()) if entry.startswith("data/") else
                       zipfile.ZipInfo(full, date_time=(1980, 1, 1, 0, 0, 0)), data)
        put("data.pkl", pkl)
        put(".format_version", b"1")
        put(".storage_alignment", str(_ALIGNMENT).encode())
        put("byteorder", b"little")
        for ref in storages.values():
            flat = ref.source.as_strided((ref.numel,), (1,), 0) if ref.numel else ref.source.new_empty((0,))
            put(f"data/{ref.key}", bytes(_C._tensor_bytes(flat.detach().contiguous())))
        put("version", b"3\n")
        # PyTorch records a random id per save, which it uses to tell checkpoints apart.
        put(".data/serialization_id", "".join(str(b % 10) for b in os.urandom(40)).encode())
    return buf.getvalue()
