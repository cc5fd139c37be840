"""nn.init: gains, fans, and the statistics of every initialiser, as PyTorch documents them."""
import math
import warnings

import numpy as np
import pytest

import rstorch as torch
import rstorch.nn as nn
from rstorch.nn import init


def values(t):
    return t.detach().double().numpy()


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1
    assert init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / (1 + 0.2 ** 2))
    assert init.calculate_gain("leaky_relu", 1) == 1.0
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")


def test_fan_in_and_fan_out():
    assert init._calculate_fan_in_and_fan_out(torch.empty(5, 3)) == (3, 5)
    assert init._calculate_fan_in_and_fan_out(torch.empty(16, 8, 3, 3)) == (72, 144)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with "
                                         "fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(torch.empty(5))


def test_initialisers_fill_in_place_without_history():
    p = nn.Parameter(torch.empty(30, 20))
    for fn in [init.uniform_, init.normal_, init.xavier_uniform_, init.xavier_normal_,
               init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_,
               init.trunc_normal_, init.ones_, init.zeros_, init.eye_]:
        out = fn(p)
        assert out is p, fn.__name__
        assert p.requires_grad and p.is_leaf and p.grad_fn is None, fn.__name__
    assert init.constant_(p, 0.3) is p
    assert np.allclose(values(p), 0.3)


def test_uniform_and_normal():
    t = torch.empty(200, 200)
    init.uniform_(t, -2.0, 3.0)
    v = values(t)
    assert v.min() >= -2.0 and v.max() <= 3.0
    assert abs(v.mean() - 0.5) < 0.05
    init.normal_(t, 1.0, 2.0)
    v = values(t)
    assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 2.0) < 0.05


def test_constant_ones_zeros_eye():
    t = torch.empty(3, 4)
    assert values(init.ones_(t)).tolist() == [[1.0] * 4] * 3
    assert values(init.zeros_(t)).tolist() == [[0.0] * 4] * 3
    assert values(init.eye_(t)).tolist() == np.eye(3, 4).tolist()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(torch.empty(2, 2, 2))


