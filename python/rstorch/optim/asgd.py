"""ASGD: SGD with a decaying step size eta, keeping a running average ax of the iterates once
t0 steps have passed."""
from .. import tensor, ones, zeros_like
from ._common import (check_capturable, check_lr, check_nonnegative, grad_mode_for_differentiable, run_closure, scalar, scalar_dtype,
                      set_group_defaults, with_grads)
from .optimizer import Optimizer


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonnegative(lambd, "lambd value")
        check_nonnegative(alpha, "alpha value")
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        set_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    @grad_mode_for_differentiable
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            check_capturable(group, params, "params, mus, etas, and state_steps")
            lr, lambd, alpha, t0 = scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if not state:
                    state["step"] = tensor(0.0, dtype=scalar_dtype())
                    state["eta"] = tensor(float(lr), dtype=scalar_dtype())
                    state["mu"] = ones((), dtype=scalar_dtype())
                    state["ax"] = zeros_like(param)
                eta, mu, ax = state["eta"], state["mu"], state["ax"]
                state["step"].add_(1)
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                # eta and mu are read back from their scalar_dtype() tensors, rounding and all.
                eta_value = eta.item()
                param.mul_(1 - lambd * eta_value)
                param.add_(grad, alpha=-eta_value)
                if mu.item() != 1:
                    ax.add_(param.sub(ax).mul_(mu))
                else:
                    ax.copy_(param)
                step = state["step"].item()
                # The new values pass through a default-dtype tensor, as in PyTorch, so they keep
                # that rounding even where a loaded checkpoint made eta and mu float64.
                eta.copy_(tensor(lr / (1 + lambd * lr * step) ** alpha))
                mu.copy_(tensor(1 / max(1, step - t0)))
        return loss
