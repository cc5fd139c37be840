"""What the concrete optimizers share: argument checks, the closure call, gathering the
parameters that have gradients, and the step of the optimizers written in tensor ops."""
import functools

from ..autograd.grad_mode import enable_grad, set_grad_enabled


def check_nonnegative(value, label):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {label}: {value}")


def check_lr_size(lr):
    """PyTorch accepts a 1-element tensor as the learning rate, and nothing bigger."""
    from .. import Tensor
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def check_lr(lr):
    check_lr_size(lr)
    check_nonnegative(lr, "learning rate")


def check_beta(betas):
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def run_closure(closure):
    if closure is None:
        return None
    with enable_grad():
        return closure()


def with_grads(group):
    """The group's parameters that received a gradient, and those gradients."""
    params, grads = [], []
    for p in group["params"]:
        if p.grad is not None:
            params.append(p)
            grads.append(p.grad)
    return params, grads


def scalar_dtype():
    """The dtype of scalar state ("step", "mu_product", "eta", ...): PyTorch keeps it in float64
    only when that is the default dtype, and its rounding shows in the updates that read it."""
    from .. import float32, float64, get_default_dtype
    return float64 if get_default_dtype() == float64 else float32


def scalar(value):
    """A hyperparameter as a Python number: a 1-element tensor lr is read once per step."""
    from .. import Tensor
    return value.item() if isinstance(value, Tensor) else value


def grad_mode_for_differentiable(step):
    """Runs a tensor-op `step` without recording autograd, unless the optimizer was built with
    differentiable=True: then the update itself is differentiated, as PyTorch does."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(self.defaults["differentiable"]):
            return step(self, *args, **kwargs)
    return wrapper



def set_group_defaults(optimizer, **defaults):
    """After loading an older state: fills the group options it predates, and turns scalar state
    saved as plain numbers (old checkpoints) back into scalar tensors."""
    from .. import Tensor, tensor
    for group in optimizer.param_groups:
        for name, value in defaults.items():
            group.setdefault(name, value)
        for p in group["params"]:
            state = optimizer.state.get(p, {})
            for key in ("step", "mu_product", "eta", "mu"):
                if key in state and not isinstance(state[key], Tensor):
                    state[key] = tensor(float(state[key]), dtype=scalar_dtype())


def check_capturable(group, params, tensors="params and state_steps", supports_xla=True):
    """capturable=True is for CUDA-graph capture; on host memory PyTorch refuses it at step()."""
    if group["capturable"] and any(p.device.type == "cpu" for p in params):
        devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if supports_xla else [])
        raise AssertionError(f"If capturable=True, {tensors} must be on supported devices: {devices}.")
