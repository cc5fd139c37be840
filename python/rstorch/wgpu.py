"""`rstorch.wgpu`: the GPU backend's device queries, as `torch.cuda` offers them for CUDA.

Tensors go to the GPU with `tensor.to("wgpu")` or `device="wgpu"` on any factory; `"wgpu:N"`
picks the N-th adapter (discrete GPUs first, software rasterisers such as lavapipe last).
"""
from . import _C


def _ordinal(device):
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    d = _C.device(device)
    if d.type != "wgpu":
        raise ValueError(f"Expected a wgpu device, but got: {d}")
    return d.index or 0


def is_built():
    """Whether this build of rstorch includes the wgpu backend."""
    return _C._wgpu_is_built()


def is_available():
    """Whether a wgpu adapter exists and its device opens (never raises)."""
    return _C._wgpu_is_available()


def device_count():
    """The number of wgpu adapters that can run compute shaders."""
    return _C._wgpu_device_count()


def current_device():
    return 0


def get_device_name(device=None):
    return _C._wgpu_device_name(_ordinal(device))


def supports_float16(device=None):
    """Whether the adapter offers float16 arithmetic in shaders (`shader-f16`)."""
    return _C._wgpu_supports_f16(_ordinal(device))


def supports_float64(device=None):
    """Whether the adapter offers float64 arithmetic in shaders (`shader-f64` with `shader-int64`);
    without them float64 tensors still move to and from the device, and ops on them raise."""
    return _C._wgpu_supports_f64(_ordinal(device))


def synchronize(device=None):
    """Submits the queued kernels and waits for the device to finish them."""
    _C._wgpu_synchronize(_ordinal(device))


def empty_cache(device=None):
    """Frees the buffers the pool keeps for reuse that no tensor holds."""
    _C._wgpu_empty_cache(_ordinal(device))


def memory_stats(device=None):
    """Buffer-pool counters (buffers created and reused, bytes in use and cached), reads back to
    the host (how many, and their bytes) and kernels launched."""
    return _C._wgpu_pool_stats(_ordinal(device))
