"""Tensors as MPI buffers, and the Work handle of a collective in flight.

A contiguous CPU tensor goes to MPI as a NumPy view of its own memory (no copy). Other tensors
go through a contiguous host array that is written back when the operation completes: strided
views, wgpu tensors (staged through host memory), bfloat16 (NumPy has no such type: carried as
float32, which holds every bfloat16 exactly) and bool (carried as uint8, MPI's reductions having
no C bool).

`direct_array` is the fast path of the common case (all_reduce of a contiguous CPU tensor, as DDP's
buckets and a training loop's metrics are): the NumPy view of the tensor's memory is made once per
tensor and reused, so a call costs little more than MPI's own."""
import weakref

import numpy as np

import rstorch

from ._state import ReduceOp, RedOpType, _mpi

_INTEGRAL = (np.int8, np.uint8, np.int16, np.int32, np.int64)


class Staged:
    """`array`: a C-contiguous NumPy array holding (or receiving) the tensor's data."""

    def __init__(self, tensor):
        from ._checks import check_tensor
        check_tensor(tensor, "tensor")
        self.tensor = tensor
        self.host = tensor.detach()
        if self.host.device.type != "cpu":
            self.host = self.host.cpu()
        self.wide = self.host.float() if self.host.dtype == rstorch.bfloat16 else None
        self.view = (self.wide if self.wide is not None else self.host).numpy()
        array = self.view if self.view.flags.c_contiguous else np.ascontiguousarray(self.view)
        if array.size == 0:
            # An empty tensor's buffer is a dangling (aligned, non-null) pointer that MPI rejects.
            array = np.empty(array.shape, array.dtype)
        self.copied = array is not self.view and array.size > 0
        self.is_bool = array.dtype == np.bool_
        self.array = array.view(np.uint8) if self.is_bool else array

    @property
    def integral(self):
        return self.array.dtype.type in _INTEGRAL and not self.is_bool

    def finish(self):
        """Make the tensor hold what MPI wrote into `array`."""
        if self.copied:
            self.view[...] = self.array.view(np.bool_) if self.is_bool else self.array
        with rstorch.no_grad():
            if self.wide is not None:
                self.host.copy_(self.wide)
            if self.host is not self.tensor and self.tensor.device.type != "cpu":
                self.tensor.copy_(self.host)


_views = {}        # id(tensor) -> (weak reference, data_ptr, numel, flat NumPy view of its memory)
_DIRECT = frozenset([rstorch.float16, rstorch.float32, rstorch.float64, rstorch.int8, rstorch.uint8, rstorch.int16,
                     rstorch.int32, rstorch.int64])   # the dtypes NumPy holds as themselves
_DIRECT_OPS = {}   # (ReduceOp value, integral) -> MPI's reduction; "IN_PLACE" -> MPI.IN_PLACE


def _fill_ops():
    mpi = _mpi()
    _DIRECT_OPS["IN_PLACE"] = mpi.IN_PLACE
    ops = {"SUM": mpi.SUM, "AVG": mpi.SUM, "PRODUCT": mpi.PROD, "MIN": mpi.MIN, "MAX": mpi.MAX,
           "BAND": mpi.BAND, "BOR": mpi.BOR, "BXOR": mpi.BXOR}
    for name, mop in ops.items():
        for integral in (False, True) if name not in ("BAND", "BOR", "BXOR") else (True,):
            _DIRECT_OPS[getattr(ReduceOp, name).value, integral] = mop


def _forget(key):
    return lambda _ref: _views.pop(key, None)


def direct_array(tensor):
    """The memory of a contiguous, non-empty CPU tensor of a NumPy dtype as a flat NumPy array (no
    copy), or None when the tensor has to be staged. The view is kept while the tensor lives and
    checked against the tensor's data pointer, size and layout on each use: it holds the storage it
    was made from, so a tensor given new memory (`.data =`, `set_`, `resize_`) cannot match it."""
    key = id(tensor)
    entry = _views.get(key)
    if entry is not None and entry[0]() is tensor and entry[1] == tensor.data_ptr() and entry[2] == tensor.numel() \
            and tensor.is_contiguous():
        return entry[3]
    if tensor.dtype not in _DIRECT or not tensor.is_cpu or not tensor.is_contiguous() or tensor.numel() == 0:
        return None
    array = tensor.detach().numpy().reshape(-1)
    try:
        _views[key] = (weakref.ref(tensor, _forget(key)), tensor.data_ptr(), tensor.numel(), array)
    except TypeError:   # a tensor subclass without weak references: not cached
        pass
    return array


def direct_op(op, array):
    """MPI's reduction for `op` on a direct array, or None (not a ReduceOp: the staged path raises)."""
    if type(op) is not RedOpType:
        return None
    if not _DIRECT_OPS:
        _fill_ops()
    return _DIRECT_OPS.get((op.value, array.dtype.kind != "f"))


def in_place():
    return _DIRECT_OPS["IN_PLACE"]


def mpi_op(op, staged):
    """The MPI reduction for `op` on the staged tensor's dtype (AVG is a SUM the caller divides)."""
    mpi = _mpi()
    if not isinstance(op, ReduceOp.RedOpType):
        raise TypeError(f"op must be a ReduceOp, got {op!r}")
    name = op.name
    if name in ("BAND", "BOR", "BXOR") and not (staged.integral or staged.is_bool):
        raise RuntimeError(f"Cannot use ReduceOp.{name} with non-integral dtype")
    if name == "PREMUL_SUM":
        raise RuntimeError("ReduceOp.PREMUL_SUM is not supported by the MPI backend")
    if staged.is_bool:
        # Logical: a sum of booleans is their OR, a product their AND (PyTorch's bool semantics).
        name = {"SUM": "MAX", "AVG": "MAX", "PRODUCT": "MIN"}.get(name, name)
    return {"SUM": mpi.SUM, "AVG": mpi.SUM, "PRODUCT": mpi.PROD, "MIN": mpi.MIN, "MAX": mpi.MAX,
            "BAND": mpi.BAND, "BOR": mpi.BOR, "BXOR": mpi.BXOR}[name]


def average(array, n):
    """AVG on a backend without it: divide the sum by the group size (integers truncate; a bool
    array, carried as uint8, is the caller's to skip)."""
    if array.dtype.kind == "u":
        array //= n
    elif array.dtype.kind == "i":
        quotient = np.abs(array) // n
        array[...] = np.where(array < 0, -quotient, quotient)
    else:
        array /= n


class Work:
    """A collective in flight (PyTorch's `async_op=True` result): `wait()` completes it and writes
    the results into the caller's tensors."""

    def __init__(self, requests, finish=None, keep=()):
        self._requests = [r for r in requests if r is not None]
        self._finish = finish
        self._keep = keep  # the send buffers MPI reads until completion
        self._done = False
        self._status = None

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._finish()
            self._keep = ()

    def wait(self, timeout=None):
        if not self._done:
            status = _mpi().Status()
            for request in self._requests:
                request.Wait(status)
                self._status = status
            self._complete()
        return True

    def is_completed(self):
        if not self._done and _mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self):
        return self._done

    def exception(self):
        return None

    def source_rank(self):
        return self._status.Get_source() if self._status is not None else -1

    def synchronize(self):
        self.wait()
