"""CorrCholeskyTransform, CatTransform and StackTransform (kept apart from transforms.py, which
re-exports them, to keep files short)."""
import math

import rstorch as torch
import rstorch.nn.functional as F

from . import constraints
from ._transform_base import Transform
from .utils import _sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["CatTransform", "CorrCholeskyTransform", "StackTransform"]


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length D(D-1)/2 to Cholesky factors of D x D correlation
    matrices: tanh gives partial correlations in (-1, 1), and stick-breaking over each row keeps
    its norm at 1."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = torch.tanh(x)
        eps = torch.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # Each row's squared entries take a share of what the earlier ones left of 1.
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - torch.cumsum(y * y, dim=-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        stick_breaking_logdet = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)


def _check_transforms(tseq):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError(f"All elements of tseq must be Transform instances, got {[type(t) for t in tseq]}")


class CatTransform(Transform):
    """`tseq[i]` applied to the i-th piece (`lengths[i]` long) of dim `dim`, the results joined."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = list(tseq)
        _check_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, x):
        if not -x.dim() <= self.dim < x.dim():
            raise AssertionError(f"dim {self.dim} out of range for {x.dim()}-d input")
        if x.size(self.dim) != self.length:
            raise AssertionError(f"expected size {self.length} along dim {self.dim}, got {x.size(self.dim)}")
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            yield trans, x.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        return torch.cat([trans(piece) for trans, piece in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        return torch.cat([trans.inv(piece) for trans, piece in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        logdetjacs = []
        for (trans, xs), (_, ys) in zip(self._pieces(x), self._pieces(y)):
            logdetjac = trans.log_abs_det_jacobian(xs, ys)
            if trans.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
        dim = self.dim if self.dim < 0 else self.dim - x.dim()
        dim = dim + self.event_dim
        # The joined dim is a batch dim: concatenate; an event dim: the pieces' terms add up.
        if dim < 0:
            return torch.cat(logdetjacs, dim=dim)
        total = logdetjacs[0]
        for term in logdetjacs[1:]:
            total = total + term
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """`tseq[i]` applied to the i-th slice of dim `dim`, the results stacked."""

    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = list(tseq)
        _check_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _check(self, x):
        if not -x.dim() <= self.dim < x.dim():
            raise AssertionError(f"dim {self.dim} out of range for {x.dim()}-d input")
        if x.size(self.dim) != len(self.transforms):
            raise AssertionError(f"expected size {len(self.transforms)} along dim {self.dim}, got {x.size(self.dim)}")

    def _call(self, x):
        self._check(x)
        return torch.stack([t(s) for s, t in zip(self._slice(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        self._check(y)
        return torch.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._check(x)
        self._check(y)
        terms = [t.log_abs_det_jacobian(xs, ys)
                 for xs, ys, t in zip(self._slice(x), self._slice(y), self.transforms)]
        return torch.stack(terms, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
