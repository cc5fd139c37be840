"""torch.distributions sampling: sample statistics against the families' moments (fixed seed),
reproducibility under rstorch.manual_seed, shapes with sample_shape, gradcheck of the
reparameterized paths and of log_prob, the straight-through and relaxed estimators, and the
module's API surface (constraints, transforms, biject_to, expand, validation switches)."""
import pytest

import rstorch
import rstorch.distributions as D
from rstorch.autograd import gradcheck
from rstorch.distributions import constraints


def f64(*values):
    return rstorch.tensor(list(values), dtype=rstorch.float64)


STAT_CASES = [
    lambda: D.Normal(f64(0.3, -1.0), f64(1.5, 0.4)),
    lambda: D.Uniform(f64(0.0, -1.0), f64(2.0, 1.5)),
    lambda: D.Exponential(f64(0.5, 2.0)),
    lambda: D.Laplace(f64(0.3, -1.0), f64(1.5, 0.4)),
    lambda: D.Gumbel(f64(0.3, -1.0), f64(1.5, 0.4)),
    lambda: D.HalfNormal(f64(1.5, 0.4)),
    lambda: D.LogNormal(f64(0.3, -1.0), f64(0.5, 0.4)),
    lambda: D.Gamma(f64(0.4, 3.0), f64(1.5, 0.5)),
    lambda: D.Chi2(f64(1.5, 4.0)),
    lambda: D.Beta(f64(0.7, 2.0), f64(1.5, 3.0)),
    lambda: D.Dirichlet(f64(0.7, 2.0, 1.5)),
    lambda: D.StudentT(f64(6.0, 9.0), f64(0.3, -1.0), f64(1.5, 0.4)),
    lambda: D.Bernoulli(f64(0.2, 0.7)),
    lambda: D.Poisson(f64(0.5, 4.0)),
    lambda: D.Binomial(f64(5.0, 300.0), f64(0.3, 0.8)),
    lambda: D.Geometric(f64(0.3, 0.8)),
    lambda: D.NegativeBinomial(f64(3.0, 1.5), f64(0.3, 0.6)),
    lambda: D.Multinomial(7, f64(0.2, 0.3, 0.5)),
    lambda: D.OneHotCategorical(f64(0.2, 0.3, 0.5)),
    lambda: D.MultivariateNormal(f64(0.1, -0.2), rstorch.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=rstorch.float64)),
    lambda: D.MixtureSameFamily(D.Categorical(f64(0.3, 0.7)), D.Normal(f64(-1.0, 2.0), f64(0.5, 1.0))),
    lambda: D.LowRankMultivariateNormal(f64(0.1, -0.2, 0.3),
                                        rstorch.tensor([[1.0, 0.2], [0.3, -0.5], [0.1, 0.4]], dtype=rstorch.float64),
                                        f64(0.5, 1.0, 2.0)),
    lambda: D.ContinuousBernoulli(f64(0.2, 0.4995, 0.8)),
    lambda: D.Pareto(f64(1.0, 2.0), f64(5.0, 6.5)),
    lambda: D.Weibull(f64(1.0, 2.0), f64(3.0, 1.5)),
    lambda: D.InverseGamma(f64(5.0, 7.5), f64(1.0, 2.0)),
    lambda: D.Kumaraswamy(f64(2.0, 0.7), f64(3.0, 1.5)),
    lambda: D.FisherSnedecor(f64(5.0, 8.0), f64(12.0, 15.0)),
    lambda: D.GeneralizedPareto(f64(0.1, -0.5), f64(2.0, 1.0), f64(0.1, -0.3)),
]


def test_lkj_cholesky_correlations_have_the_marginal_variance():
    rstorch.manual_seed(0)
    eta = f64(0.5, 2.0)
    samples = D.LKJCholesky(3, eta).sample((20000,))
    assert bool(constraints.corr_cholesky.check(samples).all())
    corr = samples @ samples.mT
    # Each correlation is 2 Beta(b, b) - 1 with b = eta + (dim - 2) / 2: variance 1 / (2 eta + dim - 1).
    off = corr[..., 1, 0]
    assert rstorch.allclose(off.var(0), 1 / (2 * eta + 2), rtol=0.05)
    assert bool((off.mean(0).abs() < 0.02).all())


def test_wishart_samples_average_to_df_times_covariance():
    rstorch.manual_seed(0)
    cov = rstorch.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=rstorch.float64)
    dist = D.Wishart(f64(4.0, 7.0), covariance_matrix=cov)
    samples = dist.sample((20000,))
    assert tuple(samples.shape) == (20000, 2, 2, 2)
    assert bool(constraints.positive_definite.check(samples).all())
    assert rstorch.allclose(samples.mean(0), dist.mean, rtol=0.05)
    assert rstorch.allclose(samples.var(0), dist.variance, rtol=0.1)


