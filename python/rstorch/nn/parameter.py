"""`Parameter`: the Tensor subclass a Module registers as a learnable weight."""
from collections import OrderedDict

from .. import _C

Tensor = _C.Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning one as a Module attribute registers it in
    `_parameters`. Shares memory with `data`; requires grad by default."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        result = Tensor.__new__(cls, data.detach())
        result.requires_grad_(requires_grad)
        return result

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # As PyTorch does, a copied parameter gets fresh data and no grad.
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        state = dict(self.__dict__)
        hooks = OrderedDict()  # backward hooks are not saved, as in PyTorch
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, hooks))
        return (_rebuild_parameter_with_state, (self.data, self.requires_grad, hooks, state))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    param.__dict__.update(state)
    return param


class _BufferMeta(type):
    # A Buffer is a plain tensor carrying a mark: isinstance checks the mark, as PyTorch does.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a module buffer: assigning `Buffer(t)` as a Module attribute registers it
    with `register_buffer(name, t, persistent)`. The result is a detached tensor, not a subclass."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """A placeholder with no shape yet: `materialize(shape)` gives it storage and turns it into
    `cls_to_become`. The lazy modules hold these until their first forward."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        self.data = _C.empty(tuple(shape), dtype=dtype).to(device)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def _keep_placeholder(name):
    # Moving or casting a placeholder (Module.to, .double(), ...) gives a placeholder of the new
    # device and dtype, so that a lazy module can be cast before its first forward.
    def method(self, *args, **kwargs):
        moved = getattr(super(UninitializedTensorMixin, self), name)(*args, **kwargs)
        if moved is self or not isinstance(moved, Tensor):
            return moved
        return self._like(moved)
    method.__name__ = name
    return method


for _name in ("to", "cpu", "cuda", "type", "float", "double", "half", "bfloat16"):
    setattr(UninitializedTensorMixin, _name, _keep_placeholder(_name))
del _name


def is_lazy(param):
    """Whether `param` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


def _empty_placeholder(device, dtype):
    data = _C.empty(0, dtype=dtype)
    return data if device is None else data.to(device)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter with no shape yet; becomes a Parameter when materialized."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, _empty_placeholder(device, dtype), requires_grad)

    def _like(self, data):
        return type(self)(self.requires_grad, data.device, data.dtype)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = self._like(self.data)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer with no shape yet; becomes a plain Tensor when materialized."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        result = Tensor.__new__(cls, _empty_placeholder(device, dtype))
        result.requires_grad_(requires_grad)
        result.persistent = persistent
        result._is_buffer = True
        return result

    def _like(self, data):
        return type(self)(self.requires_grad, data.device, data.dtype, self.persistent)
