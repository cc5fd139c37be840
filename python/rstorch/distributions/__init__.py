"""torch.distributions: parameterizable probability distributions and sampling, written over
rstorch's tensor ops so that log_prob, entropy and rsample are differentiable."""
from . import constraints, transforms  # noqa: F401
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .normal import Normal
from .uniform import Uniform
from ._location_scale import Cauchy, Exponential, Laplace
from ._transformed_families import Gumbel, HalfCauchy, HalfNormal, LogNormal
from .independent import Independent
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .gamma import Chi2, Gamma
from .dirichlet import Beta, Dirichlet
from .studentT import StudentT
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from ._counts import Binomial, Geometric, Multinomial, NegativeBinomial, Poisson
from .multivariate_normal import MultivariateNormal
from .mixture_same_family import MixtureSameFamily
from ._relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .kl import kl_divergence, register_kl
from .constraint_registry import biject_to, transform_to
