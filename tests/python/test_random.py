"""PyTorch's sampling API: `bernoulli`, `normal` (four overloads), `poisson`, the in-place fills
(`bernoulli_`, `exponential_`, `geometric_`, `log_normal_`, `cauchy_`, `random_`) and the
generator state (`get_rng_state`/`set_rng_state`, `Generator.get_state`/`set_state`,
`torch.random`, `fork_rng`).

The draws come from another generator than PyTorch's, so values are checked by their laws (means
and variances within five standard errors, fixed seeds) and by seeds repeating them; result
dtypes, shapes and errors are PyTorch 2.15's, recorded by tests/record_random.py."""
import json
import math
import pathlib

import pytest

import rstorch
from rstorch.autograd import gradcheck

FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "random.json").read_text())


@pytest.mark.parametrize("expr", sorted(FIXTURE["cases"]))
def test_dtypes_shapes_and_errors_are_pytorchs(expr):
    want = FIXTURE["cases"][expr]
    if "error" in want:
        with pytest.raises(Exception) as info:
            eval(expr, {"torch": rstorch})
        assert type(info.value).__name__ == want["error"]
        assert str(info.value).split("\n")[0] == want["message"]
        return
    r = eval(expr, {"torch": rstorch})
    assert str(r.dtype).replace("rstorch.", "torch.") == want["dtype"]
    if "rng_state" in expr or "get_state" in expr:
        # rstorch's state is its own generator's (need not be PyTorch's layout): a 1-d ByteTensor.
        assert r.dim() == 1 and r.numel() > 0
    else:
        assert list(r.shape) == want["shape"]


def moments(t):
    v = t.double().flatten().tolist()
    mean = sum(v) / len(v)
    return mean, sum((x - mean) ** 2 for x in v) / (len(v) - 1), len(v)


def assert_law(t, mean, var):
    m, v, n = moments(t)
    assert abs(m - mean) < 5 * math.sqrt(var / n), (m, mean)
    assert abs(v / var - 1) < 0.05, (v, var)


N = 40000


def seeded(seed=0):
    return rstorch.Generator().manual_seed(seed)


def test_bernoulli_follows_each_elements_probability():
    p = rstorch.tensor([0.0, 0.1, 0.5, 0.9, 1.0]).expand(N, 5)
    s = rstorch.bernoulli(p, generator=seeded(1))
    cols = s.mean(0).tolist()
    for got, want in zip(cols, [0.0, 0.1, 0.5, 0.9, 1.0]):
        assert abs(got - want) < 5 * math.sqrt(max(want * (1 - want), 1e-12) / N) + 1e-12, (got, want)
    assert set(s.flatten().tolist()) == {0.0, 1.0}
    assert_law(rstorch.zeros(N).bernoulli_(0.3, generator=seeded(2)), 0.3, 0.21)
    assert_law(rstorch.zeros(N, dtype=rstorch.int64).bernoulli_(0.3, generator=seeded(3)), 0.3, 0.21)
    assert_law(rstorch.zeros(N).bernoulli(0.7, generator=seeded(4)), 0.7, 0.21)
    t = rstorch.zeros(N, 2).bernoulli_(rstorch.tensor([0.2, 0.8]), generator=seeded(5))
    assert abs(t[:, 0].mean().item() - 0.2) < 0.01 and abs(t[:, 1].mean().item() - 0.8) < 0.01


def test_normal_overloads_draw_with_their_means_and_stds():
    g = seeded(6)
    assert_law(rstorch.normal(2.0, 3.0, size=(N,), generator=g), 2.0, 9.0)
    assert_law(rstorch.normal(rstorch.full((N,), -1.0), 0.5, generator=g), -1.0, 0.25)
    assert_law(rstorch.normal(4.0, rstorch.full((N,), 2.0), generator=g), 4.0, 4.0)
    both = rstorch.normal(rstorch.tensor([0.0, 10.0]).expand(N, 2), rstorch.tensor([1.0, 0.1]), generator=g)
    assert_law(both[:, 0], 0.0, 1.0)
    assert_law(both[:, 1], 10.0, 0.01)
    assert rstorch.normal(0, 1, (2, 3), dtype=rstorch.float64, requires_grad=True).requires_grad
    out = rstorch.empty(3)
    assert rstorch.normal(rstorch.zeros(3), 1.0, out=out) is out


def test_normal_carries_gradients_to_mean_and_std():
    mean = rstorch.randn(4, dtype=rstorch.float64, requires_grad=True)
    std = (rstorch.rand(4, dtype=rstorch.float64) + 0.5).requires_grad_()
    # The same draws each call (a fresh generator of one seed), so the function is deterministic.
    assert gradcheck(lambda m, s: rstorch.normal(m, s, generator=seeded(7)), (mean, std))
    assert gradcheck(lambda m: rstorch.normal(m, 2.0, generator=seeded(8)), (mean,))


@pytest.mark.parametrize("rate", [0.0, 0.3, 4.0, 25.0, 700.0])
def test_poisson_has_the_rates_mean_and_variance(rate):
    s = rstorch.poisson(rstorch.full((N,), rate, dtype=rstorch.float64), generator=seeded(9))
    if rate == 0.0:
        assert s.abs().sum().item() == 0
        return
    assert all(float(x).is_integer() for x in s[:100].tolist())
    assert_law(s, rate, rate)


