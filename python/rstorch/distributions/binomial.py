import rstorch as torch

from . import constraints
from ._gamma_sampling import standard_gamma
from ._probs_param import BinaryProbsMixin, set_probs_or_logits
from .distribution import Distribution

__all__ = ["Binomial"]


def _binomial_sample(count, prob):
    """Exact Binomial(count, prob) draws. Large counts shrink by the order statistics of uniforms
    (the k-th smallest of n uniforms is Beta(k, n + 1 - k): below p it brings k successes and
    leaves n - k uniforms on (x, 1), above p it leaves k - 1 uniforms on (0, x)); the rest is a
    sum of Bernoulli draws."""
    n = count.detach().to(torch.float64)
    p = prob.detach().to(torch.float64)
    n, p = torch.broadcast_tensors(n, p)
    out = torch.zeros_like(n)
    ones = torch.ones_like(n)
    while True:
        big = n > 32
        if not bool(big.any()):
            break
        k = torch.floor(n / 2) + 1
        g1 = standard_gamma(torch.where(big, k, ones))
        g2 = standard_gamma(torch.where(big, n + 1 - k, ones))
        x = g1 / (g1 + g2)
        below = x < p
        out = torch.where(big & below, out + k, out)
        new_n = torch.where(below, n - k, k - 1)
        new_p = torch.where(below, (p - x) / (1 - x), p / x).clamp(0, 1)
        n = torch.where(big, new_n, n)
        p = torch.where(big, new_p, p)
    m = int(n.max()) if n.numel() else 0
    if m > 0:
        u = torch.rand((m,) + tuple(n.shape), dtype=torch.float64, device=n.device)
        index = torch.arange(m, dtype=torch.float64, device=n.device).view((m,) + (1,) * n.dim())
        out = out + ((u < p) & (index < n)).to(torch.float64).sum(0)
    return out.to(prob.dtype)


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2, as PyTorch's.
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryProbsMixin, Distribution):
    """Successes in `total_count` trials of success probability `probs` (or log-odds `logits`)."""
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        set_probs_or_logits(self, probs, logits, total_count=total_count)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Binomial, batch_shape, _instance, {"total_count": 0, "probs": 0, "logits": 0})

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            return _binomial_sample(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_factorial_n = torch.lgamma(n + 1)
        log_factorial_k = torch.lgamma(value + 1)
        log_factorial_nmk = torch.lgamma(n - value + 1)
        # n * log(1 + exp(logits)), written to stay finite for large |logits|.
        normalize_term = n * _clamp_by_zero(self.logits) + n * torch.log1p(torch.exp(-torch.abs(self.logits))) \
            - log_factorial_n
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = torch.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
