"""RAdam: Adam whose adaptive step is switched on, and rectified, once the variance of the
adaptive learning rate is tractable (rho_t > 5); before that it is SGD with momentum."""
from .. import tensor, zeros_like
from ._common import (check_capturable, check_beta, check_lr, check_nonnegative, grad_mode_for_differentiable, run_closure, scalar,
                      scalar_dtype, set_group_defaults, with_grads)
from .optimizer import Optimizer


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_beta(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        set_group_defaults(self, foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False,
                           capturable=False)

    @grad_mode_for_differentiable
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            check_capturable(group, params)
            lr, (beta1, beta2), eps, weight_decay = scalar(group["lr"]), group["betas"], group["eps"], \
                group["weight_decay"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if not state:
                    state["step"] = tensor(0.0, dtype=scalar_dtype())
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"].add_(1)
                step = state["step"].item()
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                update = exp_avg / bias_correction1 * lr
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    # sqrt(bias_correction2) / (sqrt(v) + eps), taken as a reciprocal times a number:
                    # the order of roundings PyTorch's update has.
                    root = exp_avg_sq.sqrt()
                    # Out of place when differentiating: sqrt's backward reads its output.
                    root = root.add(eps) if group["differentiable"] else root.add_(eps)
                    adaptive_lr = root.reciprocal() * bias_correction2 ** 0.5
                    update = update * adaptive_lr * rect
                param.sub_(update)
        return loss
