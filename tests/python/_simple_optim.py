"""Test-only optimizers on rstorch's Optimizer base: plain SGD, and stand-ins whose param groups
carry SGD's or Adam's keys so schedulers can cycle momentum / beta1."""
import rstorch as torch
from rstorch.optim import Optimizer


class SimpleSGD(Optimizer):
    """p -= lr * grad (with optional momentum buffer), enough to exercise the base class."""

    def __init__(self, params, lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    d = p.grad
                    if group["momentum"]:
                        state = self.state[p]
                        if "momentum_buffer" not in state:
                            state["momentum_buffer"] = d.clone()
                        else:
                            state["momentum_buffer"] = state["momentum_buffer"] * group["momentum"] + d
                        d = state["momentum_buffer"]
                    p.copy_(p - group["lr"] * d)
        return loss


class AdamLike(Optimizer):
    """Carries Adam's defaults (betas and all); its step does nothing."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad))

    def step(self, closure=None):
        return closure() if closure is not None else None
