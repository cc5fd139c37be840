"""Adadelta: steps scaled by the running RMS of past updates over that of past gradients."""
from .. import tensor, zeros_like
from ._common import (check_capturable, check_lr, check_nonnegative, grad_mode_for_differentiable, run_closure, scalar,
                      scalar_dtype, set_group_defaults, with_grads)
from .optimizer import Optimizer


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps, "epsilon value")
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        set_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    @grad_mode_for_differentiable
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            check_capturable(group, params, supports_xla=False)
            lr, rho, eps, weight_decay = scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if not state:
                    state["step"] = tensor(0.0, dtype=scalar_dtype())
                    state["square_avg"] = zeros_like(param)
                    state["acc_delta"] = zeros_like(param)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                if group["differentiable"]:
                    # sqrt's backward reads its output, which div_ below would overwrite.
                    delta = delta.clone()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                param.add_(delta, alpha=-lr)
        return loss
