"""Records PyTorch's values of torch.distributions into fixtures/distributions.json.

A case may name another `dtype` (float32 where PyTorch's float64 path fails: GeneralizedPareto
compares its float64 concentration with a float32 zero).

Run with a real PyTorch:  /work/torchref/bin/python tests/record_distributions.py
tests/python/test_distributions.py replays every case on rstorch. Per case of
distributions_cases.CASES (float64): log_prob at `values`, cdf and icdf where the family has them,
entropy, mean, mode, variance, stddev, batch/event shapes, and the gradients of log_prob(values).sum()
with respect to each differentiable parameter. KL_CASES give kl_divergence values, GAMMA_GRAD
torch._standard_gamma_grad, ERROR_CASES the ValueError messages of validation.
"""
import json
import pathlib
import sys

import torch
import torch.distributions as D

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from distributions_cases import CASES, ERROR_CASES, GAMMA_GRAD, KL_CASES  # noqa: E402


def build(name, params, fixed=None, nograd=(), dtype=torch.float64):
    tensors = {k: torch.tensor(v, dtype=dtype, requires_grad=k not in nograd) for k, v in params.items()}
    # Float fixed values (temperatures) are tensors, as PyTorch's relaxed families need.
    fixed = {k: torch.tensor(v, dtype=torch.float64) if isinstance(v, float) else v for k, v in (fixed or {}).items()}
    return getattr(D, name)(**fixed, **tensors), tensors


def listed(fn):
    try:
        value = fn()
    except NotImplementedError:
        return None
    return value.detach().tolist()


def record_case(case):
    dtype = getattr(torch, case.get("dtype", "float64"))
    dist, tensors = build(case["name"], case["params"], case.get("fixed"), case.get("nograd", ()), dtype)
    values = torch.tensor(case["values"], dtype=torch.int64 if case.get("long") else dtype)
    log_prob = dist.log_prob(values)
    wrt = {k: t for k, t in tensors.items() if t.requires_grad}
    grads = torch.autograd.grad(log_prob.sum(), list(wrt.values()), allow_unused=True)
    out = {
        "log_prob": log_prob.tolist(),
        "grads": {k: (g.tolist() if g is not None else None) for k, g in zip(wrt, grads)},
        "batch_shape": list(dist.batch_shape), "event_shape": list(dist.event_shape),
    }
    for attr in ("mean", "mode", "variance", "stddev"):
        out[attr] = listed(lambda: getattr(dist, attr))
    out["entropy"] = listed(dist.entropy)
    out["cdf"] = listed(lambda: dist.cdf(values))
    if "probs" in case:
        out["icdf"] = listed(lambda: dist.icdf(torch.tensor(case["probs"], dtype=dtype)))
    return out


def record_error(name, params, value):
    kwargs = {k: (torch.tensor(v) if isinstance(v, list) else v) for k, v in params.items()}
    try:
        dist = getattr(D, name)(**kwargs, validate_args=True)
        if value is not None:
            dist.log_prob(torch.tensor(value))
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{name} {params} {value} raised nothing")


def main():
    fixture = {
        "cases": [record_case(c) for c in CASES],
        "kl": [D.kl_divergence(build(a, pa)[0], build(b, pb)[0]).tolist() for a, pa, b, pb in KL_CASES],
        "gamma_grad": torch._standard_gamma_grad(torch.tensor(GAMMA_GRAD["alpha"], dtype=torch.float64),
                                                 torch.tensor(GAMMA_GRAD["x"], dtype=torch.float64)).tolist(),
        "errors": [record_error(*e) for e in ERROR_CASES],
    }
    path = pathlib.Path(__file__).parent / "fixtures" / "distributions.json"
    path.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
