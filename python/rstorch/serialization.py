"""`rstorch.save` and `rstorch.load`, interoperable with PyTorch's `torch.save` / `torch.load`.

`save` writes PyTorch's zip checkpoint format (`_zip_save.py`) for any picklable object; `load`
reads it (`_torch_checkpoint.py`) weights-only by default, as PyTorch 2.6+ does. `.safetensors`
paths, and the safetensors files earlier rstorch versions wrote (tensors as safetensors entries,
the structure around them as JSON in `__metadata__`), keep their own data-only format here.
"""
import json
import os
import pickle
import sys

from . import _C

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

# The metadata keys of a file written by `save`. "format": "pt" is what other safetensors
# writers put there for PyTorch tensors.
_STRUCTURE_KEY = "rstorch.structure"
_VERSION_KEY = "rstorch.version"
_VERSION = "1"
_SAFETENSORS_MIN = 8  # the header length prefix


class _Encoder:
    """Turns an object into JSON-able data, collecting its tensors under unique names."""

    def __init__(self):
        self.tensors = []           # (name, tensor) in the order met
        self.names = {}             # id(tensor) -> name; the tensors list keeps the ids alive
        self.used = set()
        self.active = set()         # ids of the containers being encoded, to refuse cycles

    def tensor_name(self, obj, path):
        name = ".".join(path) or "tensor"
        candidate, n = name, 1
        # "__metadata__" is the safetensors header's own entry.
        while candidate in self.used or candidate == "__metadata__":
            candidate, n = f"{name}#{n}", n + 1
        self.used.add(candidate)
        return candidate

    def encode(self, obj, path=()):
        import rstorch
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            return float(obj)
        if isinstance(obj, rstorch.Tensor):
            name = self.names.get(id(obj))
            if name is None:
                name = self.tensor_name(obj, path)
                self.names[id(obj)] = name
                self.tensors.append((name, obj))
            rec = {"@": "tensor", "key": name}
            if obj.requires_grad:
                rec["requires_grad"] = True
            # Parameters exist only once rstorch.nn is imported; no need to import it here.
            param = sys.modules.get("rstorch.nn.parameter")
            if param is not None and isinstance(obj, param.Parameter):
                rec["parameter"] = True
            return rec
        if isinstance(obj, rstorch.dtype):
            return {"@": "dtype", "name": str(obj).removeprefix("rstorch.").removeprefix("torch.")}
        if isinstance(obj, rstorch.device):
            return {"@": "device", "name": str(obj)}
        if not isinstance(obj, (list, tuple, dict, set, frozenset)):
            raise TypeError(
                f"rstorch.save cannot store an object of type {type(obj).__qualname__} (at "
                f"{'/'.join(path) or 'the top level'}): files hold tensors, dicts, lists, tuples, "
                "sets and plain values (int, float, bool, str, None) only, never code")
        if id(obj) in self.active:
            raise ValueError("rstorch.save cannot store a container that contains itself")
        self.active.add(id(obj))
        try:
            if isinstance(obj, rstorch.Size):
                return {"@": "size", "items": [self.encode(v, path) for v in obj]}
            if isinstance(obj, list):
                return [self.encode(v, path + (str(i),)) for i, v in enumerate(obj)]
            if isinstance(obj, tuple):
                return {"@": "tuple", "items": [self.encode(v, path + (str(i),)) for i, v in enumerate(obj)]}
            if isinstance(obj, (set, frozenset)):
                kind = "set" if isinstance(obj, set) else "frozenset"
                return {"@": kind, "items": [self.encode(v, path) for v in obj]}
            import collections
            rec = {"@": "odict" if isinstance(obj, collections.OrderedDict) else "dict",
                   "items": [[self.encode(k, path), self.encode(v, path + (str(k),))] for k, v in obj.items()]}
            meta = getattr(obj, "_metadata", None)
            if meta is not None:
                # Module.state_dict() records per-module versions there, as PyTorch does.
                rec["metadata"] = self.encode(meta, path + ("_metadata",))
            return rec
        finally:
            self.active.discard(id(obj))


def _DTYPES():
    import rstorch
    return [rstorch.bool, rstorch.uint8, rstorch.int8, rstorch.int16, rstorch.int32, rstorch.int64,
            rstorch.float16, rstorch.bfloat16, rstorch.float32, rstorch.float64]