def test_in_place_fills_follow_their_laws():
    g = seeded(10)
    assert_law(rstorch.empty(N, dtype=rstorch.float64).exponential_(2.0, generator=g), 0.5, 0.25)
    geo = rstorch.empty(N).geometric_(0.25, generator=g)
    assert geo.min().item() >= 1 and all(float(x).is_integer() for x in geo[:100].tolist())
    assert_law(geo, 4.0, 0.75 / 0.25 ** 2)
    mu, sigma = 0.5, 0.4
    assert_law(rstorch.empty(N, dtype=rstorch.float64).log_normal_(mu, sigma, generator=g),
               math.exp(mu + sigma ** 2 / 2), (math.exp(sigma ** 2) - 1) * math.exp(2 * mu + sigma ** 2))
    # Cauchy has no mean: its median and quartiles are median -+ sigma.
    c = sorted(rstorch.empty(N, dtype=rstorch.float64).cauchy_(1.0, 2.0, generator=g).tolist())
    for q, want in [(0.25, -1.0), (0.5, 1.0), (0.75, 3.0)]:
        assert abs(c[int(q * N)] - want) < 0.1, (q, c[int(q * N)])


def test_random_ranges_per_dtype():
    g = seeded(11)
    r = rstorch.empty(N, dtype=rstorch.int64).random_(3, 9, generator=g)
    assert r.min().item() == 3 and r.max().item() == 8
    assert_law(r, 5.5, (6 ** 2 - 1) / 12)
    r = rstorch.empty(N).random_(5, generator=g)
    assert set(r.tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    assert rstorch.empty(N, dtype=rstorch.float64).random_(-4, generator=g, to=-1).max().item() == -2
    for dtype, top in FIXTURE["random_max"].items():
        t = rstorch.zeros(200000, dtype=getattr(rstorch, dtype.split(".")[1])).random_(generator=g)
        assert t.min().item() == 0 and t.max().item() == top, dtype
    big = rstorch.empty(1000).random_(generator=g)
    assert big.max().item() > 2 ** 22 and big.max().item() <= 2 ** 24


def test_a_seed_repeats_every_draw():
    draws = [
        lambda g: rstorch.bernoulli(rstorch.full((50,), 0.5), generator=g),
        lambda g: rstorch.normal(rstorch.zeros(50), rstorch.ones(50), generator=g),
        lambda g: rstorch.normal(0.0, 1.0, (50,), generator=g),
        lambda g: rstorch.poisson(rstorch.full((50,), 30.0), generator=g),
        lambda g: rstorch.empty(50).exponential_(generator=g),
        lambda g: rstorch.empty(50).geometric_(0.3, generator=g),
        lambda g: rstorch.empty(50).log_normal_(generator=g),
        lambda g: rstorch.empty(50).cauchy_(generator=g),
        lambda g: rstorch.empty(50, dtype=rstorch.int32).random_(generator=g),
    ]
    for draw in draws:
        assert draw(seeded(12)).tolist() == draw(seeded(12)).tolist()
        rstorch.manual_seed(13)
        a = draw(None).tolist()
        rstorch.manual_seed(13)
        assert draw(None).tolist() == a


def test_generator_state_round_trips_to_the_same_draws():
    g = seeded(14)
    g_state = g.get_state()
    assert g_state.dtype == rstorch.uint8 and g_state.dim() == 1
    first = rstorch.rand(20, generator=g).tolist()
    assert g.set_state(g_state) is g
    assert rstorch.rand(20, generator=g).tolist() == first
    assert g.initial_seed() == 14
    other = rstorch.Generator().set_state(g_state)
    assert rstorch.rand(20, generator=other).tolist() == first

    rstorch.manual_seed(15)
    state = rstorch.get_rng_state()
    a = rstorch.randn(10).tolist()
    rstorch.set_rng_state(state)
    assert rstorch.randn(10).tolist() == a
    with pytest.raises(RuntimeError, match="CPUGeneratorImplState of size"):
        rstorch.set_rng_state(rstorch.zeros(3, dtype=rstorch.uint8))


def test_torch_random_module():
    import rstorch.random as R
    for name, params in FIXTURE["signatures"].items():
        import inspect
        assert [p for p in inspect.signature(getattr(R, name)).parameters] == params, name
    assert R.manual_seed(16) is rstorch.default_generator
    assert R.initial_seed() == 16 == rstorch.default_generator.initial_seed()
    a = rstorch.rand(5).tolist()
    R.manual_seed(16)
    with R.fork_rng():
        rstorch.rand(100)
    assert rstorch.rand(5).tolist() == a
    R.manual_seed(16)
    with R.fork_rng(enabled=False):
        rstorch.rand(100)
    assert rstorch.rand(5).tolist() != a
    s = R.seed()
    assert R.initial_seed() == s
    assert R.get_rng_state().dtype == rstorch.uint8
    assert rstorch.random is R
