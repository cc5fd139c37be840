"""torch.distributions parity: every case of tests/distributions_cases.py replayed against the
values PyTorch recorded (tests/record_distributions.py -> fixtures/distributions.json): log_prob,
its gradients with respect to the parameters, cdf/icdf, entropy, moments, shapes, KL
divergences, Gamma's implicit reparameterized gradient and the validation messages."""
import json
import math
import pathlib
import sys

import pytest

import rstorch
import rstorch.distributions as D

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
from distributions_cases import CASES, ERROR_CASES, GAMMA_GRAD, KL_CASES  # noqa: E402 (tests/ is on the path)

FIXTURE = json.loads((TESTS / "fixtures" / "distributions.json").read_text())


def build(name, params, fixed=None, nograd=(), dtype=rstorch.float64):
    tensors = {k: rstorch.tensor(v, dtype=dtype, requires_grad=k not in nograd) for k, v in params.items()}
    fixed = {k: rstorch.tensor(v, dtype=rstorch.float64) if isinstance(v, float) else v
             for k, v in (fixed or {}).items()}
    return getattr(D, name)(**fixed, **tensors), tensors


def close(actual, expected, rtol=1e-9, atol=1e-11):
    if expected is None:
        return
    got = actual.detach().tolist() if isinstance(actual, rstorch.Tensor) else actual
    flat_got, flat_exp = _flat(got), _flat(expected)
    assert len(flat_got) == len(flat_exp), (got, expected)
    for g, e in zip(flat_got, flat_exp):
        if math.isnan(e):
            assert math.isnan(g), (got, expected)
        elif math.isinf(e):
            assert g == e, (got, expected)
        else:
            assert abs(g - e) <= atol + rtol * abs(e), (got, expected)


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    return [float(x)]


@pytest.mark.parametrize("case,rec", list(zip(CASES, FIXTURE["cases"])),
                         ids=[f"{c['name']}-{i}" for i, c in enumerate(CASES)])
def test_values_and_gradients_match_pytorch(case, rec):
    dtype = getattr(rstorch, case.get("dtype", "float64"))
    # float32 cases agree to float32's precision.
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype is rstorch.float32 else {}
    dist, tensors = build(case["name"], case["params"], case.get("fixed"), case.get("nograd", ()), dtype)
    values = rstorch.tensor(case["values"], dtype=rstorch.int64 if case.get("long") else dtype)
    assert list(dist.batch_shape) == rec["batch_shape"] and list(dist.event_shape) == rec["event_shape"]
    log_prob = dist.log_prob(values)
    close(log_prob, rec["log_prob"], **tol)
    wrt = {k: t for k, t in tensors.items() if t.requires_grad}
    grads = rstorch.autograd.grad(log_prob.sum(), list(wrt.values()), allow_unused=True)
    for name, g in zip(wrt, grads):
        close(g, rec["grads"][name], **(tol or {"rtol": 1e-8, "atol": 1e-10}))
    for attr in ("mean", "mode", "variance", "stddev"):
        if rec[attr] is not None:
            close(getattr(dist, attr), rec[attr], **tol)
    # Multinomial's entropy takes lgamma(n + 1) of an integer tensor, in float32 as PyTorch does
    # (whose float32 lgamma rounds differently in the last bits).
    for name, fn in (("entropy", dist.entropy), ("cdf", lambda: dist.cdf(values))):
        if rec[name] is not None:
            close(fn(), rec[name], **(tol or {"rtol": 1e-7 if case["name"] == "Multinomial" else 1e-8}))
    if rec.get("icdf") is not None:
        close(dist.icdf(rstorch.tensor(case["probs"], dtype=dtype)), rec["icdf"], **(tol or {"rtol": 1e-8}))


@pytest.mark.parametrize("case,expected", list(zip(KL_CASES, FIXTURE["kl"])),
                         ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(KL_CASES)])
def test_kl_divergence_matches_pytorch(case, expected):
    p_name, p_params, q_name, q_params = case
    close(D.kl_divergence(build(p_name, p_params)[0], build(q_name, q_params)[0]), expected, rtol=1e-8)


def test_gamma_reparameterized_gradient_matches_pytorch():
    from rstorch.distributions._gamma_sampling import standard_gamma_grad
    alpha = rstorch.tensor(GAMMA_GRAD["alpha"], dtype=rstorch.float64)
    x = rstorch.tensor(GAMMA_GRAD["x"], dtype=rstorch.float64)
    # PyTorch's own gradient is an approximation (series and asymptotic fits), good to ~1e-4.
    close(standard_gamma_grad(alpha, x), FIXTURE["gamma_grad"], rtol=2e-3, atol=1e-6)


@pytest.mark.parametrize("case,message", list(zip(ERROR_CASES, FIXTURE["errors"])),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_validation_errors_are_pytorchs(case, message):
    name, params, value = case
    kwargs = {k: (rstorch.tensor(v) if isinstance(v, list) else v) for k, v in params.items()}
    with pytest.raises(ValueError) as info:
        dist = getattr(D, name)(**kwargs, validate_args=True)
        if value is not None:
            dist.log_prob(rstorch.tensor(value))
    assert str(info.value).replace("rstorch.", "torch.") == message