class _Decoder:
    """Rebuilds an object from the JSON `save` wrote. The JSON is untrusted: every shape is checked."""

    def __init__(self, tensors):
        self.tensors = tensors
        self.made = {}  # key -> the tensor object, so a tensor stored once is one object again

    def tensor(self, rec):
        key = rec["key"]
        if not isinstance(key, str) or key not in self.tensors:
            raise ValueError(f"it refers to a tensor {key!r} the file does not hold")
        want = (bool(rec.get("requires_grad", False)), bool(rec.get("parameter", False)))
        if key in self.made:
            t, made_as = self.made[key]
            if made_as != want:
                raise ValueError(f"tensor {key!r} is referred to in two different ways")
            return t
        t = self.tensors[key]
        requires_grad, parameter = want
        if parameter:
            from .nn.parameter import Parameter
            t = Parameter(t, requires_grad=requires_grad)
        elif requires_grad:
            t.requires_grad_(True)
        self.made[key] = (t, want)
        return t

    def decode(self, obj):
        import rstorch
        if obj is None or isinstance(obj, (bool, str, int, float)):
            return obj
        if isinstance(obj, list):
            return [self.decode(v) for v in obj]
        if not isinstance(obj, dict):
            raise ValueError(f"unexpected JSON value {obj!r}")
        kind = obj.get("@")
        if kind == "tensor":
            return self.tensor(obj)
        if kind == "dtype":
            dtypes = {str(d).split(".")[-1]: d for d in _DTYPES()}
            name = obj["name"]
            if not isinstance(name, str) or name not in dtypes:
                raise ValueError(f"unknown dtype {name!r}")
            return dtypes[name]
        if kind == "device":
            return rstorch.device(str(obj["name"]))
        items = obj.get("items")
        if not isinstance(items, list):
            raise ValueError(f"unknown record {str(obj)[:80]!r}")
        if kind == "tuple":
            return tuple(self.decode(v) for v in items)
        if kind == "size":
            values = [self.decode(v) for v in items]
            if not all(type(v) is int and v >= 0 for v in values):
                raise ValueError("a Size holds non-negative ints only")
            return rstorch.Size(values)
        if kind == "set":
            return {self.decode(v) for v in items}
        if kind == "frozenset":
            return frozenset(self.decode(v) for v in items)
        if kind in ("dict", "odict"):
            import collections
            out = collections.OrderedDict() if kind == "odict" else {}
            for pair in items:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ValueError("a dict entry is not a [key, value] pair")
                out[self.decode(pair[0])] = self.decode(pair[1])
            if "metadata" in obj:
                out._metadata = self.decode(obj["metadata"])
            return out
        raise ValueError(f"unknown record kind {kind!r}")


def _check_map_location(map_location):
    """Every rstorch tensor lives in host memory; accept the ways of saying 'cpu'."""
    if map_location is None or callable(map_location) and not isinstance(map_location, (str, dict)):
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        name = str(target)
        if name.split(":")[0] != "cpu":
            raise RuntimeError(
                f"rstorch.load: cannot map tensors to {name!r}; rstorch loads tensors into CPU memory "
                "(map_location=None or 'cpu')")


def _read_bytes(f):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read()
    if not hasattr(f, "read"):
        raise TypeError(f"expected a path or a binary file object, got {type(f).__qualname__}")
    data = f.read()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("rstorch.load needs a file opened in binary mode")
    return bytes(data)


def _write_bytes(f, data):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"expected a path or a binary file object, got {type(f).__qualname__}")
    f.write(data)
    if hasattr(f, "flush"):
        f.flush()


