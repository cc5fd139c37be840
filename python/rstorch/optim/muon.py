"""Muon: SGD-momentum (Nesterov by default) on 2-D parameters whose update is orthogonalised by
a quintic Newton-Schulz iteration run in bfloat16, as PyTorch does."""
import math

from .. import addmm, bfloat16, no_grad, zeros_like
from ._common import check_lr_size, run_closure, scalar, with_grads
from .optimizer import Optimizer

_LR_ADJUSTMENTS = ("original", "match_rms_adamw", "spectral_unclamped")


def _bf16_addmm(input, m1, m2, beta=1.0, alpha=1.0):
    """beta * input + alpha * m1 @ m2 for bfloat16 operands, accumulated in float32 and rounded
    to bfloat16 once, as PyTorch's CPU kernels do (rounding each partial result drifts visibly
    over the iterations)."""
    if input is None:
        return (m1.float() @ m2.float()).to(bfloat16)
    return addmm(input.float(), m1.float(), m2.float(), beta=beta, alpha=alpha).to(bfloat16)


def _orthogonalize(grad, coefficients, steps, eps):
    """Approximately U V^T of grad = U S V^T, iterating on the wide orientation (fewer flops)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    x = grad.to(dtype=bfloat16, copy=True)
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = _bf16_addmm(None, x, x.T)
        x = _bf16_addmm(x, _bf16_addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    if adjust_lr_fn == "spectral_unclamped":
        return lr * math.sqrt(rows / cols)
    return lr


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        check_lr_size(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _LR_ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    @no_grad()
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = with_grads(group)
            lr, momentum = scalar(group["lr"]), group["momentum"]
            for param, grad in zip(params, grads):
                if param.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                if grad.dim() != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                state = self.state[param]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = zeros_like(grad)
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - momentum)
                update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                param.mul_(1 - lr * group["weight_decay"])
                param.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))
        return loss
