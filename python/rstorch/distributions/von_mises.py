import math

import rstorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz and Stegun 9.8.1-9.8.4: modified Bessel functions I0 and I1 as polynomials in
# t = x / 3.75 (|x| < 3.75) or in 1 / t (scaled by sqrt(x) exp(-x), x >= 3.75).
_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813]
_I0_LARGE = [0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633,
             0.00392377]
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411]
_I1_LARGE = [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654,
             -0.00420059]


def _polynomial(y, coefficients):
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0, order 0 or 1."""
    small_coef, large_coef = (_I0_SMALL, _I0_LARGE) if order == 0 else (_I1_SMALL, _I1_LARGE)
    y = (x / 3.75) ** 2
    small = _polynomial(y, small_coef)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _polynomial(y, large_coef).log()
    return torch.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best and Fisher's (1979) wrapped-Cauchy envelope, vectorised: each element retries until
    accepted."""
    out = torch.zeros(shape, dtype=torch.float64, device=loc.device)
    done = torch.zeros(shape, dtype=torch.bool, device=loc.device)
    while not bool(done.all()):
        u = torch.rand((3,) + tuple(shape), dtype=torch.float64, device=loc.device)
        u1, u2, u3 = u.unbind(0)
        z = torch.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        angle = torch.sign(u3 - 0.5) * torch.acos(f)
        out = torch.where(accept & ~done, angle, out)
        done = done | accept
    return torch.remainder(out + math.pi + loc, 2 * math.pi) - math.pi


class VonMises(Distribution):
    """The circular von Mises distribution: density exp(k cos(x - loc)) / (2 pi I0(k)); `loc`
    and values are angles (any real number, read modulo 2 pi)."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torch.Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(VonMises, batch_shape, _instance, {"loc": 0, "concentration": 0})

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * torch.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _proposal_r(self):
        kappa = self.concentration.to(torch.float64)
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        # For tiny kappa the closed form loses every digit; its expansion does not.
        return torch.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=()):
        # In float64 always: in float32 the acceptance test stalls for tiny concentrations.
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            return _rejection_sample(self.loc.to(torch.float64), self.concentration.to(torch.float64),
                                     self._proposal_r, shape).to(self.loc.dtype)

    @property
    def mean(self):
        """The circular mean."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance, 1 - I1(k) / I0(k)."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
