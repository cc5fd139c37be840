import math

import rstorch as torch

from ._half import _HalfDistribution
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    """|X| for X ~ Cauchy(0, scale)."""
    _centred = Cauchy

    @property
    def mean(self):
        return torch.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        # Numbers become tensors of the scale's dtype (Cauchy's log_prob needs a tensor), after
        # the check of the value as given.
        if self._validate_args:
            self._validate_sample(value)
        value = torch.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        return super().log_prob(value)
