"""SGD with momentum, dampening, Nesterov momentum and weight decay."""
from .. import _C
from ._common import check_nonnegative, run_closure, with_grads
from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_nonnegative(lr, "learning rate")
        check_nonnegative(momentum, "momentum value")
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            if not params:
                continue
            momentum = group["momentum"]
            buffers = [self.state[p].get("momentum_buffer") for p in params] if momentum else [None] * len(params)
            buffers = _C._sgd_step(params, grads, buffers, group["lr"], momentum, group["dampening"],
                                   group["weight_decay"], group["nesterov"], group["maximize"])
            if momentum:
                for p, buf in zip(params, buffers):
                    self.state[p]["momentum_buffer"] = buf
        return loss
