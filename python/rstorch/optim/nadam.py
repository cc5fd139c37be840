"""NAdam: Adam with Nesterov momentum, whose momentum coefficient warms up by momentum_decay."""
from .. import tensor, zeros_like
from ._common import (check_capturable, check_beta, check_lr, check_nonnegative, grad_mode_for_differentiable, run_closure, scalar,
                      scalar_dtype, set_group_defaults, with_grads)
from .optimizer import Optimizer


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_beta(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(momentum_decay, "momentum_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        set_group_defaults(self, maximize=False, foreach=None, capturable=False, differentiable=False,
                           decoupled_weight_decay=False)

    @grad_mode_for_differentiable
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            check_capturable(group, params, "params, mu_products and state_steps")
            lr, (beta1, beta2), eps = scalar(group["lr"]), group["betas"], group["eps"]
            weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if not state:
                    state["step"] = tensor(0.0, dtype=scalar_dtype())
                    state["mu_product"] = tensor(1.0, dtype=scalar_dtype())
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
                state["step"].add_(1)
                step = state["step"].item()
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                # The product of the mus lives in a scalar tensor of scalar_dtype() and is rounded
                # there, as PyTorch's is: the updates below read it back.
                mu_product.mul_(mu)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(1 - beta2 ** step).sqrt()
                # Out of place when differentiating: sqrt's backward reads its output.
                denom = denom.add(eps) if group["differentiable"] else denom.add_(eps)
                if group["differentiable"]:
                    # Coefficients as tensors, so the step stays a function of the state tensors.
                    grad_coef = -lr * (1.0 - mu) / (1.0 - mu_product)
                    avg_coef = -lr * mu_next / (1.0 - mu_product * mu_next)
                    param.addcdiv_(grad * grad_coef, denom)
                    param.addcdiv_(exp_avg * avg_coef, denom)
                else:
                    product = mu_product.item()
                    param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - product))
                    param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - product * mu_next))
        return loss
