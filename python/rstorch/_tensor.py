"""The parts of `Tensor` PyTorch itself writes in Python: printing, iteration, NumPy protocol,
in-place forms of elementwise functions and the `new_*` factories."""
from . import _C
from ._tensor_str import tensor_repr

Tensor = _C.Tensor


def _repr(self):
    return tensor_repr(self)


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def _array(self, dtype=None, copy=None):
    arr = self.detach().numpy()
    if dtype is not None:
        arr = arr.astype(dtype, copy=False)
    return arr


def _format(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def _contains(self, element):
    return bool((self == element).any())


def _reversed(self):
    return self.flip(0) if self.dim() > 0 else self


def _type_as(self, other):
    return self.to(other.dtype)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return _C.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                     requires_grad=requires_grad)


def _new_factory(fn):
    def new(self, *size, dtype=None, device=None, requires_grad=False):
        return fn(*size, dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)
    new.__name__ = "new_" + fn.__name__
    return new


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return _C.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                   requires_grad=requires_grad)


def _in_place(name, composite=False):
    """`X_` as `X` written over self. `composite`: X is written in Python over other ops, whose
    nodes may save self itself (see `_original`)."""
    out_of_place = getattr(Tensor, name)

    def method(self, *args, **kwargs):
        source = _original(self, args, kwargs) if composite else self
        return self._assign_(out_of_place(source, *args, **kwargs))
    method.__name__ = name + "_"
    method.__doc__ = f"In-place version of `{name}`."
    return method


def _original(self, args=(), kwargs=None):
    """What an in-place op written over other ops computes from: while autograd records, a copy
    of self (with self's history), so that the nodes of those ops keep self's values from before
    the write, as PyTorch's in-place ops keep `self`'s original values for their backward
    (`logit_`, `renorm_`); otherwise self."""
    if not _C.is_grad_enabled():
        return self
    values = list(args) + list((kwargs or {}).values())
    if self.requires_grad or any(isinstance(v, Tensor) and v.requires_grad for v in values):
        return self.clone()
    return self


def _unary_in_place(name, index):
    """`X_` of the declared unary op `X` (`src/ops/unary.rs`), number `index` of its in-place
    names: written over self in Rust."""
    def method(self):
        return self._unary_(index)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place version of `{name}`."
    return method


# In-place forms written over `_assign_`.
_IN_PLACE = ["round", "square", "pow", "logical_not", "bitwise_not", "tril", "triu", "silu", "frac"]


def _grad_fn(self):
    return self._grad_fn


def _register_hook(self, hook):
    from .utils.hooks import RemovableHandle
    return RemovableHandle(self._remove_hook, self._register_hook(hook))


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    import copy
    from .autograd.grad_mode import no_grad
    with no_grad():
        new_tensor = self.clone()
        if type(self) is not Tensor:
            # The subclass's own constructor may want other arguments; wrap the copied data.
            new_tensor = Tensor.__new__(type(self), new_tensor)
        new_tensor.requires_grad_(self.requires_grad)
        if self.grad is not None:
            new_tensor.grad = _deepcopy(self.grad, memo)
    new_tensor.__dict__.update(copy.deepcopy(self.__dict__, memo))
    memo[id(self)] = new_tensor
    return new_tensor


def _reduce_ex(self, protocol):
    # The data travels as a NumPy array (bfloat16, which NumPy lacks, as float32: exact).
    data = self.detach()
    dtype_name = str(self.dtype).rpartition(".")[2]
    if self.dtype == _C.bfloat16:
        data = data.to(_C.float32)
    state = dict(self.__dict__)
    return (_rebuild_tensor, (data.numpy().copy(), dtype_name, self.requires_grad, type(self), state))


def _rebuild_tensor(array, dtype_name, requires_grad, cls=Tensor, state=None):
    tensor = _C.from_numpy(array).to(getattr(_C, dtype_name))
    if cls is not Tensor:
        tensor = Tensor.__new__(cls, tensor)
    if requires_grad:
        tensor.requires_grad_(True)
    if state:
        tensor.__dict__.update(state)
    return tensor


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    """Copies to the GPU PyTorch calls `cuda` (`cuda:N` for an int), or raises PyTorch's
    CPU-only error without a real GPU."""
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = f"cuda:{device}"
    return self.to(device, non_blocking=non_blocking)


def install():
    Tensor.grad_fn = property(_grad_fn, doc="The node that created this tensor (None for leaves).")
    Tensor.register_hook = _register_hook
    from .autograd._post_accumulate import register_post_accumulate_grad_hook
    Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    Tensor.__repr__ = _repr
    Tensor.__str__ = _repr
    Tensor.__iter__ = _iter
    Tensor.__array__ = _array
    Tensor.__format__ = _format
    Tensor.__contains__ = _contains
    Tensor.__reversed__ = _reversed
    Tensor.__array_priority__ = 1000  # numpy defers `ndarray op tensor` to the tensor
    Tensor.__deepcopy__ = _deepcopy
    Tensor.__reduce_ex__ = _reduce_ex
    Tensor.type_as = _type_as
    Tensor.cuda = _cuda
    Tensor.new_tensor = _new_tensor
    Tensor.new_zeros = _new_factory(_C.zeros)
    Tensor.new_ones = _new_factory(_C.ones)
    Tensor.new_empty = _new_factory(_C.empty)
    Tensor.new_full = _new_full
    for index, name in enumerate(_C._unary_ops()[1]):
        setattr(Tensor, name + "_", _unary_in_place(name, index))
    for name in _IN_PLACE:
        setattr(Tensor, name + "_", _in_place(name))