def _save_safetensors(obj, f):
    enc = _Encoder()
    structure = enc.encode(obj)
    metadata = {
        "format": "pt",
        _VERSION_KEY: _VERSION,
        _STRUCTURE_KEY: json.dumps(structure, ensure_ascii=False, separators=(",", ":")),
    }
    _write_bytes(f, _C._safetensors_save(enc.tensors, metadata))


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Saves any picklable `obj` to a path or a binary file object in PyTorch's zip checkpoint
    format (`_zip_save.py`), which PyTorch's `torch.load` reads. A path ending in `.safetensors`
    gets a safetensors file instead (tensors, containers and plain values only)."""
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors"):
        _save_safetensors(obj, f)
        return
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "rstorch.save writes PyTorch's zip format only; _use_new_zipfile_serialization=False "
            "(PyTorch's legacy pre-1.6 format) is not supported")
    if pickle_module is not pickle:
        raise NotImplementedError("rstorch.save pickles with the standard pickle module only")
    from . import _zip_save
    _write_bytes(f, _zip_save.save_zip(obj, _zip_save.archive_name(f), pickle_protocol))


def _load_safetensors(data):
    tensors, metadata = _C._safetensors_load(data)
    structure = metadata.get(_STRUCTURE_KEY)
    if structure is None:
        # A safetensors file from elsewhere: its tensors by name, in the order they are stored.
        return tensors
    version = metadata.get(_VERSION_KEY)
    if version != _VERSION:
        raise RuntimeError(f"rstorch.load: unsupported rstorch file version {version!r}")
    try:
        return _Decoder(tensors).decode(json.loads(structure))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        # ValueError covers invalid JSON; TypeError unhashable keys; KeyError missing fields.
        raise RuntimeError(f"rstorch.load: invalid rstorch file structure: {e}") from None


def _looks_like_safetensors(data):
    # The 8-byte little-endian header length is followed by the JSON header.
    return len(data) > _SAFETENSORS_MIN and data[_SAFETENSORS_MIN:_SAFETENSORS_MIN + 1] == b"{"


# What add_safe_globals allowed: objects, or (object, "module.name") pairs naming them as files do.
_SAFE_GLOBALS = []


def add_safe_globals(safe_globals):
    """Allows these classes and functions in `load(..., weights_only=True)`, as PyTorch's does."""
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals():
    """The objects (or (object, name) pairs) allowed by `add_safe_globals`."""
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    """Forgets every global `add_safe_globals` allowed."""
    _SAFE_GLOBALS.clear()


class safe_globals:
    """Context manager: `safe_globals` are allowed in weights-only loads within the block."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self.saved = list(_SAFE_GLOBALS)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _SAFE_GLOBALS[:] = self.saved


def _user_globals():
    """"module.name" -> object for every allowed global, under rstorch's name and PyTorch's."""
    from ._zip_save import _torch_module
    out = {}
    for entry in _SAFE_GLOBALS:
        if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], str):
            out[entry[1]] = entry[0]
            continue
        module, name = getattr(entry, "__module__", None), getattr(entry, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(name, str):
            raise TypeError(f"add_safe_globals: {entry!r} is not a class or function; pass (obj, 'module.name')")
        out[f"{module}.{name}"] = entry
        out[f"{_torch_module(module)}.{name}"] = entry
    return out


_TRUE = ("1", "y", "yes", "true")


def _weights_only(weights_only, pickle_module):
    """PyTorch's rule: weights-only unless the caller (or TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD) opts out."""
    if os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "").lower() in _TRUE:
        return True
    if os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "").lower() in _TRUE:
        return False
    if weights_only is None:
        return pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    return bool(weights_only)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Loads what `save` wrote, a PyTorch zip checkpoint (`torch.save`) or a safetensors file, from a
    path or a binary file object.

    As in PyTorch, loading is weights-only by default: a data-only unpickler rebuilds tensors,
    containers and plain values, plus the globals allowed with `add_safe_globals`, and refuses
    every other global with `pickle.UnpicklingError` before importing it. `weights_only=False` (or
    TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1) unpickles fully, which runs code the file names: only for
    trusted files."""
    weights_only = _weights_only(weights_only, pickle_module)
    _check_map_location(map_location)
    data = _read_bytes(f)
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        from . import _torch_checkpoint
        return _torch_checkpoint.load_zip(data, weights_only, _user_globals() if weights_only else None,
                                          pickle_load_args)
    if _looks_like_safetensors(data):
        return _load_safetensors(data)
    if data[:1] == b"\x80":
        raise pickle.UnpicklingError(
            "Weights only load failed: the file is a bare pickle (or PyTorch's legacy pre-1.6 format), "
            "which rstorch.load does not read because unpickling it could run code. Re-save it with "
            "torch.save from PyTorch 1.6 or later (zip format) or with rstorch.save.")
    if len(data) < _SAFETENSORS_MIN:
        raise RuntimeError(f"rstorch.load: the file is truncated ({len(data)} bytes)")
    raise RuntimeError("rstorch.load: not an rstorch, safetensors or PyTorch checkpoint file")
