"""Autograd Functions used by the module machinery itself."""
from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its backward hands the incoming gradients to
    `on_backward` (a module's backward-hook runner) and passes on what that returns."""

    @staticmethod
    def forward(ctx, on_backward, *tensors):
        # Undefined gradients reach the hooks as None, as they do in PyTorch.
        ctx.set_materialize_grads(False)
        ctx.on_backward = on_backward
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.on_backward(grads))
