"""Adagrad with learning-rate decay and weight decay."""
from .. import _C, float32, full_like, tensor
from ._common import check_nonnegative, run_closure, with_grads
from .optimizer import Optimizer


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_nonnegative(lr, "learning rate")
        check_nonnegative(lr_decay, "lr_decay value")
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(initial_accumulator_value, "initial_accumulator_value value")
        check_nonnegative(eps, "epsilon value")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Adagrad's state exists from the start, as in PyTorch.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=float32)
                state["sum"] = full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            if not params:
                continue
            states = [self.state[p] for p in params]
            # One multi-tensor pass, which also advances the step counters.
            _C._adagrad_step(params, grads, [s["sum"] for s in states], [s["step"] for s in states], group["lr"],
                             group["lr_decay"], group["weight_decay"], group["eps"], group["maximize"])
        return loss
