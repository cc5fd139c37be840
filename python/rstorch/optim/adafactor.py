"""Adafactor (Shazeer & Stern, 2018, in PyTorch's form): the second moment of a matrix gradient is
kept as row and column means (factored), the step size is relative to the parameter's RMS, and
the update's RMS is clipped to d."""
from .. import no_grad, tensor, zeros_like
from ..linalg import vector_norm
from ._common import check_lr_size, run_closure, scalar, scalar_dtype, set_group_defaults, with_grads
from .optimizer import Optimizer


def _machine_eps(dtype):
    from ..nn.functional._normalization_more import _EPS
    return _EPS[str(dtype).rsplit(".", 1)[-1]]


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        check_lr_size(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        set_group_defaults(self, foreach=None)

    def _state_for(self, grad, state):
        if not state:
            state["step"] = tensor(0.0, dtype=scalar_dtype())
            if grad.dim() > 1:
                # Running means of the squared gradient over the last dim (rows) and the one before.
                state["row_var"] = grad.new_zeros([*grad.shape[:-1], 1])
                state["col_var"] = grad.new_zeros([*grad.shape[:-2], 1, grad.shape[-1]])
            else:
                state["variance"] = zeros_like(grad)
        return state

    @no_grad()
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            lr, (eps1, eps2), d = scalar(group["lr"]), group["eps"], group["d"]
            for param, grad in zip(params, grads):
                if param.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self._state_for(grad, self.state[param])
                if group["maximize"]:
                    grad = -grad
                if eps1 is None:
                    # PyTorch resolves it once per group, from the first parameter's dtype.
                    eps1 = _machine_eps(param.dtype)
                state["step"].add_(1)
                step = state["step"].item()
                beta2_complement = step ** group["beta2_decay"]
                rho = min(lr, 1 / step ** 0.5)
                alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * rho
                if group["weight_decay"] != 0:
                    param.mul_(1 - lr * group["weight_decay"])
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_(vector_norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1)),
                                  beta2_complement)
                    col_var.lerp_(vector_norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2)),
                                  beta2_complement)
                    estimate = (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
                else:
                    state["variance"].lerp_(grad * grad, beta2_complement)
                    estimate = state["variance"].clone()
                update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
                denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
                param.add_(update, alpha=-alpha / denom)
        return loss