def test_dirac():
    w = torch.empty(4, 2, 3)
    init.dirac_(w)
    v = values(w)
    expected = np.zeros((4, 2, 3))
    expected[0, 0, 1] = expected[1, 1, 1] = 1
    assert (v == expected).all()
    w = torch.empty(4, 2, 3, 3)
    init.dirac_(w, groups=2)
    v = values(w)
    expected = np.zeros((4, 2, 3, 3))
    expected[0, 0, 1, 1] = expected[1, 1, 1, 1] = expected[2, 0, 1, 1] = expected[3, 1, 1, 1] = 1
    assert (v == expected).all()
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(torch.empty(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(torch.empty(3, 2, 3), groups=2)


def test_xavier_uniform_bounds():
    t = torch.empty(300, 200)
    init.xavier_uniform_(t, gain=2.0)
    a = 2.0 * math.sqrt(6.0 / (300 + 200))
    v = values(t)
    assert np.abs(v).max() <= a + 1e-6
    assert np.abs(v).max() > 0.99 * a
    assert abs(v.std() - a / math.sqrt(3)) < 0.02 * a


def test_xavier_normal_std():
    t = torch.empty(400, 300)
    init.xavier_normal_(t)
    std = math.sqrt(2.0 / (400 + 300))
    v = values(t)
    assert abs(v.std() - std) < 0.02 * std and abs(v.mean()) < 0.02 * std


def test_kaiming_normal_and_uniform_std():
    t = torch.empty(500, 400)
    init.kaiming_normal_(t, mode="fan_in", nonlinearity="relu")
    expected = math.sqrt(2.0) / math.sqrt(400)
    assert abs(values(t).std() - expected) < 0.02 * expected
    init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    expected = math.sqrt(2.0) / math.sqrt(500)
    assert abs(values(t).std() - expected) < 0.02 * expected
    init.kaiming_uniform_(t, a=math.sqrt(5))
    bound = 1 / math.sqrt(400)  # gain sqrt(2 / 6) * sqrt(3 / fan_in)
    v = values(t)
    assert np.abs(v).max() <= bound + 1e-6 and np.abs(v).max() > 0.99 * bound
    assert abs(v.std() - bound / math.sqrt(3)) < 0.02 * bound
    conv = torch.empty(64, 16, 3, 3)
    init.kaiming_normal_(conv)
    expected = math.sqrt(2.0 / (1 + 0.01 ** 2)) / math.sqrt(16 * 9)
    assert abs(values(conv).std() - expected) < 0.03 * expected
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of "
                                         r"\['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(t, mode="fan_avg")


def test_kaiming_on_empty_tensor_warns():
    t = torch.empty(0, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert init.kaiming_uniform_(t) is t
    assert any("Initializing zero-element tensors is a no-op" in str(w.message) for w in caught)


@pytest.mark.parametrize("shape", [(6, 6), (4, 10), (10, 4), (8, 2, 3, 3)])
def test_orthogonal(shape):
    t = torch.empty(*shape)
    init.orthogonal_(t, gain=1.0)
    flat = values(t).reshape(shape[0], -1)
    rows, cols = flat.shape
    if rows <= cols:
        assert np.allclose(flat @ flat.T, np.eye(rows), atol=1e-5)
    else:
        assert np.allclose(flat.T @ flat, np.eye(cols), atol=1e-5)
    init.orthogonal_(t, gain=3.0)
    flat = values(t).reshape(shape[0], -1)
    small = min(rows, cols)
    gram = flat @ flat.T if rows <= cols else flat.T @ flat
    assert np.allclose(gram, 9.0 * np.eye(small), atol=1e-4)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(torch.empty(3))


def test_trunc_normal():
    t = torch.empty(400, 400)
    init.trunc_normal_(t, mean=0.5, std=1.0, a=-1.0, b=2.0)
    v = values(t)
    assert v.min() >= -1.0 and v.max() <= 2.0
    # Moments of N(0.5, 1) truncated to [-1, 2], i.e. alpha=-1.5, beta=1.5 standard units.
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
    alpha, beta = -1.5, 1.5
    z = cdf(beta) - cdf(alpha)
    mean = 0.5 + (phi(alpha) - phi(beta)) / z
    var = 1 + (alpha * phi(alpha) - beta * phi(beta)) / z - ((phi(alpha) - phi(beta)) / z) ** 2
    assert abs(v.mean() - mean) < 0.01
    assert abs(v.std() - math.sqrt(var)) < 0.01
    # Standard settings: N(0, 0.02) cut at +-2 is essentially untruncated.
    init.trunc_normal_(t, std=0.02)
    assert abs(values(t).std() - 0.02) < 0.001


def test_trunc_normal_matches_the_normal_quantiles():
    t = torch.empty(1000, 100)
    init.trunc_normal_(t, a=-10.0, b=10.0)
    v = np.sort(values(t).ravel())
    # Quantiles of N(0, 1).
    for q, z in [(0.1587, -1.0), (0.5, 0.0), (0.9772, 2.0)]:
        assert abs(v[int(q * v.size)] - z) < 0.03


def test_sparse():
    t = torch.empty(10, 50)
    init.sparse_(t, sparsity=0.3, std=0.5)
    v = values(t)
    assert ((v == 0).sum(axis=0) == 3).all()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(torch.empty(3, 3, 3), 0.1)


def test_generator_makes_it_reproducible():
    a, b = torch.empty(50, 40), torch.empty(50, 40)
    init.kaiming_uniform_(a, generator=torch.Generator().manual_seed(7))
    init.kaiming_uniform_(b, generator=torch.Generator().manual_seed(7))
    assert (values(a) == values(b)).all()
    init.orthogonal_(a, generator=torch.Generator().manual_seed(3))
    init.orthogonal_(b, generator=torch.Generator().manual_seed(3))
    assert (values(a) == values(b)).all()


def test_deprecated_aliases_warn():
    t = torch.empty(3, 3)
    with pytest.warns(FutureWarning, match="nn.init.xavier_uniform` is now deprecated in favor "
                                           "of `nn.init.xavier_uniform_`"):
        assert init.xavier_uniform(t) is t
