"""torch.distributions: parameterizable probability distributions and sampling, written over
rstorch's tensor ops so that log_prob, entropy and rsample are differentiable."""
from . import constraints, transforms  # noqa: F401
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .normal import Normal
from .uniform import Uniform
from .cauchy import Cauchy
from .exponential import Exponential
from .laplace import Laplace
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .log_normal import LogNormal
from .independent import Independent
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .gamma import Gamma
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .beta import Beta
from .studentT import StudentT
from .bernoulli import Bernoulli
from .categorical import Categorical
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .binomial import Binomial
from .geometric import Geometric
from .multinomial import Multinomial
from .negative_binomial import NegativeBinomial
from .poisson import Poisson
from .multivariate_normal import MultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .kl import kl_divergence, register_kl
from .constraint_registry import biject_to, transform_to
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .continuous_bernoulli import ContinuousBernoulli
from .pareto import Pareto
from .weibull import Weibull
from .inverse_gamma import InverseGamma
from .logistic_normal import LogisticNormal
from .kumaraswamy import Kumaraswamy
from .fishersnedecor import FisherSnedecor
from .generalized_pareto import GeneralizedPareto
from .von_mises import VonMises
from .lkj_cholesky import LKJCholesky
from .wishart import Wishart

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet", "Distribution",
    "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel",
    "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal",
    "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "StudentT", "Poisson", "Uniform", "VonMises", "Weibull", "Wishart",
    "TransformedDistribution", "biject_to", "kl_divergence", "register_kl", "transform_to",
] + transforms.__all__