def test_von_mises_samples_are_angles_around_loc():
    rstorch.manual_seed(0)
    loc = f64(0.3, -2.0, 3.0)
    samples = D.VonMises(loc, f64(0.5, 4.0, 12.0)).sample((20000,))
    assert bool(((samples >= -3.1416) & (samples < 3.1416)).all())
    circular_mean = rstorch.atan2(samples.sin().mean(0), samples.cos().mean(0))
    assert rstorch.allclose(circular_mean, loc, atol=0.05)


@pytest.mark.parametrize("make", STAT_CASES, ids=lambda m: type(m()).__name__)
def test_sample_mean_and_variance_match_the_moments(make):
    rstorch.manual_seed(0)
    dist = make()
    n = 40000
    samples = dist.sample((n,))
    assert tuple(samples.shape) == (n,) + tuple(dist.batch_shape) + tuple(dist.event_shape)
    assert bool(dist.support.check(samples).all())
    mean, var = dist.mean, dist.variance
    sd = var.sqrt()
    # Mean within 5 standard errors; variance within 10% (the families here have finite kurtosis).
    assert bool(((samples.mean(0) - mean).abs() <= 5 * sd / n ** 0.5 + 1e-9).all()), (samples.mean(0), mean)
    assert bool(((samples.var(0) - var).abs() <= 0.1 * var + 1e-9).all()), (samples.var(0), var)


def test_sampling_is_reproducible_under_manual_seed():
    dist = D.Gamma(f64(0.5, 2.0), f64(1.0, 1.0))
    rstorch.manual_seed(3)
    a = dist.sample((5,))
    rstorch.manual_seed(3)
    b = dist.sample((5,))
    assert bool((a == b).all())


def _seeded(fn):
    def run(*params):
        rstorch.manual_seed(7)
        return fn(*params)
    return run


@pytest.mark.parametrize("name,make", [
    ("Normal", lambda loc, scale: D.Normal(loc, scale)),
    ("LogNormal", lambda loc, scale: D.LogNormal(loc, scale)),
    ("Laplace", lambda loc, scale: D.Laplace(loc, scale)),
    ("Cauchy", lambda loc, scale: D.Cauchy(loc, scale)),
    ("Gumbel", lambda loc, scale: D.Gumbel(loc, scale)),
    ("Uniform", lambda loc, scale: D.Uniform(loc - 2, loc + scale + 1)),
    ("Exponential", lambda loc, scale: D.Exponential(scale)),
    ("HalfNormal", lambda loc, scale: D.HalfNormal(scale)),
    ("MultivariateNormal", lambda loc, scale: D.MultivariateNormal(loc, scale_tril=rstorch.diag_embed(scale))),
    ("LowRankMultivariateNormal", lambda loc, scale: D.LowRankMultivariateNormal(loc, scale.reshape(2, 1), scale)),
    ("Weibull", lambda loc, scale: D.Weibull(scale, loc.abs() + 1)),
    ("Pareto", lambda loc, scale: D.Pareto(scale * 0.3, loc.abs() + 1)),
    ("Kumaraswamy", lambda loc, scale: D.Kumaraswamy(loc.abs() + 1, scale)),
    ("ContinuousBernoulli", lambda loc, scale: D.ContinuousBernoulli(logits=loc * 2)),
])
def test_rsample_gradcheck(name, make):
    loc = f64(0.3, -0.5).requires_grad_()
    scale = f64(1.2, 0.7).requires_grad_()
    assert gradcheck(_seeded(lambda a, b: make(a, b).rsample((3,))), (loc, scale))
    value = f64(0.4, 0.9) if name in ("Kumaraswamy", "ContinuousBernoulli") else f64(0.4, 1.1)
    assert gradcheck(lambda a, b: make(a, b).log_prob(value), (loc, scale))


def test_gamma_rsample_gradient_is_the_implicit_one():
    # d sample / d alpha satisfies F(x(alpha); alpha) = u: moving alpha along the gradient keeps
    # the CDF level of the draw.
    from rstorch.distributions._gamma_sampling import regularized_lower_gamma
    rstorch.manual_seed(1)
    alpha = f64(0.6, 2.5, 9.0).requires_grad_()
    x = D.Gamma(alpha, 1.0).rsample()
    (g,) = rstorch.autograd.grad(x.sum(), [alpha])
    h = 1e-6
    level = regularized_lower_gamma(alpha.detach(), x.detach())
    moved = regularized_lower_gamma(alpha.detach() + h, x.detach() + h * g)
    assert bool(((moved - level).abs() < 1e-9).all())
    assert D.Gamma(alpha, 1.0).has_rsample and D.Dirichlet(alpha).has_rsample and D.Beta(alpha, alpha).has_rsample


