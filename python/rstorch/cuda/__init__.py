"""`rstorch.cuda`: PyTorch's name for the GPU, served by the wgpu backend.

As PyTorch's ROCm build presents AMD GPUs as `cuda`, rstorch presents any real GPU that wgpu
reaches (Vulkan, Metal, DX12) as `cuda`: `cuda:N` is adapter `wgpu:N` (real GPUs lead wgpu's
list). A GPU emulated on the CPU (lavapipe, llvmpipe, SwiftShader) never counts: with no real GPU
`is_available()` is False and this namespace behaves as a CPU-only PyTorch build's does (seeding
is silently ignored, memory counters read 0, device queries raise "Torch not compiled with CUDA
enabled"). Tensors on the GPU report their device as `wgpu:N` (the backend's own name);
`Tensor.is_cuda` is True for them, so `device('cuda:0') != tensor.device`: compare `is_cuda` or
`device.type in ('cuda', 'wgpu')` instead.
"""
from .. import _C
from . import amp  # noqa: F401  (PyTorch's `torch.cuda.amp`)


def _not_compiled():
    return AssertionError("Torch not compiled with CUDA enabled")


def device_count():
    """How many real GPUs wgpu reaches (0 without one)."""
    return _C._cuda_device_count()


def is_available():
    """Whether a real GPU exists (an emulated one such as lavapipe never counts)."""
    return device_count() > 0


def is_initialized():
    return is_available()


def init():
    _ordinal(None)


def _ordinal(device):
    """The wgpu adapter `device` names, raising PyTorch's errors when there is no such GPU."""
    count = device_count()
    if count == 0:
        raise _not_compiled()
    if device is None:
        return 0
    if isinstance(device, int):
        index = device
    else:
        d = _C.device(device)
        if d.type not in ("cuda", "wgpu"):
            raise ValueError(f"Expected a cuda device, but got: {d}")
        index = d.index or 0
    if not 0 <= index < count:
        raise RuntimeError("CUDA error: invalid device ordinal")
    return index


def current_device():
    return _ordinal(None)


def set_device(device):
    """Only GPU 0 is current in rstorch; other ordinals are reached by name (`cuda:N`)."""
    _ordinal(device)


def get_device_name(device=None):
    return _C._wgpu_device_name(_ordinal(device))


def get_device_capability(device=None):
    """(0, 0): no CUDA compute capability, so programs that gate bfloat16 or fused kernels on
    `capability >= (8, 0)` take their portable path."""
    _ordinal(device)
    return (0, 0)


def get_device_properties(device=None):
    """The adapter's name (wgpu reports no CUDA-style properties beyond it)."""
    import types
    index = _ordinal(device)
    return types.SimpleNamespace(name=_C._wgpu_device_name(index), major=0, minor=0)


def synchronize(device=None):
    """Submits the queued kernels and waits for the GPU to finish them."""
    _C._wgpu_synchronize(_ordinal(device))


def is_bf16_supported(including_emulation=True):
    """False, as a CPU-only build answers: programs then choose float16 (or float32) for AMP."""
    return False


# ----- random numbers: one generator serves every device ---------------------------------------
# Without a GPU PyTorch queues these calls for a CUDA initialisation that never comes: they do
# nothing. With one, rstorch's GPU tensors draw from the global generator, which
# `rstorch.manual_seed` seeds, so these seed nothing more either.

def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def initial_seed():
    _ordinal(None)
    return _C.initial_seed()


# ----- memory: wgpu's buffer pool ----------------------------------------------------------------
# Without a GPU PyTorch reports an uninitialised allocator: empty statistics, zero bytes.

def memory_stats(device=None):
    if not is_available():
        return {}
    s = _C._wgpu_pool_stats(_ordinal(device))
    return {"allocated_bytes.all.current": s["bytes_in_use"],
            "reserved_bytes.all.current": s["bytes_in_use"] + s["bytes_cached"]}


def memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.current", 0)


# The pool keeps no peaks: the current values are the best bound it knows.
max_memory_allocated = memory_allocated
max_memory_reserved = memory_reserved
memory_cached = memory_reserved
max_memory_cached = max_memory_reserved


def reset_peak_memory_stats(device=None):
    pass


reset_max_memory_allocated = reset_max_memory_cached = reset_peak_memory_stats


def empty_cache():
    """Frees the pooled buffers no tensor holds (nothing to do without a GPU)."""
    for i in range(device_count()):
        _C._wgpu_empty_cache(i)


def __getattr__(name):
    # `torch.cuda.FloatTensor` and its kind (`_legacy_types.py`).
    from .._legacy_types import LEGACY_TYPES, legacy_type
    if name in LEGACY_TYPES:
        return legacy_type(name, cuda=True)
    raise AttributeError(f"module 'rstorch.cuda' has no attribute '{name}'")
