"""Reads PyTorch's zip checkpoints (what `torch.save` writes) without running code from them.

The archive holds `<name>/data.pkl`, a pickle of the object whose tensors point (through
persistent ids) at raw storages `<name>/data/<key>`. The pickle is read by a data-only unpickler:
`find_class` resolves only an allow-list of names, each to a function of this module that
rebuilds a tensor, a container or a plain value; every other global is refused before anything is
imported. Only those functions are ever called, and no opcode may modify a rebuilt tensor,
Parameter or storage. Sizes, strides and offsets are checked against the storage they view, and no
entry is read past what the archive can hold.
"""
import collections
import io
import pickle
import pickletools
import struct
import typing
import warnings
import zipfile
import zlib

from . import _C

# A deflate stream cannot expand more than this (its maximum ratio is about 1032:1); an entry
# declaring more is lying, and one declaring less is read only up to its declaration.
_MAX_DEFLATE_RATIO = 1100

# PyTorch's text, which tells the two ways out: weights_only=False, or allowing the global.
_REFUSED = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, \033[1mdo those "
    "steps only if you trust the source of the checkpoint\033[0m. \n\t(1) In PyTorch 2.6, we changed the default "
    "value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` "
    "with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. "
    "Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
    "`weights_only=True` please check the recommended steps in the following error message.\n\t"
    "WeightsUnpickler error: Unsupported global: GLOBAL {0} was not an allowed global by default. Please "
    "use `torch.serialization.add_safe_globals([{1}])` or the `torch.serialization.safe_globals([{1}])` "
    "context manager to allowlist this global if you trust this class/function.\n\nCheck the "
    "documentation of torch.load to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html.")


def _corrupt(msg):
    return pickle.UnpicklingError(f"rstorch.load: corrupt PyTorch checkpoint: {msg}")


class _Safe:
    """A callable the pickle may name. Immutable and state-less, so BUILD cannot alter it."""

    __slots__ = ("_fn", "_name")

    def __init__(self, fn, name):
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_name", name)

    def __call__(self, *args):
        return self._fn(*args)

    def __setattr__(self, name, value):
        raise pickle.UnpicklingError(f"rstorch.load: the checkpoint tries to modify {self._name}")

    def __setstate__(self, state):
        raise pickle.UnpicklingError(f"rstorch.load: the checkpoint tries to modify {self._name}")

    def __repr__(self):
        return f"<{self._name}>"


class _StorageType(_Safe):
    """`torch.FloatStorage` and friends: only their element type matters."""

    __slots__ = ("dtype",)

    def __init__(self, name, dtype):
        super().__init__(self._refuse, name)
        object.__setattr__(self, "dtype", dtype)

    def _refuse(self, *args):
        raise _corrupt(f"{self._name} is called directly")


class _Storage:
    """One storage of the archive: a 1-D tensor of its elements. Immutable, like `_Safe`."""

    __slots__ = ("flat", "dtype")

    def __init__(self, flat, dtype):
        object.__setattr__(self, "flat", flat)
        object.__setattr__(self, "dtype", dtype)

    def __setattr__(self, name, value):
        raise pickle.UnpicklingError("rstorch.load: the checkpoint tries to modify a storage")

    def __setstate__(self, state):
        raise pickle.UnpicklingError("rstorch.load: the checkpoint tries to modify a storage")


def _is_index(v):
    return type(v) is int and v >= 0


def _int_tuple(v, what):
    if not isinstance(v, (tuple, list)) or not all(_is_index(x) for x in v):
        raise _corrupt(f"{what} must be a tuple of non-negative ints, got {str(v)[:80]}")
    return list(v)


def _check_hooks(hooks):
    # Hooks would be functions, which this unpickler cannot build anyway; anything else is odd.
    if hooks is not None and (not isinstance(hooks, dict) or hooks):
        raise _corrupt("tensors with backward hooks are not supported")


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                    metadata=None):
    if not isinstance(storage, _Storage):
        raise _corrupt("a tensor is built from something that is not a storage")
    if not _is_index(storage_offset):
        raise _corrupt(f"invalid storage offset {storage_offset!r}")
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    if type(requires_grad) is not bool:
        raise _corrupt("requires_grad must be a bool")
    _check_hooks(backward_hooks)
    try:
        t = _C._strided_view(storage.flat, size, stride, storage_offset)
    except (RuntimeError, ValueError, OverflowError) as e:
        raise _corrupt(str(e)) from None
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    import rstorch
    from .nn.parameter import Parameter
    if not isinstance(data, rstorch.Tensor) or type(requires_grad) is not bool:
        raise _corrupt("invalid Parameter")
    _check_hooks(backward_hooks)
    if state:
        raise _corrupt("Parameters with extra Python attributes are not supported")
    return Parameter(data, requires_grad=requires_grad)