def test_gamma_cdf_is_differentiable_in_rate_and_value():
    conc = f64(0.7, 3.0)
    assert gradcheck(lambda r, v: D.Gamma(conc, r).cdf(v), (f64(1.5, 0.5).requires_grad_(), f64(0.4, 2.5).requires_grad_()))


def test_dirichlet_and_beta_rsample_backpropagate_and_tiny_concentrations_stay_finite():
    rstorch.manual_seed(2)
    c = f64(0.5, 3.0, 1.0).requires_grad_()
    (g,) = rstorch.autograd.grad(D.Dirichlet(c).rsample((4,))[..., 0].sum(), [c])
    assert bool(rstorch.isfinite(g).all()) and float(g[0]) > 0
    a = f64(2.0).requires_grad_()
    D.Beta(a, 3.0).rsample((5,)).sum().backward()
    assert a.grad is not None
    # Every Gamma draw of shape 1e-3 underflows in linear space: the draws are nearly one-hot
    # (all but about 1% of them put more than 0.99 on one side).
    tiny = D.Dirichlet(rstorch.tensor([1e-3, 1e-3])).sample((200,))
    assert bool(rstorch.isfinite(tiny).all()) and float((tiny.max(-1)[0] > 0.99).float().mean()) > 0.9


def test_straight_through_and_relaxed_estimators_pass_gradients():
    probs = f64(0.2, 0.3, 0.5).requires_grad_()
    sample = D.OneHotCategoricalStraightThrough(probs=probs).rsample()
    assert float(sample.detach().sum()) == 1.0
    weights = f64(1.0, 2.0, 3.0)
    (g,) = rstorch.autograd.grad((sample * weights).sum(), [probs])
    # The gradient is that of the (normalised) probabilities themselves.
    (expected,) = rstorch.autograd.grad((probs / probs.sum() * weights).sum(), [probs])
    assert rstorch.allclose(g, expected)
    relaxed = D.RelaxedOneHotCategorical(rstorch.tensor(0.5, dtype=rstorch.float64), probs=probs).rsample((4,))
    assert bool(constraints.simplex.check(relaxed.detach()).all())
    assert D.RelaxedBernoulli(rstorch.tensor(0.5, dtype=rstorch.float64), probs=f64(0.3)).rsample((5,)).requires_grad is False


def test_has_rsample_and_enumerate_support():
    assert D.Normal(0.0, 1.0).has_rsample and not D.Bernoulli(0.3).has_rsample
    assert D.Categorical(f64(0.2, 0.8)).enumerate_support().tolist() == [0, 1]
    assert D.Bernoulli(f64(0.2, 0.8)).enumerate_support().shape == (2, 2)
    assert D.Binomial(3, f64(0.5)).enumerate_support(expand=False).reshape(-1).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(NotImplementedError):
        D.Poisson(1.0).rsample()


def test_expand_and_independent_shapes():
    d = D.Normal(f64(0.0, 1.0), f64(1.0, 2.0)).expand((3, 2))
    assert d.batch_shape == (3, 2) and d.sample((4,)).shape == (4, 3, 2)
    ind = D.Independent(d, 1)
    assert ind.batch_shape == (3,) and ind.event_shape == (2,)
    assert ind.log_prob(rstorch.zeros(3, 2, dtype=rstorch.float64)).shape == (3,)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(d, 3)
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert float(D.Categorical(f64(0.5, 0.5)).perplexity()) == pytest.approx(2.0)


def test_transforms_invert_and_biject_to_lands_in_the_constraint():
    x = f64(-1.5, 0.2, 2.0)
    for c in (constraints.real, constraints.positive, constraints.unit_interval, constraints.interval(-2.0, 3.0),
              constraints.greater_than(1.0), constraints.simplex):
        t = D.biject_to(c)
        y = t(x)
        assert bool(c.check(y).all()), c
        assert rstorch.allclose(t.inv(y), x)
    for t in (D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(), D.AffineTransform(1.0, -2.0),
              D.PowerTransform(f64(2.5)), D.SoftplusTransform()):
        xs = f64(0.3, 0.9).requires_grad_()
        y = t(xs)
        # log|det J| of an elementwise map is log|dy/dx|.
        (dy,) = rstorch.autograd.grad(y.sum(), [xs])
        assert rstorch.allclose(t.log_abs_det_jacobian(xs, y), dy.abs().log()), t
    assert D.ExpTransform().inv.inv == D.ExpTransform()


def test_default_validation_switch():
    D.Distribution.set_default_validate_args(False)
    try:
        D.Normal(0.0, -1.0)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.Bernoulli()


def test_distributions_load_lazily():
    import subprocess
    import sys
    code = "import sys, rstorch; print('rstorch.distributions' in sys.modules); rstorch.distributions.Normal"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
