"""The shared body of HalfNormal and HalfCauchy: |X| for X of a distribution centred at 0 with
a `scale`, as a TransformedDistribution through AbsTransform (density and cdf doubled on x >= 0)."""
import math

import rstorch as torch

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class _HalfDistribution(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _centred = None  # the family of X: called as _centred(0, scale)

    def __init__(self, scale, validate_args=None):
        base_dist = type(self)._centred(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return torch.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, float("-inf"))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
