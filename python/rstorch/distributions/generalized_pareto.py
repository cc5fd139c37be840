import math
import numbers

import rstorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with location `loc`, scale `scale` and shape
    `concentration` (xi): survival (1 + xi z)^(-1/xi) for z = (x - loc) / scale, exp(-z) at xi = 0."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, numbers.Number) for v in (loc, scale, concentration)):
            batch_shape = torch.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance,
                                   {"loc": 0, "scale": 0, "concentration": 0})

    def _xi(self):
        """Whether xi is (close to) 0, and xi with those entries replaced by 1 (so that the
        formulas dividing by xi stay finite where the exponential limit is used instead)."""
        xi = self.concentration
        at_zero = torch.isclose(xi, torch.zeros_like(xi))
        return at_zero, torch.where(at_zero, torch.ones_like(xi), xi)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        return self.icdf(torch.rand(shape, dtype=self.loc.dtype, device=self.loc.device))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._xi()
        power = 1 / xi + 1
        # At xi = -1 the density is uniform: the power is 0 whatever log1p gives.
        tail = torch.where(power == 0, power, power * torch.log1p(xi * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        return -log_scale - torch.where(at_zero, z, tail)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._xi()
        return torch.where(at_zero, -z, -torch.log1p(xi * z) / xi)

    def log_cdf(self, value):
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torch.exp(self.log_cdf(value))

    def icdf(self, value):
        at_zero, xi = self._xi()
        log_survival = torch.log1p(-value)
        return torch.where(at_zero, self.loc - self.scale * log_survival,
                           self.loc + self.scale / xi * torch.expm1(-xi * log_survival))

    @property
    def mean(self):
        xi = self.concentration
        finite = xi < 1
        return torch.where(finite, self.loc + self.scale / (1 - torch.where(finite, xi, 0.5)), float("nan"))

    @property
    def variance(self):
        xi = self.concentration
        finite = xi < 0.5
        safe = torch.where(finite, xi, 0.25)
        return torch.where(finite, self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), float("nan"))

    def entropy(self):
        return torch.broadcast_to(torch.log(self.scale) + self.concentration + 1, tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = torch.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
