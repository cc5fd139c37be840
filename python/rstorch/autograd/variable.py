"""`torch.autograd.Variable`, the pre-0.4 wrapper that programs written then still call:
`Variable(t, requires_grad=True)` gives a new tensor sharing `t`'s data, a leaf that requires grad
as asked (PyTorch merged Variable into Tensor; the constructor stayed), and `isinstance(x,
Variable)` holds for every tensor."""
import warnings

from .. import _C


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None, **kwargs):
        if kwargs:
            raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            out = _C.empty(0)
        elif isinstance(data, _C.Tensor):
            # detach(): the result shares the data but not the history, a leaf as PyTorch's is.
            out = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if not requires_grad:
            return out
        if not out.is_floating_point():
            # The legacy constructor's own wording (requires_grad_ words it differently).
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return out.requires_grad_()
