"""torch.distributions on the wgpu device: log_prob, its gradients, entropy and KL agree with the
CPU, and draws stay on the device (the distributions are written over the core's ops, which
run on either). MultivariateNormal is left out: the core's tril/triu do not run on wgpu yet."""
import pytest

import rstorch
import rstorch.distributions as D
from _wgpu_helpers import close, needs_gpu

pytestmark = needs_gpu


def _pair(values):
    cpu = rstorch.tensor(values, requires_grad=True)
    gpu = rstorch.tensor(values, device="wgpu", requires_grad=True)
    return cpu, gpu


CASES = [
    ("Normal", lambda a, b: D.Normal(a, b.exp()), [0.1, 2.0]),
    ("Laplace", lambda a, b: D.Laplace(a, b.exp()), [0.1, 2.0]),
    ("Gamma", lambda a, b: D.Gamma(b.exp(), a.exp()), [0.4, 2.0]),
    ("Beta", lambda a, b: D.Beta(a.exp(), b.exp()), [0.2, 0.7]),
    ("Bernoulli", lambda a, b: D.Bernoulli(logits=a), [0.0, 1.0]),
    ("Categorical", lambda a, b: D.Categorical(logits=rstorch.stack([a, b])), [1, 0]),
    ("Exponential", lambda a, b: D.Exponential(b.exp()), [0.4, 2.0]),
]


@pytest.mark.parametrize("name,make,values", CASES, ids=[c[0] for c in CASES])
def test_log_prob_entropy_and_gradients_match_the_cpu(name, make, values):
    (a_cpu, a_gpu), (b_cpu, b_gpu) = _pair([0.3, -0.5]), _pair([0.2, 0.4])
    dtype = rstorch.int64 if name == "Categorical" else rstorch.float32
    d_cpu, d_gpu = make(a_cpu, b_cpu), make(a_gpu, b_gpu)
    lp_cpu = d_cpu.log_prob(rstorch.tensor(values, dtype=dtype))
    lp_gpu = d_gpu.log_prob(rstorch.tensor(values, dtype=dtype, device="wgpu"))
    close(lp_gpu, lp_cpu)
    close(d_gpu.entropy(), d_cpu.entropy())
    lp_cpu.sum().backward()
    lp_gpu.sum().backward()
    for on_gpu, on_cpu in ((a_gpu, a_cpu), (b_gpu, b_cpu)):
        assert (on_gpu.grad is None) == (on_cpu.grad is None)
        if on_cpu.grad is not None:
            close(on_gpu.grad, on_cpu.grad)


def test_draws_and_kl_stay_on_the_device():
    loc = rstorch.tensor([0.3, -1.0], device="wgpu", requires_grad=True)
    scale = rstorch.tensor([1.5, 0.4], device="wgpu")
    p, q = D.Normal(loc, scale), D.Normal(scale, scale)
    for draw in (p.rsample((3,)), D.Gamma(scale, scale).rsample((2,)), D.Categorical(logits=loc).sample((4,)),
                 D.Uniform(loc, loc + 1).rsample()):
        assert draw.device.type == "wgpu"
    kl = D.kl_divergence(p, q)
    assert kl.device.type == "wgpu"
    kl.sum().backward()
    assert loc.grad.device.type == "wgpu"
