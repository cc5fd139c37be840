"""Moving a `Module` between devices and dtypes: the parsing of `Module.to`'s arguments, and the
placement of a module built on the CPU for layer constructors' `device=`."""
from ... import _C

Tensor = _C.Tensor


def _parse_to(*args, **kwargs):
    """Splits `Module.to`'s arguments into (device, dtype, non_blocking)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    args = list(args)
    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
        device, dtype = other.device, other.dtype
    elif args and isinstance(args[0], _C.dtype):
        dtype = args.pop(0)
    elif args and isinstance(args[0], (str, _C.device, int)):
        device = args.pop(0)
        if args and isinstance(args[0], _C.dtype):
            dtype = args.pop(0)
    if args and isinstance(args[0], bool):
        non_blocking = args.pop(0)
    if args:
        raise TypeError(f"to() received an invalid combination of arguments: {args!r}")
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device)
    return device, dtype, non_blocking


def _place(module, device):
    """Puts a module built and initialised on the CPU onto `device` (constructors' `device=`):
    initialisers run on the CPU, where every one has a kernel."""
    if device is not None:
        module.to(device)
