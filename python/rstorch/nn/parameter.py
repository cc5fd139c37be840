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
