"""Exponential families: p(x) = exp(<t(x), θ> - F(θ) + k(x)); the entropy follows from the
log normalizer F by automatic differentiation (its gradient is the mean of t(x))."""
import rstorch as torch

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give `_natural_params`, `_log_normalizer` and `_mean_carrier_measure`
    (E[k(x)]); the Bregman divergence between two members is their KL divergence."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        # H = F(θ) - <θ, ∇F(θ)> - E[k(x)]
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
