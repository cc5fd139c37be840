"""Programs as PyTorch users write them with torch.distributions, run unchanged on rstorch:
REINFORCE with a Categorical policy, an actor-critic update with an entropy bonus, a VAE step
with Normal.rsample and kl_divergence, a Gaussian-mixture fit by maximum likelihood and a
tanh-squashed Gaussian policy (TransformedDistribution) as in SAC."""
import math

import rstorch as torch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.distributions import (Categorical, Independent, MixtureSameFamily, Normal, TanhTransform,
                                   TransformedDistribution, kl_divergence)


def test_reinforce_increases_the_rewarded_actions_probability():
    torch.manual_seed(0)
    policy = nn.Linear(4, 3)
    opt = torch.optim.Adam(policy.parameters(), lr=0.05)
    state = torch.ones(16, 4)
    before = F.softmax(policy(state[:1]), -1)[0, 2].item()
    for _ in range(30):
        dist = Categorical(logits=policy(state))
        actions = dist.sample()
        rewards = (actions == 2).float()
        loss = -(dist.log_prob(actions) * (rewards - rewards.mean())).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    after = F.softmax(policy(state[:1]), -1)[0, 2].item()
    assert after > before + 0.2


def test_actor_critic_loss_has_gradients_through_entropy_and_log_prob():
    torch.manual_seed(1)
    body = nn.Linear(3, 8)
    actor, critic = nn.Linear(8, 2), nn.Linear(8, 1)
    h = torch.tanh(body(torch.randn(5, 3)))
    dist = Categorical(probs=F.softmax(actor(h), dim=-1))
    action = dist.sample()
    advantage = torch.randn(5) - critic(h).squeeze(-1)
    loss = -(dist.log_prob(action) * advantage.detach()).mean() + advantage.pow(2).mean() - 0.01 * dist.entropy().mean()
    loss.backward()
    assert all(p.grad is not None for p in list(body.parameters()) + list(actor.parameters()) + list(critic.parameters()))


def test_vae_step_with_rsample_and_kl():
    torch.manual_seed(2)
    enc, dec = nn.Linear(6, 4), nn.Linear(2, 6)
    x = torch.rand(8, 6)
    mu, log_var = enc(x).chunk(2, dim=-1)
    q = Normal(mu, torch.exp(0.5 * log_var))
    z = q.rsample()
    recon = torch.sigmoid(dec(z))
    prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
    kl = kl_divergence(q, prior).sum(-1)
    # The closed form the VAE paper gives, as a cross-check of the registered pair.
    expected = -0.5 * (1 + log_var - mu.pow(2) - log_var.exp()).sum(-1)
    assert torch.allclose(kl, expected, atol=1e-5)
    loss = (F.binary_cross_entropy(recon, x, reduction="none").sum(-1) + kl).mean()
    loss.backward()
    assert enc.weight.grad is not None and float(enc.weight.grad.abs().sum()) > 0


def test_gaussian_mixture_fit_by_maximum_likelihood():
    torch.manual_seed(3)
    data = torch.cat([torch.randn(300) * 0.3 - 2.0, torch.randn(300) * 0.3 + 2.0])
    logits = torch.zeros(2, requires_grad=True)
    locs = torch.tensor([-0.5, 0.5], requires_grad=True)
    log_scales = torch.zeros(2, requires_grad=True)
    opt = torch.optim.Adam([logits, locs, log_scales], lr=0.1)
    for _ in range(150):
        mix = MixtureSameFamily(Categorical(logits=logits), Normal(locs, log_scales.exp()))
        loss = -mix.log_prob(data).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert sorted(round(v) for v in locs.tolist()) == [-2, 2]


def test_tanh_squashed_gaussian_policy():
    torch.manual_seed(4)
    mu = torch.zeros(4, 2, requires_grad=True)
    std = torch.full((4, 2), 0.5, requires_grad=True)
    dist = Independent(TransformedDistribution(Normal(mu, std), [TanhTransform(cache_size=1)]), 1)
    action = dist.rsample()
    assert bool((action.abs() < 1).all())
    log_prob = dist.log_prob(action)
    # log N(u) - sum log(1 - tanh(u)^2), the SAC correction, from the cached pre-image.
    u = torch.atanh(action.detach())
    base = Normal(mu, std).log_prob(u).sum(-1) - torch.log(1 - action.detach().pow(2)).sum(-1)
    assert torch.allclose(log_prob.detach(), base.detach(), atol=1e-3)
    (log_prob.sum() + action.sum()).backward()
    assert mu.grad is not None and std.grad is not None
    assert math.isfinite(float(log_prob.sum()))
