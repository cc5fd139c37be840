"""Rprop: each element's step size grows by etaplus while its gradient keeps its sign and
shrinks by etaminus when the sign flips; only the gradient's sign moves the parameter."""
from .. import full_like, tensor, zeros_like
from ._common import (check_capturable, check_lr, grad_mode_for_differentiable, run_closure, scalar, scalar_dtype, set_group_defaults,
                      with_grads)
from .optimizer import Optimizer


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        set_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    @grad_mode_for_differentiable
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            check_capturable(group, params)
            (etaminus, etaplus), (step_size_min, step_size_max) = group["etas"], group["step_sizes"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if not state:
                    state["step"] = tensor(0.0, dtype=scalar_dtype())
                    state["prev"] = zeros_like(param)
                    state["step_size"] = full_like(grad, scalar(group["lr"]))
                prev, step_size = state["prev"], state["step_size"]
                state["step"].add_(1)
                if group["maximize"]:
                    grad = -grad
                agreement = grad.mul(prev.clone() if group["differentiable"] else prev)
                flipped = agreement.lt(0)
                # Built in the parameter's dtype, so etaplus/etaminus round as PyTorch's do.
                factor = full_like(agreement, 1.0).masked_fill_(agreement.gt(0), etaplus).masked_fill_(
                    flipped, etaminus)
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                # After a sign flip the element rests one step, and forgets its previous gradient.
                grad = grad.masked_fill(flipped, 0)
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
