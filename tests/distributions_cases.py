"""The cases of tests/record_distributions.py, shared by the recorder (run on PyTorch) and the
replay (tests/python/test_distributions.py, run on rstorch): a case builds a distribution from
float64 parameters given as nested lists (`params`, differentiable), plain Python values
(`fixed`: counts, temperatures) and evaluates it at `values` (and `probs` for icdf)."""

CASES = [
    dict(name="Normal", params={"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, values=[[0.1, 2.0], [-0.5, -1.0]],
         probs=[0.1, 0.7]),
    dict(name="Uniform", params={"low": [0.0, -1.0], "high": [2.0, 1.5]}, values=[0.5, 0.3], probs=[0.1, 0.7]),
    dict(name="Exponential", params={"rate": [0.5, 2.0]}, values=[[0.3, 1.7], [2.0, 0.01]], probs=[0.1, 0.7]),
    dict(name="Laplace", params={"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, values=[0.1, -2.0], probs=[0.1, 0.7]),
    dict(name="Cauchy", params={"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, values=[0.1, -2.0], probs=[0.1, 0.7]),
    dict(name="Gumbel", params={"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, values=[0.1, -2.0], probs=[0.1, 0.7]),
    dict(name="HalfNormal", params={"scale": [1.5, 0.4]}, values=[0.1, 2.0], probs=[0.1, 0.7]),
    dict(name="HalfCauchy", params={"scale": [1.5, 0.4]}, values=[0.1, 2.0], probs=[0.1, 0.7]),
    dict(name="LogNormal", params={"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, values=[0.1, 2.0], probs=[0.1, 0.7]),
    dict(name="Gamma", params={"concentration": [0.7, 3.0], "rate": [1.5, 0.5]}, values=[0.4, 2.5]),
    dict(name="Chi2", params={"df": [1.5, 4.0]}, values=[0.4, 2.5]),
    dict(name="Beta", params={"concentration1": [0.7, 2.0], "concentration0": [1.5, 3.0]}, values=[0.2, 0.9]),
    dict(name="Dirichlet", params={"concentration": [[0.7, 2.0, 1.5], [3.0, 1.0, 0.5]]},
         values=[[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]),
    dict(name="StudentT", params={"df": [3.0, 1.5], "loc": [0.3, -1.2], "scale": [1.5, 0.4]}, values=[0.1, -2.0]),
    dict(name="StudentT", params={"df": [5.0, 0.8]}, values=[0.1, -2.0]),
    dict(name="Bernoulli", params={"probs": [0.2, 0.7]}, values=[0.0, 1.0]),
    dict(name="Bernoulli", params={"logits": [-0.4, 1.3]}, values=[[0.0, 1.0], [1.0, 1.0]]),
    dict(name="Categorical", params={"probs": [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]}, values=[2, 0], long=True),
    dict(name="Categorical", params={"logits": [[0.2, -0.3, 1.5], [0.6, 0.1, -2.3]]}, values=[[1, 0], [2, 2]],
         long=True),
    dict(name="OneHotCategorical", params={"probs": [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]},
         values=[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    dict(name="Poisson", params={"rate": [0.5, 4.0]}, values=[[0.0, 3.0], [2.0, 7.0]]),
    dict(name="Binomial", params={"total_count": [5.0, 10.0], "probs": [0.3, 0.8]}, values=[2.0, 9.0],
         nograd=["total_count"]),
    dict(name="Binomial", fixed={"total_count": 6}, params={"logits": [-0.3, 1.8]}, values=[0.0, 6.0]),
    dict(name="Geometric", params={"probs": [0.3, 0.8]}, values=[0.0, 3.0]),
    dict(name="NegativeBinomial", params={"total_count": [3.0, 1.5], "probs": [0.3, 0.6]}, values=[0.0, 4.0]),
    dict(name="Multinomial", fixed={"total_count": 6}, params={"probs": [0.2, 0.3, 0.5]},
         values=[[1.0, 2.0, 3.0], [0.0, 6.0, 0.0]]),
    dict(name="MultivariateNormal", params={"loc": [0.1, -0.2], "covariance_matrix": [[2.0, 0.5], [0.5, 1.0]]},
         values=[[0.3, 0.1], [1.0, 2.0]]),
    dict(name="MultivariateNormal", params={"loc": [[0.1, -0.2, 0.4]],
                                            "scale_tril": [[1.2, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.5, 0.2, 1.5]]},
         values=[[0.3, 0.1, -1.0], [1.0, 2.0, 0.5]]),
    dict(name="MultivariateNormal", params={"loc": [0.1, -0.2],
                                            "precision_matrix": [[1.0, -0.3], [-0.3, 0.5]]},
         values=[[0.3, 0.1], [1.0, 2.0]]),
    dict(name="RelaxedBernoulli", fixed={"temperature": 0.5}, params={"probs": [0.2, 0.7]}, values=[0.3, 0.9]),
    dict(name="RelaxedOneHotCategorical", fixed={"temperature": 0.7}, params={"probs": [0.2, 0.3, 0.5]},
         values=[[0.1, 0.3, 0.6], [0.5, 0.25, 0.25]]),
    dict(name="LowRankMultivariateNormal",
         params={"loc": [0.1, -0.2, 0.3], "cov_factor": [[1.0, 0.2], [0.3, -0.5], [0.1, 0.4]],
                 "cov_diag": [0.5, 1.0, 2.0]}, values=[[0.3, 0.1, -0.4], [1.0, -2.0, 0.5]]),
    dict(name="ContinuousBernoulli", params={"probs": [0.2, 0.4995, 0.8]}, values=[0.3, 0.6, 0.9],
         probs=[0.1, 0.5, 0.7]),
    dict(name="ContinuousBernoulli", params={"logits": [-1.2, 0.0001, 2.5]}, values=[0.3, 0.6, 0.9],
         probs=[0.1, 0.5, 0.7]),
    dict(name="Pareto", params={"scale": [1.0, 2.0], "alpha": [3.0, 1.5]}, values=[1.5, 3.0], probs=[0.1, 0.7]),
    dict(name="Weibull", params={"scale": [1.0, 2.0], "concentration": [3.0, 1.5]}, values=[1.5, 3.0],
         probs=[0.1, 0.7]),
    dict(name="InverseGamma", params={"concentration": [3.0, 1.5], "rate": [1.0, 2.0]}, values=[1.5, 3.0]),
    dict(name="LogisticNormal", params={"loc": [0.1, -0.3], "scale": [1.0, 0.5]},
         values=[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
    dict(name="Kumaraswamy", params={"concentration1": [2.0, 0.7], "concentration0": [3.0, 1.5]},
         values=[0.3, 0.8]),
    dict(name="FisherSnedecor", params={"df1": [3.0, 6.0], "df2": [5.0, 10.0]}, values=[0.5, 2.0]),
]

LOWRANK_P = {"loc": [0.1, -0.2, 0.3], "cov_factor": [[1.0, 0.2], [0.3, -0.5], [0.1, 0.4]], "cov_diag": [0.5, 1.0, 2.0]}
LOWRANK_Q = {"loc": [0.4, 0.0, -0.3], "cov_factor": [[0.5], [-0.2], [0.8]], "cov_diag": [1.5, 0.7, 1.0]}
MVN_3 = {"loc": [0.2, 0.1, -0.1], "scale_tril": [[1.2, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.5, 0.2, 1.5]]}

# One parameter set per family for the cross-family pairs (two batch elements each; the Uniforms
# cover both the finite and the infinite branches).
P = {
    "Normal": {"loc": [0.3, -1.2], "scale": [1.5, 0.4]},
    "Laplace": {"loc": [0.5, -0.2], "scale": [0.7, 1.3]},
    "Gumbel": {"loc": [0.1, 1.0], "scale": [0.8, 2.0]},
    "Exponential": {"rate": [0.5, 2.0]},
    "Gamma": {"concentration": [0.7, 3.0], "rate": [1.5, 0.5]},
    "Beta": {"concentration1": [0.7, 2.0], "concentration0": [1.5, 3.0]},
    "ContinuousBernoulli": {"probs": [0.2, 0.8]},
    "Pareto": {"scale": [0.5, 2.0], "alpha": [3.0, 1.5]},
    "Uniform": {"low": [0.2, -0.5], "high": [0.9, 1.5]},
    "Bernoulli": {"probs": [0.2, 0.7]},
    "Binomial": {"total_count": [5.0, 10.0], "probs": [0.3, 0.8]},
    "Poisson": {"rate": [0.5, 4.0]},
}
CROSS_PAIRS = [
    ("Bernoulli", "Poisson"), ("Beta", "ContinuousBernoulli"), ("Beta", "Pareto"), ("Beta", "Exponential"),
    ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"), ("ContinuousBernoulli", "Pareto"),
    ("ContinuousBernoulli", "Exponential"), ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "Uniform"),
    ("Exponential", "Beta"), ("Exponential", "Gamma"), ("Exponential", "Gumbel"), ("Exponential", "Normal"),
    ("Exponential", "Uniform"), ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gamma", "Normal"),
    ("Gamma", "Pareto"), ("Gumbel", "Normal"), ("Gumbel", "Gamma"), ("Laplace", "Normal"), ("Laplace", "Beta"),
    ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Normal", "Exponential"), ("Pareto", "Exponential"),
    ("Pareto", "Gamma"), ("Pareto", "Normal"), ("Pareto", "Uniform"), ("Poisson", "Bernoulli"),
    ("Poisson", "Binomial"), ("Uniform", "Beta"), ("Uniform", "ContinuousBernoulli"), ("Uniform", "Exponential"),
    ("Uniform", "Gamma"), ("Uniform", "Gumbel"), ("Uniform", "Normal"), ("Uniform", "Pareto"),
]

# KL(p || q): two cases of the list above (same family) with their own parameters.
KL_CASES = [
    ("Normal", {"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, "Normal", {"loc": [1.0, 0.2], "scale": [0.5, 2.0]}),
    ("Uniform", {"low": [0.0, -1.0], "high": [2.0, 1.5]}, "Uniform", {"low": [-1.0, -1.0], "high": [3.0, 1.0]}),
    ("Exponential", {"rate": [0.5, 2.0]}, "Exponential", {"rate": [1.5, 0.3]}),
    ("Laplace", {"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, "Laplace", {"loc": [1.0, 0.2], "scale": [0.5, 2.0]}),
    ("Cauchy", {"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, "Cauchy", {"loc": [1.0, 0.2], "scale": [0.5, 2.0]}),
    ("Gumbel", {"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, "Gumbel", {"loc": [1.0, 0.2], "scale": [0.5, 2.0]}),
    ("HalfNormal", {"scale": [1.5, 0.4]}, "HalfNormal", {"scale": [0.5, 2.0]}),
    ("LogNormal", {"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, "LogNormal", {"loc": [1.0, 0.2], "scale": [0.5, 2.0]}),
    ("Gamma", {"concentration": [0.7, 3.0], "rate": [1.5, 0.5]}, "Gamma",
     {"concentration": [2.0, 1.0], "rate": [0.5, 1.5]}),
    ("Chi2", {"df": [1.5, 4.0]}, "Chi2", {"df": [3.0, 0.5]}),
    ("Beta", {"concentration1": [0.7, 2.0], "concentration0": [1.5, 3.0]}, "Beta",
     {"concentration1": [2.0, 0.5], "concentration0": [1.0, 1.0]}),
    ("Dirichlet", {"concentration": [0.7, 2.0, 1.5]}, "Dirichlet", {"concentration": [1.0, 1.0, 3.0]}),
    ("Bernoulli", {"probs": [0.2, 0.7]}, "Bernoulli", {"probs": [0.5, 0.1]}),
    ("Categorical", {"probs": [0.2, 0.3, 0.5]}, "Categorical", {"probs": [0.6, 0.1, 0.3]}),
    ("OneHotCategorical", {"probs": [0.2, 0.3, 0.5]}, "OneHotCategorical", {"probs": [0.6, 0.1, 0.3]}),
    ("Poisson", {"rate": [0.5, 4.0]}, "Poisson", {"rate": [2.0, 1.0]}),
    ("Geometric", {"probs": [0.3, 0.8]}, "Geometric", {"probs": [0.5, 0.2]}),
    ("Binomial", {"total_count": [5.0, 10.0], "probs": [0.3, 0.8]}, "Binomial",
     {"total_count": [5.0, 10.0], "probs": [0.6, 0.5]}),
    ("MultivariateNormal", {"loc": [0.1, -0.2], "covariance_matrix": [[2.0, 0.5], [0.5, 1.0]]}, "MultivariateNormal",
     {"loc": [0.5, 0.3], "covariance_matrix": [[1.0, -0.2], [-0.2, 0.7]]}),
    ("Normal", {"loc": [0.3, -1.2], "scale": [1.5, 0.4]}, "Uniform", {"low": [0.0, -1.0], "high": [2.0, 1.5]}),
    ("ContinuousBernoulli", {"probs": [0.2, 0.4995, 0.8]}, "ContinuousBernoulli", {"probs": [0.6, 0.3, 0.5001]}),
    ("Pareto", {"scale": [1.0, 2.0], "alpha": [3.0, 1.5]}, "Pareto", {"scale": [0.5, 2.5], "alpha": [1.0, 2.0]}),
    ("LowRankMultivariateNormal", LOWRANK_P, "LowRankMultivariateNormal", LOWRANK_Q),
    ("LowRankMultivariateNormal", LOWRANK_P, "MultivariateNormal", MVN_3),
    ("MultivariateNormal", MVN_3, "LowRankMultivariateNormal", LOWRANK_Q),
] + [(p, P[p], q, P[q]) for p, q in CROSS_PAIRS]

# (concentration, value) pairs for the implicit reparameterized gradient of Gamma draws.
GAMMA_GRAD = {"alpha": [0.3, 1.0, 2.5, 50.0, 0.5, 3.0, 0.05, 10.0], "x": [0.1, 0.7, 4.0, 48.0, 2.0, 0.01, 1e-4, 15.0]}

# Constructions and evaluations whose ValueError messages must be PyTorch's.
ERROR_CASES = [
    ("Normal", {"loc": 0.0, "scale": -1.0}, None),
    ("Normal", {"loc": [0.0, 1.0], "scale": [1.0, 0.0]}, None),
    ("Exponential", {"rate": [1.0, 2.0]}, [-1.0, 1.0]),
    ("Exponential", {"rate": [1.0, 2.0]}, [1.0, 1.0, 1.0]),
    ("Bernoulli", {"probs": [0.3, 0.6]}, [0.5, 1.0]),
    ("Categorical", {"probs": [0.3, 0.7]}, [2.0]),
    ("Beta", {"concentration1": [1.0], "concentration0": [1.0]}, [1.5]),
    ("Uniform", {"low": [0.0], "high": [1.0]}, [1.5]),
]
