"""Transforms: invertible (or not) maps between constrained spaces with the log |det J| of their
Jacobian, used by TransformedDistribution and by biject_to/transform_to."""
import functools
import math
import numbers

import rstorch as torch
import rstorch.nn.functional as F

from . import constraints
from ._transform_base import ComposeTransform, Transform, _InverseTransform, identity_transform  # noqa: F401 - re-exported
from .utils import _sum_rightmost, broadcast_all

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
    "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
    "identity_transform",
]


class IndependentTransform(Transform):
    """`base_transform` with its `reinterpreted_batch_ndims` rightmost dims treated as event dims
    (their log-Jacobians are summed)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self.base_transform)}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost dims from `in_shape` to `out_shape` (same number of elements)."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torch.Size(in_shape)
        self.out_shape = torch.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.new_zeros(batch_shape)

    def _split(self, shape, own, name):
        if len(shape) < len(own):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(own)
        if tuple(shape[cut:]) != tuple(own):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(own)}")
        return tuple(shape[:cut])

    def forward_shape(self, shape):
        return self._split(shape, self.in_shape, "in") + tuple(self.out_shape)

    def inverse_shape(self, shape):
        return self._split(shape, self.out_shape, "out") + tuple(self.in_shape)


class ExpTransform(Transform):
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @functools.cached_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    inverse_shape = forward_shape


def _clipped_sigmoid(x):
    # Kept inside (0, 1) so that the inverse and the log-Jacobian stay finite.
    finfo = torch.finfo(x.dtype)
    return torch.clamp(torch.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = torch.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(Transform):
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        # Not clamped: the caller caches (x, y) where the inverse would be inaccurate.
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) written to stay accurate for large |x|.
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x, over events of `event_dim` dims."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(mine, numbers.Number) and isinstance(theirs, numbers.Number):
                if mine != theirs:
                    return False
            elif not bool((torch.as_tensor(mine) == torch.as_tensor(theirs)).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = torch.full_like(x, math.log(abs(scale)))
        else:
            result = torch.abs(scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.size()[:result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))


class SoftmaxTransform(Transform):
    """Unconstrained vectors to the simplex by exp and normalisation (not bijective)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(Transform):
    """R^(K-1) to the K-simplex by breaking a stick: each coordinate (shifted so that zero maps
    to the centre) takes a sigmoid fraction of what is left."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset(x, n):
        return n + 1 - x.new_ones(n).cumsum(-1)

    def _call(self, x):
        offset = self._offset(x, x.shape[-1])
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = self._offset(y, y_crop.shape[-1])
        sf = 1 - y_crop.cumsum(-1)
        sf = torch.clamp(sf, min=torch.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = self._offset(x, x.shape[-1])
        x = x - offset.log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal (exp of the diagonal)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive-definite ones: L L^T of their LowerCholeskyTransform."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """A distribution's CDF as a transform to the unit interval."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)


# Defined over the classes above, hence imported last.
from ._more_transforms import CatTransform, CorrCholeskyTransform, StackTransform  # noqa: E402