def _size(values=()):
    import rstorch
    if not isinstance(values, (tuple, list)) or not all(_is_index(v) for v in values):
        raise _corrupt("torch.Size holds non-negative ints only")
    return rstorch.Size(values)


def _device(*args):
    import rstorch
    if not 1 <= len(args) <= 2 or not isinstance(args[0], str):
        raise _corrupt("invalid torch.device")
    # Tensors are loaded into host memory, so the device a file names for itself reads as cpu.
    return rstorch.device("cpu")


def _ordered_dict(*args):
    if len(args) > 1:
        raise _corrupt("invalid OrderedDict")
    return collections.OrderedDict(*args)


def _encode(text, encoding="latin1"):
    # Protocol 2 pickles bytes as _codecs.encode(str, 'latin1'); nothing else may be encoded.
    if type(text) is not str or encoding != "latin1":
        raise _corrupt("_codecs.encode is allowed only to rebuild bytes")
    return text.encode("latin1")


def _plain(kind):
    # set([...]), frozenset, bytearray, complex, Counter: built from plain values only.
    def build(*args):
        try:
            return kind(*args)
        except (TypeError, ValueError, OverflowError) as e:
            raise _corrupt(f"invalid {kind.__name__}: {e}") from None
    return build


def _allowed():
    import rstorch
    d = rstorch
    storages = {
        "FloatStorage": d.float32, "DoubleStorage": d.float64, "HalfStorage": d.float16,
        "BFloat16Storage": d.bfloat16, "LongStorage": d.int64, "IntStorage": d.int32,
        "ShortStorage": d.int16, "CharStorage": d.int8, "ByteStorage": d.uint8, "BoolStorage": d.bool,
    }
    allowed = {("torch", name): _StorageType(f"torch.{name}", dt) for name, dt in storages.items()}
    # A dtype names itself as a global of `torch` (torch.float16 pickles as GLOBAL torch float16).
    for name in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
                 "bool", "float", "double", "half", "long", "int", "short"):
        allowed[("torch", name)] = getattr(d, name)
    for key, fn in {
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
        ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
        ("torch", "Size"): _size,
        ("torch", "device"): _device,
        ("collections", "OrderedDict"): _ordered_dict,
        ("collections", "Counter"): _plain(collections.Counter),
        ("_codecs", "encode"): _encode,
        # PyTorch's allowlist has set, bytearray and complex; frozenset is as inert as set.
        **{(mod, kind.__name__): _plain(kind) for mod in ("builtins", "__builtin__")
           for kind in (set, frozenset, bytearray, complex)},
    }.items():
        allowed[key] = _Safe(fn, ".".join(key))
    return allowed


class _Archive:
    """Bounded reads of the entries of the checkpoint's zip archive."""

    def __init__(self, data):
        self.size = len(data)
        try:
            self.zf = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
                NotImplementedError) as e:  # NotImplementedError: an unknown zip version
            raise _corrupt(f"not a readable zip archive ({e})") from None
        pkl = [n for n in self.zf.namelist() if n == "data.pkl" or n.endswith("/data.pkl")]
        if not pkl:
            raise _corrupt("the archive has no data.pkl")
        self.prefix = min(pkl, key=len)[: -len("data.pkl")]

    def read(self, name):
        try:
            info = self.zf.getinfo(self.prefix + name)
        except KeyError:
            raise _corrupt(f"the archive has no entry {self.prefix + name!r}") from None
        if info.compress_size > self.size:
            raise _corrupt(f"entry {info.filename!r} is larger than the archive")
        if info.compress_type == zipfile.ZIP_STORED:
            limit = info.compress_size
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            limit = info.compress_size * _MAX_DEFLATE_RATIO + 64
        else:
            raise _corrupt(f"entry {info.filename!r} uses an unsupported compression method")
        if info.file_size > limit:
            raise _corrupt(f"entry {info.filename!r} declares {info.file_size} bytes, more than it can hold")
        try:
            with self.zf.open(info) as fh:
                # ZipExtFile stops at the declared size and checks the CRC at the end.
                data = fh.read(info.file_size + 1)
        # zlib.error: a damaged deflate stream (found by the bit-flip test).
        except (zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError, NotImplementedError,
                RuntimeError) as e:
            raise _corrupt(f"entry {info.filename!r} is unreadable ({e})") from None
        if len(data) != info.file_size:
            raise _corrupt(f"entry {info.filename!r} does not hold its declared {info.file_size} bytes")
        return data


