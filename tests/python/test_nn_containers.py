"""nn containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict) and simple
layers (Linear, Bilinear, Identity, Flatten, activations), with PyTorch's semantics and reprs."""
import math
from collections import OrderedDict

import numpy as np
import pytest

import rstorch as torch
import rstorch.nn as nn
import rstorch.nn.functional as F

from _nn_module_helpers import MyLinear, close


# ---- containers ---------------------------------------------------------------------------

def test_sequential_indexing_and_slicing():
    a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    seq = nn.Sequential(a, b, c)
    assert list(seq._modules) == ["0", "1", "2"]
    assert seq[0] is a and seq[-1] is c and seq[-3] is a
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    with pytest.raises(IndexError, match="index -4 is out of range"):
        seq[-4]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c]
    assert list(sub._modules) == ["1", "2"]  # slicing keeps the names
    assert len(seq) == 3 and list(iter(seq)) == [a, b, c]


def test_sequential_ordered_dict_and_forward():
    seq = nn.Sequential(OrderedDict([("lin", MyLinear(3, 2)), ("act", nn.ReLU())]))
    assert list(seq._modules) == ["lin", "act"]
    assert seq.lin is seq[0]
    x = torch.randn(5, 3)
    expected = (x @ seq.lin.weight.t() + seq.lin.bias).relu()
    assert close(seq(x), expected)
    assert nn.Sequential()(x) is x


def test_sequential_mutation():
    a, b, c, d = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity()
    seq = nn.Sequential(a, b)
    assert seq.append(c) is seq and list(seq) == [a, b, c]
    seq.insert(1, d)
    assert list(seq) == [a, d, b, c] and list(seq._modules) == ["0", "1", "2", "3"]
    seq.insert(-1, nn.ELU())
    assert isinstance(seq[3], nn.ELU) and seq[4] is c
    with pytest.raises(IndexError, match="Index out of range: 9"):
        seq.insert(9, nn.ReLU())
    del seq[3]
    assert list(seq) == [a, d, b, c] and list(seq._modules) == ["0", "1", "2", "3"]
    assert seq.pop(1) is d and list(seq) == [a, b, c]
    seq[0] = d
    assert seq[0] is d
    del seq[0:2]
    assert list(seq) == [c] and list(seq._modules) == ["0"]
    seq.extend([a, b])
    assert list(seq) == [c, a, b]


def test_sequential_add_mul():
    a, b = nn.ReLU(), nn.Tanh()
    s1, s2 = nn.Sequential(a), nn.Sequential(b)
    s3 = s1 + s2
    assert list(s3) == [a, b] and list(s1) == [a]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        s1 + nn.ReLU()
    s1 += s2
    assert list(s1) == [a, b]
    assert list(s2 * 3) == [b, b, b]
    assert list(2 * s2) == [b, b]
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        s2 * 0


def test_module_list():
    layers = nn.ModuleList([MyLinear(2, 2) for _ in range(3)])
    assert len(layers) == 3
    assert [n for n, _ in layers.named_parameters()][:2] == ["0.weight", "0.bias"]
    extra = nn.ReLU()
    layers.append(extra)
    assert layers[-1] is extra and layers[3] is extra
    with pytest.raises(IndexError, match="index 4 is out of range"):
        layers[4]
    sub = layers[1:3]
    assert isinstance(sub, nn.ModuleList) and list(sub) == [layers[1], layers[2]]
    assert list(sub._modules) == ["0", "1"]
    layers.insert(0, nn.Tanh())
    assert isinstance(layers[0], nn.Tanh) and len(layers) == 5
    del layers[0]
    assert list(layers._modules) == ["0", "1", "2", "3"]
    layers.extend([nn.Sigmoid()])
    assert isinstance(layers[-1], nn.Sigmoid)
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, "
                                        "but got ReLU"):
        layers.extend(nn.ReLU())
    combined = layers + nn.ModuleList([nn.ELU()])
    assert len(combined) == 6 and isinstance(combined[5], nn.ELU)
    assert layers.pop(-1) is not None and len(layers) == 4
    layers[0] = nn.GELU()
    assert isinstance(layers[0], nn.GELU)
    with pytest.raises(NotImplementedError):
        layers(torch.ones(1))


