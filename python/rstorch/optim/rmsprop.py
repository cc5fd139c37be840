"""RMSprop, optionally centered and with momentum."""
from .. import _C, float32, tensor, zeros_like
from ._common import check_nonnegative, run_closure, with_grads
from .optimizer import Optimizer


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_nonnegative(lr, "learning rate")
        check_nonnegative(eps, "epsilon value")
        check_nonnegative(momentum, "momentum value")
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(alpha, "alpha value")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            if not params:
                continue
            buffers, steps = [], []
            for p in params:
                state = self.state[p]
                if not state:
                    state["step"] = tensor(0.0, dtype=float32)
                    state["square_avg"] = zeros_like(p)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = zeros_like(p)
                steps.append(state["step"])
                names = ["square_avg"]
                if group["momentum"] > 0:
                    names.append("momentum_buffer")
                if group["centered"]:
                    names.append("grad_avg")
                buffers.append([state[n] for n in names])
            # One multi-tensor pass, which also advances the step counters.
            _C._rmsprop_step(params, grads, buffers, steps, group["lr"], group["alpha"], group["eps"],
                             group["weight_decay"], group["momentum"], group["centered"], group["maximize"])
        return loss
