"""Helpers shared by the distributions: broadcasting parameters, probabilities <-> logits, and the
cached properties that let a distribution be built from either parametrisation."""
import numbers
from functools import update_wrapper

import rstorch as torch

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property", "tril_matrix_to_vec",
           "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060


def broadcast_all(*values):
    """Broadcasts tensors and numbers to one shape; numbers become tensors of the tensors' dtype and
    device (the default dtype when all are numbers), as PyTorch's parameters are."""
    if not all(isinstance(v, (torch.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, torch.Tensor) for v in values):
        like = next((v for v in values if isinstance(v, torch.Tensor)), None)
        dtype = like.dtype if like is not None else torch.get_default_dtype()
        device = like.device if like is not None else None
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype, device=device) for v in values]
    return torch.broadcast_tensors(*values)


def _as_tensor_like(value, like):
    """A Python number as a 0-d tensor of `like`'s dtype and device (tensors pass through)."""
    if isinstance(value, numbers.Number):
        return torch.tensor(float(value), dtype=like.dtype, device=like.device)
    return value


def _standard_normal(shape, dtype, device):
    return torch.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sums the rightmost `dim` dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Logits (log-odds for a binary variable, unnormalised log-probabilities otherwise) to
    probabilities."""
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Keeps probabilities inside (0, 1) by the dtype's epsilon so that their logs stay finite."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Probabilities to logits: log-odds for a binary variable, log-probabilities otherwise."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


class lazy_property:
    """A property computed on first access and then stored on the instance (so that a
    distribution given `probs` computes `logits` only when asked, and the other way round)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    # On the class, a lazy_property reads as a property too (for documentation tools).
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (below the `diag`-th diagonal) of the last two dims, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = torch.tril_indices(n, n, offset=diag).unbind(0)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of `tril_matrix_to_vec`: a square matrix whose lower triangle holds `vec`."""
    size = vec.shape[-1]

    def count(n):  # entries on and below the diag-th diagonal of an n x n matrix
        m = n + min(diag, 0)
        return max(m, 0) * (max(m, 0) + 1) // 2 + n * max(diag, 0)
    n = 1
    while count(n) < size:
        n += 1
    if count(n) != size:
        raise ValueError(f"The size of last dimension is {size} which cannot be expressed as the lower triangular part "
                         f"of a square D x D matrix.")
    rows, cols = torch.tril_indices(n, n, offset=diag).unbind(0)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., rows, cols] = vec
    return mat


def _xlogy(x, y):
    """x * log(y), 0 where both are 0. Written out because the gradient the densities need at
    x == 0 is log(y) (PyTorch's), which the core's xlogy gives as 0 there."""
    both_zero = (x == 0) & (y == 0)
    return x * torch.where(both_zero, torch.ones_like(y), y).log()
