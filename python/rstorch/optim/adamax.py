"""Adamax: Adam with the second moment replaced by an exponentially weighted infinity norm."""
from .. import cat, maximum, tensor, zeros_like
from ._common import (check_capturable, check_beta, check_lr, check_nonnegative, grad_mode_for_differentiable, run_closure, scalar,
                      scalar_dtype, set_group_defaults, with_grads)
from .optimizer import Optimizer


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_beta(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
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
            lr, (beta1, beta2), eps = scalar(group["lr"]), group["betas"], group["eps"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if not state:
                    state["step"] = tensor(0.0, dtype=scalar_dtype())
                    state["exp_avg"] = zeros_like(param)
                    state["exp_inf"] = zeros_like(param)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                state["step"].add_(1)
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                exp_avg.lerp_(grad, 1 - beta1)
                exp_inf.mul_(beta2)
                bound = grad.abs().add_(eps)
                if group["differentiable"]:
                    # A max over a stacked pair keeps the gradient flowing to whichever side wins.
                    exp_inf.copy_(cat([exp_inf.unsqueeze(0), bound.unsqueeze(0)], 0).amax(0))
                else:
                    exp_inf.copy_(maximum(exp_inf, bound))
                bias_correction = 1 - beta1 ** state["step"].item()
                param.addcdiv_(exp_avg, exp_inf, value=-lr / bias_correction)
        return loss