def _refuse_opcode(opcode, what, target):
    raise pickle.UnpicklingError(
        f"Weights only load failed. Can only {opcode} {what}, but got {type(target)}: rstorch.load never "
        "lets a file modify the tensors, storages or callables it has rebuilt.")


def _load_build(self):
    # BUILD sets an object's state: PyTorch's state dicts use it only to give an OrderedDict its
    # `_metadata` attribute. On a tensor, Parameter or storage it could rewrite what the file's
    # other records already declared (a `set_` to another geometry, `data`, `grad`), so only an
    # OrderedDict may be built, and only with a dict of attribute names.
    inst = self.stack[-2]
    if type(inst) in self.user_types:
        # A class the user allowed with add_safe_globals sets its state as pickle does.
        return pickle._Unpickler.dispatch[pickle.BUILD[0]](self)
    state = self.stack.pop()
    if type(inst) is not collections.OrderedDict:
        _refuse_opcode("BUILD", "an OrderedDict (a state dict's _metadata)", inst)
    if type(state) is not dict or not all(type(k) is str for k in state):
        raise _corrupt("an OrderedDict's state must be a dict of attribute names")
    inst.__dict__.update(state)


def _check_item_target(self, opcode):
    target = self.stack[-1]
    if type(target) not in (dict, collections.OrderedDict):
        _refuse_opcode(opcode, "for dict, collections.OrderedDict", target)


def _load_setitem(self):
    value = self.stack.pop()
    key = self.stack.pop()
    _check_item_target(self, "SETITEM")
    self.stack[-1][key] = value


def _load_setitems(self):
    items = self.pop_mark()
    _check_item_target(self, "SETITEMS")
    target = self.stack[-1]
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _check_list_target(self, opcode):
    if type(self.stack[-1]) is not list:
        _refuse_opcode(opcode, "to lists", self.stack[-1])


def _load_append(self):
    value = self.stack.pop()
    _check_list_target(self, "APPEND")
    self.stack[-1].append(value)


def _load_appends(self):
    items = self.pop_mark()
    _check_list_target(self, "APPENDS")
    self.stack[-1].extend(items)


def _load_reduce(self):
    # Only the allowed rebuild functions may be called (a dtype or a tensor on the stack may not).
    args = self.stack.pop()
    func = self.stack[-1]
    if not isinstance(func, _Safe) and not any(func is g for g in self.user_globals.values()):
        raise pickle.UnpicklingError(f"Weights only load failed. Trying to call reduce for unrecognized "
                                     f"function {str(func)[:80]}")
    self.stack[-1] = func(*args)


def _load_newobj(self):
    # Protocol 2 writes complex (and classes allowed with add_safe_globals) as NEWOBJ.
    args = self.stack.pop()
    cls = self.stack[-1]
    if isinstance(cls, _Safe):
        self.stack[-1] = cls(*args)
    elif cls in self.user_types:
        self.stack[-1] = cls.__new__(cls, *args)
    else:
        raise pickle.UnpicklingError(f"Weights only load failed. NEWOBJ of {str(cls)[:80]} is not allowed")


