"""`rstorch.amp`: automatic mixed precision, with PyTorch's names and its disabled semantics.

rstorch computes in each tensor's own dtype: an enabled `autocast` region runs its ops in full
precision (a valid result, more precise than PyTorch's lower-precision casts), and on a device
PyTorch cannot autocast (`cuda` without a GPU) it warns and disables itself as PyTorch does.
`GradScaler` without a GPU is disabled as PyTorch's is: `scale` returns its input, `step` calls
`optimizer.step()`, `get_scale()` is 1.0.
"""
import functools
import warnings

from .. import _C

_DEFAULT_DTYPES = {"cpu": _C.bfloat16, "cuda": _C.float16, "wgpu": _C.float16}
_state = {"enabled": {}, "dtype": dict(_DEFAULT_DTYPES)}


def _cuda_available():
    return _C._cuda_device_count() > 0


def is_autocast_available(device_type):
    return device_type in _DEFAULT_DTYPES


def is_autocast_enabled(device_type="cuda"):
    return _state["enabled"].get(device_type, False)


def get_autocast_dtype(device_type):
    return _state["dtype"][device_type]


class autocast:
    """Context manager and decorator: `with autocast(device_type='cpu', enabled=False): ...`."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        if enabled and device_type == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)

    def __enter__(self):
        self._prev = (_state["enabled"].get(self.device, False), _state["dtype"][self.device])
        _state["enabled"][self.device] = self._enabled
        _state["dtype"][self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc):
        _state["enabled"][self.device], _state["dtype"][self.device] = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


from .grad_scaler import GradScaler  # noqa: E402  (it imports this module's helpers)

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd", "is_autocast_available"]