def test_module_list_repr_groups_repeats():
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU()])
    assert repr(ml) == ("ModuleList(\n"
                        "  (0-2): 3 x ReLU()\n"
                        "  (3): Tanh()\n"
                        "  (4): ReLU()\n"
                        ")")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict():
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    assert list(md.keys()) == ["b", "a"]  # a plain dict's insertion order is kept
    md["c"] = nn.Sigmoid()
    assert "c" in md and len(md) == 3 and list(md) == ["b", "a", "c"]
    assert isinstance(md.pop("a"), nn.Tanh) and "a" not in md
    md.update([("d", nn.ELU()), ("e", nn.GELU())])
    assert list(md) == ["b", "c", "d", "e"]
    assert [type(v).__name__ for v in md.values()] == ["ReLU", "Sigmoid", "ELU", "GELU"]
    assert [k for k, _ in md.items()] == ["b", "c", "d", "e"]
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 3; "
                                         "2 is required"):
        md.update([("x", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match="ModuleDict.update should be called with an iterable"):
        md.update(3)
    del md["b"]
    assert "b" not in md
    md.clear()
    assert len(md) == 0


def test_parameter_list():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4)])
    assert len(pl) == 2
    assert all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pl.append(torch.ones(1))
    assert isinstance(pl[-1], nn.Parameter) and len(pl) == 3
    sub = pl[0:2]
    assert isinstance(sub, nn.ParameterList) and len(sub) == 2 and sub[0] is pl[0]
    pl.extend([torch.ones(5)])
    assert len(pl) == 4
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable"):
        pl.extend(torch.ones(2))
    pl[0] = torch.zeros(1)
    assert isinstance(pl[0], nn.Parameter) and pl[0].tolist() == [0.0]
    assert repr(nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4, dtype=torch.float64)])) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [rstorch.float32 of size 2x3]\n"
        "    (1): Parameter containing: [rstorch.float64 of size 4]\n"
        ")")
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl(1)


def test_parameter_dict():
    pd = nn.ParameterDict(OrderedDict([("z", torch.ones(2)), ("a", nn.Parameter(torch.zeros(3)))]))
    assert list(pd.keys()) == ["z", "a"]  # an OrderedDict keeps its order
    assert all(isinstance(v, nn.Parameter) for v in pd.values())
    assert [n for n, _ in pd.named_parameters()] == ["z", "a"]
    pd["m"] = torch.ones(1)
    assert "m" in pd and len(pd) == 3 and isinstance(pd["m"], nn.Parameter)
    assert isinstance(pd.pop("m"), nn.Parameter) and "m" not in pd
    assert pd.get("nope") is None and pd.get("z") is pd["z"]
    assert pd.setdefault("n", torch.ones(1)) is pd["n"]
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key as "
                                        "it is not a string \\(type is 'int'\\)"):
        nn.ParameterDict()[1] = torch.ones(1)
    assert repr(nn.ParameterDict(OrderedDict([("w", torch.ones(2, 2))]))) == (
        "ParameterDict(  (w): Parameter containing: [rstorch.FloatTensor of size 2x2])")
    copy_ = pd.copy()
    assert list(copy_.keys()) == list(pd.keys()) and copy_["z"] is pd["z"]
    k, v = pd.popitem()
    assert k == "n" and "n" not in pd
    pd.clear()
    assert len(pd) == 0 and list(pd.named_parameters()) == []
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pd(1)


# ---- layers -------------------------------------------------------------------------------

def test_linear_parameters_init_and_repr():
    torch.manual_seed(1)
    lin = nn.Linear(20, 30)
    assert lin.weight.shape == (30, 20) and lin.bias.shape == (30,)
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    bound = 1 / math.sqrt(20)
    w = lin.weight.detach().numpy()
    b = lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    # U(-bound, bound) has std bound/sqrt(3).
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert repr(lin) == "Linear(in_features=20, out_features=30, bias=True)"
    no_bias = nn.Linear(2, 3, bias=False)
    assert no_bias.bias is None and "bias" in no_bias._parameters
    assert repr(no_bias) == "Linear(in_features=2, out_features=3, bias=False)"
    assert nn.Linear(2, 3, dtype=torch.float64).weight.dtype == torch.float64
    x = torch.randn(4, 20)
    assert close(lin(x), x.numpy() @ w.T + b, tol=1e-4)