class _DataOnlyUnpickler(pickle._Unpickler):
    """The pure-Python unpickler, whose opcodes can be replaced one by one: REDUCE calls only the
    allowed functions, and the opcodes that modify an object already on the stack (BUILD,
    SETITEM(S), APPEND(S)) accept only the containers a checkpoint is made of, as PyTorch's
    weights-only unpickler does."""

    dispatch: typing.ClassVar[dict] = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.REDUCE[0]] = _load_reduce
    dispatch[pickle.BUILD[0]] = _load_build
    dispatch[pickle.SETITEM[0]] = _load_setitem
    dispatch[pickle.SETITEMS[0]] = _load_setitems
    dispatch[pickle.APPEND[0]] = _load_append
    dispatch[pickle.APPENDS[0]] = _load_appends
    dispatch[pickle.NEWOBJ[0]] = _load_newobj

    def __init__(self, data, archive, allowed, user_globals=None):
        super().__init__(io.BytesIO(data))
        self.archive, self.allowed, self.storages = archive, allowed, {}
        # "module.name" -> object: what add_safe_globals / safe_globals allowed besides the defaults.
        self.user_globals = user_globals or {}
        self.user_types = {g for g in self.user_globals.values() if isinstance(g, type)}

    def find_class(self, module, name):
        try:
            return self.allowed[(module, name)]
        except (KeyError, TypeError):
            pass
        found = self.user_globals.get(f"{module}.{name}")
        if found is None:
            raise pickle.UnpicklingError(_REFUSED.format(f"{module}.{name}", f"{module}.{name}"))
        return found

    def persistent_load(self, pid):
        return _persistent_load(self, pid)


def _persistent_load(self, pid):
    """A storage record of the archive, read once per key (views of one storage share it)."""
    if not isinstance(pid, tuple) or len(pid) != 5 or pid[0] != "storage":
        raise _corrupt(f"unsupported persistent id {str(pid)[:80]}")
    _, storage_type, key, location, numel = pid
    if not isinstance(storage_type, _StorageType):
        raise _corrupt(f"unsupported storage type {str(storage_type)[:80]}")
    if not isinstance(key, str) or not isinstance(location, str) or not _is_index(numel):
        raise _corrupt(f"invalid storage record {str(pid)[:80]}")
    dtype = storage_type.dtype
    if key in self.storages:
        storage = self.storages[key]
        if storage.dtype != dtype:
            raise _corrupt(f"storage {key!r} is read as two different dtypes")
        return storage
    data = self.archive.read(f"data/{key}")
    if len(data) != numel * dtype.itemsize:
        raise _corrupt(f"storage {key!r} should hold {numel} {dtype} elements but has {len(data)} bytes")
    storage = _Storage(_C._storage_from_bytes(data, dtype), dtype)
    self.storages[key] = storage
    return storage


_SIZED = {"PUT", "BINPUT", "LONG_BINPUT", "FRAME"}


def _prescan(data):
    """Walks the opcodes once before the unpickler sees them. The unpickler allocates what the
    pickle declares up front (a bytes object's length, a memo table up to the largest index), so
    every declared length must fit in the pickle and memo indices may not exceed its size."""
    try:
        with warnings.catch_warnings():
            # Decoding a damaged protocol-0 string warns about its escapes; the error is enough.
            warnings.simplefilter("ignore", DeprecationWarning)
            for op, arg, _ in pickletools.genops(io.BytesIO(data)):
                if op.name in _SIZED and arg > len(data):
                    raise ValueError(f"{op.name} {arg} exceeds the pickle's {len(data)} bytes")
    except Exception as e:  # genops raises ValueError and others on malformed input
        raise _corrupt(f"malformed pickle ({type(e).__name__}: {e})") from None


class _FullUnpickler(pickle.Unpickler):
    """weights_only=False: an ordinary unpickler, which runs whatever the file names (only ever on
    the user's explicit request). PyTorch's names resolve to rstorch's objects of the same path."""

    def __init__(self, data, archive, allowed, **kwargs):
        super().__init__(io.BytesIO(data), **kwargs)
        self.archive, self.allowed, self.storages = archive, allowed, {}

    def find_class(self, module, name):
        if module == "torch" or module.startswith("torch."):
            if (module, name) in self.allowed:
                return self.allowed[(module, name)]
            module = "rs" + module
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return _persistent_load(self, pid)


def load_zip(data, weights_only=True, user_globals=None, pickle_load_args=None):
    archive = _Archive(data)
    order = archive.zf.namelist()
    if archive.prefix + "byteorder" in order and archive.read("byteorder") != b"little":
        raise _corrupt("big-endian checkpoints are not supported")
    pkl = archive.read("data.pkl")
    _prescan(pkl)
    if weights_only:
        unpickler = _DataOnlyUnpickler(pkl, archive, _allowed(), user_globals)
    else:
        unpickler = _FullUnpickler(pkl, archive, _allowed(), **(pickle_load_args or {}))
    try:
        return unpickler.load()
    except pickle.UnpicklingError:
        raise
    except (EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError,
            RuntimeError, MemoryError, struct.error) as e:
        raise _corrupt(f"{type(e).__name__}: {e}") from None
