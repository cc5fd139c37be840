"""CPU tensors in POSIX shared memory, and how they travel between processes.

`Tensor.share_memory_()` copies the tensor's elements into a `multiprocessing.shared_memory`
segment and re-points the tensor at it in place (`set_` over a NumPy view, which rstorch reads
and writes without copying), so everything that updates the tensor in place afterwards (an
optimizer's step included) writes the shared pages. When multiprocessing pickles a tensor
(process arguments, queues), the reducer registered here sends the segment's name and geometry
instead of the elements, and the receiving process maps the same segment: the two processes then
see one set of numbers, as with PyTorch's CPU sharing. That is what hogwild training needs.

The process that created a segment unlinks its name at exit; mappings that are still open keep
the memory alive until they close, as POSIX shared memory does.
"""
import atexit

from . import _C

# id of a segment's first byte -> (SharedMemory, its NumPy byte view). Held for the life of the
# process: closing the mapping under a live tensor would leave it pointing at unmapped memory.
_SEGMENTS = {}
_CREATED = []
_registered = False


def _segment_of(tensor):
    ptr = tensor.data_ptr()
    for base, (shm, _) in _SEGMENTS.items():
        if base <= ptr < base + shm.size:
            return base, shm
    return None, None


def is_shared(self):
    """Whether the tensor's elements live in a shared-memory segment."""
    return _segment_of(self)[1] is not None


def _numpy_dtype(dtype):
    import numpy as np

    if dtype == _C.bfloat16:
        raise RuntimeError("share_memory_: bfloat16 tensors cannot be shared (NumPy has no bfloat16)")
    return np.empty(0, dtype=_C.empty(0, dtype=dtype).numpy().dtype).dtype


def share_memory_(self):
    """Moves the elements to shared memory in place (a no-op when already shared); returns self.
    A view is moved on its own (its elements, contiguous), not with the rest of its base's storage."""
    if is_shared(self):
        return self
    if self.device.type != "cpu":
        return self  # as PyTorch, where GPU tensors are shared by their own mechanism
    import numpy as np
    from multiprocessing import shared_memory

    _register_reducers()
    dtype = _numpy_dtype(self.dtype)
    shm = shared_memory.SharedMemory(create=True, size=max(self.numel() * dtype.itemsize, 1))
    flat = np.ndarray((self.numel(),), dtype=dtype, buffer=shm.buf)
    flat[...] = self.detach().reshape(-1).numpy()
    source = _C.from_numpy(flat)
    _SEGMENTS[source.data_ptr()] = (shm, flat)
    if not _CREATED:
        atexit.register(_unlink_created)
    _CREATED.append(shm)
    from .autograd.grad_mode import no_grad

    with no_grad():  # set_ on a leaf that requires grad is allowed only outside autograd
        self.set_(source, 0, tuple(self.shape))
    return self


def _unlink_created():
    for shm in _CREATED:
        try:
            shm.unlink()
        except FileNotFoundError:
            pass


def _attach(name, dtype_name, numel):
    import numpy as np
    from multiprocessing import shared_memory

    for shm, flat in _SEGMENTS.values():
        if shm.name.lstrip("/") == name.lstrip("/"):
            return _C.from_numpy(flat)
    shm = shared_memory.SharedMemory(name=name)
    flat = np.ndarray((numel,), dtype=_numpy_dtype(getattr(_C, dtype_name)), buffer=shm.buf)
    source = _C.from_numpy(flat)
    _SEGMENTS[source.data_ptr()] = (shm, flat)
    return source


def _rebuild_shared(name, dtype_name, numel, offset, size, stride, requires_grad, cls, state):
    source = _attach(name, dtype_name, numel)
    tensor = _C.empty(0, dtype=getattr(_C, dtype_name))
    tensor.set_(source, offset, size, stride)
    if cls is not _C.Tensor:
        tensor = _C.Tensor.__new__(cls, tensor)
    if requires_grad:
        tensor.requires_grad_(True)
    if state:
        tensor.__dict__.update(state)
    return tensor


def _reduce_for_process(tensor):
    # PyTorch moves a CPU tensor to shared memory when multiprocessing pickles it; so do we.
    share_memory_(tensor)
    base, shm = _segment_of(tensor)
    itemsize = _numpy_dtype(tensor.dtype).itemsize
    dtype_name = str(tensor.dtype).rpartition(".")[2]
    numel = shm.size // itemsize
    offset = (tensor.data_ptr() - base) // itemsize
    return (_rebuild_shared, (shm.name, dtype_name, numel, offset, tuple(tensor.shape), tuple(tensor.stride()),
                              tensor.requires_grad, type(tensor), dict(tensor.__dict__)))


def _register_reducers():
    """Registers the reducer with multiprocessing's pickler for Tensor and Parameter (its table
    matches exact types)."""
    global _registered
    if _registered:
        return
    from multiprocessing.reduction import ForkingPickler

    from .nn.parameter import Parameter

    for cls in (_C.Tensor, Parameter):
        ForkingPickler.register(cls, _reduce_for_process)
    _registered = True


def install():
    _C.Tensor.share_memory_ = share_memory_
    _C.Tensor.is_shared = is_shared
