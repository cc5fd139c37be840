"""Adam (optionally AMSGrad), with L2 or decoupled weight decay; AdamW is the decoupled form.

The step runs in one multi-tensor pass (`_C._adam_step`: every parameter of a group, its state
and its step counter updated in one call) for foreach=None/True and fused=True; foreach=False
runs that update one parameter at a time, as PyTorch's single-tensor loop does (same formula, same
bits); differentiable=True runs the update as tensor operations, recorded by autograd."""
from .. import _C, Tensor, maximum, tensor, zeros_like
from ._common import (check_beta, check_capturable, check_lr_size, check_nonnegative, grad_mode_for_differentiable,
                      run_closure, scalar, scalar_dtype)
from .optimizer import Optimizer

# The devices a fused step runs on (PyTorch's list names its own accelerators).
_FUSED_DEVICES = ["cpu", "wgpu"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_lr_size(lr)
        check_nonnegative(lr, "learning rate")
        check_nonnegative(eps, "epsilon value")
        check_beta(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", False)
            for p in group["params"]:
                state = self.state.get(p, {})
                if state and not isinstance(state["step"], Tensor):
                    state["step"] = tensor(float(state["step"]), dtype=_step_dtype(group))

    def _init_group(self, group):
        """The group's parameters with a gradient and, in the same order, their gradients,
        exp_avgs, exp_avg_sqs, max_exp_avg_sqs (amsgrad only) and step counters; creates the
        state of parameters seen for the first time. (PyTorch refuses sparse gradients here;
        rstorch has no sparse layout, so every gradient is dense.)"""
        params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], [], [], []
        amsgrad = group["amsgrad"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            state = self.state[p]
            if not state:
                if group["fused"] and not (p.device.type in _FUSED_DEVICES and p.is_floating_point()):
                    raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                                       f"supported devices: {_FUSED_DEVICES} but {p.dtype} and {p.device.type}")
                # The counter stays on the host, where the step reads it.
                state["step"] = tensor(0.0, dtype=_step_dtype(group))
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            if amsgrad and "max_exp_avg_sq" not in state:
                state["max_exp_avg_sq"] = zeros_like(p)
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
            if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
            params.append(p)
            grads.append(grad)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if amsgrad:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            steps.append(state["step"])
        return params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps

    @grad_mode_for_differentiable
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            lists = self._init_group(group)
            if not lists[0]:
                continue
            if not group["fused"]:
                check_capturable(group, lists[0])
            beta1, beta2 = group["betas"]
            options = (beta1, beta2, group["eps"], group["weight_decay"], group["amsgrad"], group["maximize"],
                       group["decoupled_weight_decay"])
            if group["differentiable"]:
                # A tensor lr stays a tensor: the update is differentiated with respect to it too.
                _autograd_adam(*lists, group["lr"], *options)
                continue
            options = (scalar(group["lr"]),) + options
            if group["foreach"] is False and not group["fused"]:
                for i in range(len(lists[0])):
                    # One parameter per call (max_exp_avg_sqs is empty without amsgrad).
                    _C._adam_step(*(x[i:i + 1] for x in lists), *options)
            else:
                _C._adam_step(*lists, *options)
        return loss


def _step_dtype(group):
    """PyTorch keeps a fused step's counter in float32, others in the default scalar dtype."""
    from .. import float32
    return float32 if group["fused"] else scalar_dtype()


def _autograd_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, eps,
                   weight_decay, amsgrad, maximize, decoupled):
    """The update as tensor operations (differentiable=True), each recorded by autograd, in
    PyTorch's order for that mode: the bias corrections are tensors computed from the step
    counter, and the denominator folds in the negated step size."""
    for i, (param, grad, exp_avg, exp_avg_sq, step_t) in enumerate(zip(params, grads, exp_avgs, exp_avg_sqs, steps)):
        if maximize:
            grad = -grad
        step_t.add_(1)
        if weight_decay != 0:
            if decoupled:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_size_neg = (lr / (1 - beta1 ** step_t)).neg()
        bias_correction2_sqrt = (1 - beta2 ** step_t).sqrt()
        second = exp_avg_sq
        if amsgrad:
            max_exp_avg_sqs[i].copy_(maximum(max_exp_avg_sqs[i].clone(), exp_avg_sq))
            second = max_exp_avg_sqs[i]
        denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
        param.addcdiv_(exp_avg.clone(), denom)


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