def test_bilinear_shapes_and_repr():
    bl = nn.Bilinear(3, 4, 5)
    assert bl.weight.shape == (5, 3, 4) and bl.bias.shape == (5,)
    bound = 1 / math.sqrt(3)
    assert np.abs(bl.weight.detach().numpy()).max() <= bound
    assert repr(bl) == "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)"


def test_identity_flatten_unflatten():
    x = torch.randn(2, 3, 4)
    assert nn.Identity(54, unused="x")(x) is x
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert repr(nn.Flatten(0, 1)) == "Flatten(start_dim=0, end_dim=1)"
    u = nn.Unflatten(1, (3, 1))
    assert u(torch.randn(2, 3)).shape == (2, 3, 1)
    assert repr(u) == "Unflatten(dim=1, unflattened_size=(3, 1))"
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints, but found element "
                                        "of type float at pos 1"):
        nn.Unflatten(1, (3, 1.0))
    with pytest.raises(TypeError, match="invalid argument type for dim parameter"):
        nn.Unflatten(1.0, (3,))


def test_activation_reprs():
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.ReLU6()) == "ReLU6()"
    assert repr(nn.ReLU6(True)) == "ReLU6(inplace=True)"
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.LeakyReLU(0.2, True)) == "LeakyReLU(negative_slope=0.2, inplace=True)"
    assert repr(nn.ELU()) == "ELU(alpha=1.0)"
    assert repr(nn.ELU(0.5, inplace=True)) == "ELU(alpha=0.5, inplace=True)"
    assert repr(nn.GELU()) == "GELU(approximate='none')"
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.SiLU()) == "SiLU()"
    assert repr(nn.Sigmoid()) == "Sigmoid()"
    assert repr(nn.Tanh()) == "Tanh()"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"
    assert repr(nn.Softmax()) == "Softmax(dim=None)"
    assert repr(nn.LogSoftmax(-1)) == "LogSoftmax(dim=-1)"
    assert repr(nn.Softplus()) == "Softplus(beta=1.0, threshold=20.0)"
    assert repr(nn.Softplus(2, 10)) == "Softplus(beta=2, threshold=10)"
    assert repr(nn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(nn.Hardtanh(-2, 2, True)) == "Hardtanh(min_val=-2, max_val=2, inplace=True)"
    assert nn.ReLU6().min_val == 0.0 and nn.ReLU6().max_val == 6.0


def test_activation_forward_values():
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 3.0])
    xs = x.numpy()
    assert close(nn.ReLU()(x), np.maximum(xs, 0))
    assert close(nn.LeakyReLU(0.1)(x), np.where(xs >= 0, xs, 0.1 * xs))
    assert close(nn.ELU(0.5)(x), np.where(xs > 0, xs, 0.5 * (np.exp(xs) - 1)))
    assert close(nn.SiLU()(x), xs / (1 + np.exp(-xs)))
    assert close(nn.Sigmoid()(x), 1 / (1 + np.exp(-xs)))
    assert close(nn.Tanh()(x), np.tanh(xs))
    assert close(nn.Softplus()(x), np.log1p(np.exp(xs)))
    assert close(nn.GELU()(x), [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in xs])
    m = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    e = np.exp(m.numpy())
    soft = e / e.sum(1, keepdims=True)
    assert close(nn.Softmax(dim=1)(m), soft)
    assert close(nn.LogSoftmax(dim=1)(m), np.log(soft))
    y = x.clone()
    out = nn.ReLU(inplace=True)(y)
    assert close(y, np.maximum(xs, 0)) and close(out, np.maximum(xs, 0))


def test_hardtanh_and_relu6_forward():
    x = torch.tensor([-8.0, -0.5, 0.5, 8.0])
    assert close(nn.Hardtanh()(x), [-1.0, -0.5, 0.5, 1.0])
    assert close(nn.ReLU6()(x), [0.0, 0.0, 0.5, 6.0])


def test_exports():
    for name in ["Module", "Parameter", "Linear", "Bilinear", "Identity", "Sequential",
                 "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Flatten",
                 "Unflatten", "ReLU", "ReLU6", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid",
                 "Tanh", "Softmax", "LogSoftmax", "Softplus", "Hardtanh"]:
        assert hasattr(nn, name), name
    assert nn.modules.Linear is nn.Linear
    assert nn.parameter.Parameter is nn.Parameter
    assert nn.init.xavier_uniform_ is not None and nn.functional is F
    assert torch.nn is nn
