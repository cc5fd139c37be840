"""Adam (optionally AMSGrad), with L2 or decoupled weight decay; AdamW is the decoupled form."""
from .. import _C, float32, tensor, zeros_like
from ._common import check_beta, check_nonnegative, run_closure, with_grads
from .optimizer import Optimizer


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_nonnegative(lr, "learning rate")
        check_nonnegative(eps, "epsilon value")
        check_beta(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def _state_for(self, p, amsgrad):
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0, dtype=float32)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        if amsgrad and "max_exp_avg_sq" not in state:
            state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            if not params:
                continue
            amsgrad = group["amsgrad"]
            buffers, steps = [], []
            for p in params:
                state = self._state_for(p, amsgrad)
                state["step"].add_(1)
                steps.append(state["step"].item())
                names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if amsgrad else ("exp_avg", "exp_avg_sq")
                buffers.append([state[n] for n in names])
            beta1, beta2 = group["betas"]
            _C._adam_step(params, grads, buffers, steps, group["lr"], beta1, beta2, group["eps"],
                          group["weight_decay"], amsgrad, group["maximize"], group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
