"""The legacy tensor types (`torch.FloatTensor`, `torch.cuda.LongTensor`, ...) and `Tensor.type`,
which converts to a dtype, to one of those types or to a type's name ('torch.FloatTensor').
Programs written before dtypes existed still pick their tensor kind this way:
`Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor; x.type(Tensor)`."""
import builtins

from . import _C
from ._size import Size

Tensor = _C.Tensor
LEGACY_TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                "BFloat16Tensor": "bfloat16", "ByteTensor": "uint8", "CharTensor": "int8", "ShortTensor": "int16",
                "IntTensor": "int32", "LongTensor": "int64", "BoolTensor": "bool"}


class _LegacyType(type):
    """Calling one makes a tensor of its dtype on its device (from sizes or from data), and
    `isinstance(t, torch.FloatTensor)` tests a tensor's dtype and device."""

    def __instancecheck__(cls, obj):
        if not isinstance(obj, Tensor) or obj.dtype is not cls.dtype:
            return False
        return obj.is_cuda if cls.is_cuda else obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        if cls.is_cuda:
            # rstorch.cuda.is_available(), read from the core: rstorch.cuda imports this module.
            if _C._cuda_device_count() == 0:
                # What PyTorch's CPU-only build says (rstorch.cuda behaves as that build without a GPU).
                raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled with CUDA enabled.")
            return cls._on_cpu(args).cuda(device)
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {device} was passed")
        return cls._on_cpu(args)

    def _on_cpu(cls, args):
        if len(args) == 1 and isinstance(args[0], Tensor):
            return args[0].to(cls.dtype)
        if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
            return _C.empty(*args, dtype=cls.dtype) if args else _C.empty(0, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], Size):
            return _C.empty(*args[0], dtype=cls.dtype)
        if len(args) == 1:
            return _C.tensor(args[0], dtype=cls.dtype)
        raise TypeError(f"new() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}")


_made = {}


def legacy_type(name, cuda=False):
    """`rstorch.<name>` (cuda=False) or `rstorch.cuda.<name>`, one class object per name."""
    key = (name, cuda)
    if key not in _made:
        _made[key] = _LegacyType(name, (), {"dtype": getattr(_C, LEGACY_TYPES[name]), "is_cuda": cuda,
                                            "__module__": "rstorch.cuda" if cuda else "rstorch"})
    return _made[key]


def _named_type(name):
    """The legacy type a name such as 'torch.FloatTensor' or 'torch.cuda.LongTensor' gives (the
    'rstorch.' spelling that `Tensor.type()` returns too)."""
    parts = name.split(".")
    cuda = len(parts) == 3 and parts[1] == "cuda"
    if parts[0] in ("torch", "rstorch") and (len(parts) == 2 or cuda) and parts[-1] in LEGACY_TYPES:
        return legacy_type(parts[-1], cuda)
    raise ValueError(f"invalid type: '{name}'")


_core_type = Tensor.type


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """The type's name without an argument; else `self` converted to a dtype, a legacy type or a
    type's name (`self` itself when nothing changes)."""
    if dtype is None:
        name = _core_type(self)
        return name.replace("rstorch.", "rstorch.cuda.", 1) if self.is_cuda else name
    if isinstance(dtype, str):
        dtype = _named_type(dtype)
    elif dtype is Tensor:
        dtype = legacy_type("FloatTensor")
    if not isinstance(dtype, _LegacyType):
        return _core_type(self, dtype, non_blocking)
    out = _core_type(self, dtype.dtype, non_blocking)
    return out.cuda() if dtype.is_cuda else out.cpu()


def install():
    Tensor.type = _type
