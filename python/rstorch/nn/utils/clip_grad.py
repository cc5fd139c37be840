"""Gradient clipping by total norm or by value, as `torch.nn.utils.clip_grad`."""
import warnings

import rstorch
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors):
    # A lone tensor counts as a one-element iterable; generators are consumed once, here.
    return [tensors] if isinstance(tensors, rstorch.Tensor) else list(tensors)


def _grads(parameters):
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


_DOT_DTYPES = (rstorch.float32, rstorch.float64)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors`, as if they were concatenated into one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return rstorch.tensor(0.0)
    if norm_type == 2.0 and all(t.dtype in _DOT_DTYPES for t in tensors) and len({t.dtype for t in tensors}) == 1:
        # Each tensor's sum of squares in one pass (a dot product with itself): the composite
        # norm takes four passes and as many temporaries, 8x the time at 1M elements.
        squares = [rstorch.dot(f, f) for f in (t.reshape(-1) for t in tensors)]
        total = squares[0] if len(squares) == 1 else rstorch.stack(squares).sum()
        return _checked(total.sqrt(), norm_type, error_if_nonfinite)
    norms = [t.norm(norm_type) for t in tensors]
    # stack needs one dtype: the widest, as PyTorch's promotion gives when it stacks the per-group norms.
    dtype = norms[0].dtype
    for n in norms[1:]:
        dtype = rstorch.promote_types(dtype, n.dtype)
    total = rstorch.stack([n.to(dtype) for n in norms]).norm(norm_type)
    return _checked(total, norm_type, error_if_nonfinite)


def _checked(total, norm_type, error_if_nonfinite):
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales every gradient by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = _grads(parameters)
    if not grads:
        return
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clips the gradients of `parameters` so that their total norm is at most `max_norm`; returns the
    total norm before clipping (a tensor)."""
    parameters = _as_list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of `clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    grads = _grads(parameters)
    if not grads:
        # PyTorch's grouping of the gradients by device fails on an empty list with this message.
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    for g in grads:
        g.clamp_(min=-clip_value, max=clip_value)


