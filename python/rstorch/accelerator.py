"""`rstorch.accelerator`: the current accelerator, a real GPU reached as `cuda` (none without
one, as PyTorch's CPU-only build)."""
from . import _C


def device_count():
    return _C._cuda_device_count()


def is_available():
    return device_count() > 0


def current_accelerator(check_available=False):
    """`device('cuda')` when a real GPU exists, else None as in PyTorch's CPU-only build."""
    return _C.device("cuda") if is_available() else None


def current_device_index():
    from . import cuda
    return cuda.current_device()


def synchronize(device=None):
    from . import cuda
    cuda.synchronize(device)
