"""What the concrete optimizers share: argument checks, the closure call and gathering the
parameters that have gradients."""
from ..autograd.grad_mode import enable_grad


def check_nonnegative(value, label):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {label}: {value}")


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
