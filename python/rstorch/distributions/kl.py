"""KL divergences KL(p || q) in closed form, dispatched on the types of p and q (the most
specific registered pair wins, as in PyTorch)."""
import math
import warnings
from functools import total_ordering

import rstorch as torch
import rstorch.nn.functional as F

from .bernoulli import Bernoulli
from .continuous_bernoulli import ContinuousBernoulli
from .binomial import Binomial
from .cauchy import Cauchy
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, _xlogy, euler_constant

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator registering `fn(p, q)` as KL(p || q) for p of type_p and q of type_q."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun
    return decorator


@total_ordering
class _Match:
    """Orders registered pairs: one pair is before another when each of its types is a subclass
    of the other's (more specific)."""

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the broadcast batch shapes."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
                                  f"q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return torch.full_like(tensor, math.inf)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = torch.where(q.probs == 0, math.inf, t1)
    t1 = torch.where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = torch.where(q.probs == 1, math.inf, t2)
    t2 = torch.where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_params_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_params_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * torch.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * torch.digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * torch.digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return torch.where(p.total_count > q.total_count, math.inf, kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = torch.where((q.probs == 0).expand_as(t), math.inf, t)
    t = torch.where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # The Bregman divergence of the log normalizer between the natural parameters.
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                                  "be computed using Bregman divergences")
    p_nparams = [np_.detach().requires_grad_() for np_ in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = torch.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * torch.log(p.rate / q.rate)
    t2 = torch.lgamma(q.concentration) - torch.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * torch.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = torch.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * torch.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


def _scale_tril_of(d):
    if isinstance(d, MultivariateNormal):
        return d._unbroadcasted_scale_tril
    return d.scale_tril


def _kl_gaussians(p, q):
    """KL between two multivariate normals through their covariances' Cholesky factors:
    1/2 [tr(Σq^-1 Σp) + |Lq^-1 (μq - μp)|^2 - n] + log det Lq - log det Lp."""
    p_tril, q_tril = _scale_tril_of(p), _scale_tril_of(q)
    half_term1 = (q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = tuple(torch.broadcast_shapes(tuple(q_tril.shape[:-2]), tuple(p_tril.shape[:-2])))
    n = p.event_shape[0]
    solved = torch.linalg.solve_triangular(q_tril.expand(batch + (n, n)), p_tril.expand(batch + (n, n)), upper=False)
    term2 = solved.pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    return _kl_gaussians(p, q)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Low Rank Multivariate Normals with different event shapes "
                         "cannot be computed")
    return _kl_gaussians(p, q)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_mixed_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with different event shapes "
                         "cannot be computed")
    return _kl_gaussians(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (torch.log(p.rate) - torch.log(q.rate)) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return torch.where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + torch.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - torch.log1p(-q.probs)
    return t1 + t2 + t3


# Pairs of different families: KL(p || q) = -H(p) - E_p[log q(x)], with E_p[log q] written from
# the moments of p that q's log density needs.
def _uniform_mean_log(low, high):
    # E[log x] for x ~ U(low, high), low >= 0 (x log x is 0 at 0).
    return (_xlogy(high, high) - _xlogy(low, low)) / (high - low) - 1


def _log_normal_expectation(mean, variance, q):
    """E_p[log q(x)] for a Normal q, from p's mean and variance."""
    return -q.scale.log() - 0.5 * math.log(2 * math.pi) - (variance + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


def _log_exponential_expectation(mean, q):
    return q.rate.log() - q.rate * mean


def _log_gamma_expectation(mean, mean_log, q):
    k, r = q.concentration, q.rate
    return k * r.log() - k.lgamma() + (k - 1) * mean_log - r * mean


def _log_gumbel_expectation(mean, mgf, q):
    """E_p[log q] for a Gumbel q; `mgf` is E_p[exp(-x / q.scale)]."""
    return -q.scale.log() - (mean - q.loc) / q.scale - torch.exp(q.loc / q.scale) * mgf


def _log_continuous_bernoulli_expectation(mean, q):
    return mean * q.logits + torch.log1p(-q.probs) + q._cont_bern_log_norm()


def _infinite_where(condition, result):
    return torch.where(condition, math.inf, result)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _beta_mean_log(p):
    return p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()


@register_kl(Beta, ContinuousBernoulli)
@register_kl(Uniform, ContinuousBernoulli)
def _kl_unit_interval_continuous_bernoulli(p, q):
    result = -p.entropy() - _log_continuous_bernoulli_expectation(p.mean, q)
    if isinstance(p, Uniform):
        # PyTorch's bounds here are inclusive: U(0, 1) itself counts as outside.
        return _infinite_where((p.high >= 1) | (p.low <= 0), result)
    return result


@register_kl(Beta, Exponential)
@register_kl(ContinuousBernoulli, Exponential)
@register_kl(Gamma, Exponential)
def _kl_positive_exponential(p, q):
    return -p.entropy() - _log_exponential_expectation(p.mean, q)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    return -p.entropy() - _log_gamma_expectation(p.mean, _beta_mean_log(p), q)


@register_kl(Beta, Normal)
@register_kl(ContinuousBernoulli, Normal)
@register_kl(Gumbel, Normal)
@register_kl(Laplace, Normal)
def _kl_moments_normal(p, q):
    return -p.entropy() - _log_normal_expectation(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where((q.low > 0) | (q.high < 1), result)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # PyTorch's bounds here are inclusive: U(0, 1) itself counts as too narrow.
    return _infinite_where((q.low >= 0) | (q.high <= 1), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    return -p.entropy() - _log_gamma_expectation(p.mean, -euler_constant - p.rate.log(), q)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    mgf = p.rate / (p.rate + q.scale.reciprocal())
    return -p.entropy() - _log_gumbel_expectation(p.mean, mgf, q)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return -p.entropy() - _log_normal_expectation(p.mean, p.variance, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    mgf = (1 + (p.rate * q.scale).reciprocal()).pow(-p.concentration)
    return -p.entropy() - _log_gumbel_expectation(p.mean, mgf, q)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() - _log_normal_expectation(p.mean, p.variance, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mgf = torch.exp(-p.loc / q.scale + 0.5 * (p.scale / q.scale).pow(2))
    return -p.entropy() - _log_gumbel_expectation(p.loc, mgf, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    d = p.loc - q.loc
    mean_abs = math.sqrt(2 / math.pi) * p.scale * torch.exp(-0.5 * (d / p.scale).pow(2)) \
        + d * torch.erf(d / (p.scale * math.sqrt(2)))
    return -p.entropy() + torch.log(2 * q.scale) + mean_abs / q.scale


def _pareto_moments(p):
    a, s = p.alpha, p.scale
    mean = a * s / (a - 1)
    variance = s.pow(2) * a / ((a - 1).pow(2) * (a - 2))
    return mean, variance, s.log() + a.reciprocal()


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    mean, _, _ = _pareto_moments(p)
    return _infinite_where(p.alpha <= 1, -p.entropy() - _log_exponential_expectation(mean, q))


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean, _, mean_log = _pareto_moments(p)
    return _infinite_where(p.alpha <= 1, -p.entropy() - _log_gamma_expectation(mean, mean_log, q))


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    mean, variance, _ = _pareto_moments(p)
    return _infinite_where(p.alpha <= 2, -p.entropy() - _log_normal_expectation(mean, variance, q))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    _, _, mean_log = _pareto_moments(p)
    expected_log_q = q.alpha.log() + q.alpha * q.scale.log() - (q.alpha + 1) * mean_log
    return _infinite_where(p.scale < q.scale, -p.entropy() - expected_log_q)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    mean_log = _uniform_mean_log(p.low, p.high)
    mean_log1m = _uniform_mean_log(1 - p.high, 1 - p.low)
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    result = -p.entropy() - ((a - 1) * mean_log + (b - 1) * mean_log1m - log_beta)
    return _infinite_where((p.high > 1) | (p.low < 0), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = -p.entropy() - _log_exponential_expectation(p.mean, q)
    return _infinite_where(p.low < 0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    result = -p.entropy() - _log_gamma_expectation(p.mean, _uniform_mean_log(p.low, p.high), q)
    return _infinite_where(p.low < 0, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    mgf = q.scale * (torch.exp(-p.low / q.scale) - torch.exp(-p.high / q.scale)) / (p.high - p.low)
    return -p.entropy() - _log_gumbel_expectation(p.mean, mgf, q)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    return -p.entropy() - _log_normal_expectation(p.mean, p.variance, q)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    expected_log_q = q.alpha.log() + q.alpha * q.scale.log() - (q.alpha + 1) * _uniform_mean_log(p.low, p.high)
    return _infinite_where(p.low < q.scale, -p.entropy() - expected_log_q)


# Pairs whose supports make the divergence infinite everywhere (p puts mass where q has none).
def _infinite_kl(p, q):
    for name in ("concentration1", "probs", "rate", "concentration", "loc", "scale"):
        if name in type(p).__dict__ or name in p.__dict__ or hasattr(type(p), name):
            return torch.full_like(getattr(p, name), math.inf)
    raise AssertionError(f"no parameter to shape an infinite KL for {type(p).__name__}")


_INFINITE = {
    Beta: [Pareto], ContinuousBernoulli: [Pareto], Exponential: [Beta, ContinuousBernoulli, Pareto, Uniform],
    Gamma: [Beta, ContinuousBernoulli, Pareto, Uniform],
    Gumbel: [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform],
    Laplace: [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform],
    Normal: [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform],
    Pareto: [Beta, ContinuousBernoulli, Uniform], Poisson: [Bernoulli, Binomial],
}
for _p, _qs in _INFINITE.items():
    for _q in _qs:
        register_kl(_p, _q)(_infinite_kl)
del _p, _q, _qs
