"""The activation, padding, resampling, shuffle, distance, normalisation and lazy layers of
`rstorch.nn` and their functional forms, against PyTorch: outputs, input and parameter gradients,
buffers, reprs and errors recorded by tests/record_nnmods.py (fixtures/nnmods.json) for the calls
in tests/nnmods_cases.py; gradcheck of each differentiable call; and what needs no recording: the
random layers' laws, the in-place forms' aliasing and version counter, Buffer and the lazy
modules' life cycle."""
import json
import math
import pathlib
import pickle
import sys

import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import nnmods_cases  # noqa: E402 (tests/ is put on the path just above)

REF = json.loads((TESTS / "fixtures" / "nnmods.json").read_text())
RTOL, ATOL = 1e-10, 1e-12
# PyTorch's float64 gradients of these carry float32 constants (celu's 1/alpha, hardsigmoid's 1/6);
# rstorch's are exact (as in test_activation_ops.py).
GRAD_RTOL = {"CELU": 1e-5, "F.celu_": 1e-5, "Hardsigmoid": 1e-7}
# PyTorch's hand-written backward of the legacy CrossMapLRN2d is not the derivative of its forward
# (it fails PyTorch's own gradcheck); rstorch differentiates the forward exactly (test_gradcheck),
# so only its values are compared.
WRONG_REFERENCE_GRAD = {"CrossMapLRN2d", "CrossMapLRN2d_size4"}


def close(got, want, rtol=RTOL):
    assert (got is None) == (want is None)
    if want is None:
        return
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert abs(g - w) <= rtol * abs(w) + ATOL, (i, g, w)


@pytest.fixture(scope="module")
def value_cases():
    return nnmods_cases.value_cases(rstorch, F, nn)


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
@pytest.mark.parametrize("name", sorted(REF["values"]))
def test_values_and_gradients_match_pytorch(name, value_cases):
    fn, shapes = value_cases[name]
    got, want = nnmods_cases.run(rstorch, fn, shapes), REF["values"][name]
    assert [o["shape"] for o in got["outputs"]] == [o["shape"] for o in want["outputs"]]
    for g, w in zip(got["outputs"], want["outputs"]):
        close(g["values"], w["values"])
    if name in WRONG_REFERENCE_GRAD:
        return
    for g, w in zip(got["grads"], want["grads"]):
        close(g, w, GRAD_RTOL.get(name, RTOL))
    for key in ("param_grads", "buffers"):
        assert sorted(got.get(key, {})) == sorted(want.get(key, {}))
        for k in want.get(key, {}):
            close(got[key][k], want[key][k])
    if "repr" in want:
        assert got["repr"] == want["repr"]


@pytest.mark.parametrize("name", sorted(REF["reprs"]))
def test_reprs_match_pytorch(name):
    assert repr(nnmods_cases.repr_cases(nn)[name]) == REF["reprs"][name]


@pytest.mark.parametrize("name", sorted(REF["errors"]))
def test_errors_and_warnings_match_pytorch(name):
    want = json.loads(json.dumps(REF["errors"][name]).replace("torch.Size", "rstorch.Size"))
    got = nnmods_cases.capture(nnmods_cases.error_cases(rstorch, F, nn)[name])
    assert got == want


# The differentiable cases, checked against finite differences (the fixture has PyTorch's
# gradients for one weighting; gradcheck has every direction).
GRADCHECK = [name for name in sorted(REF["values"])
             if any(g is not None for g in REF["values"][name]["grads"])]


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck(name, value_cases):
    fn, shapes = value_cases[name]
    inputs = [nnmods_cases.tensor(rstorch, s, i, requires_grad=True) for i, s in enumerate(shapes)]

    def differentiable(*xs):
        out = fn(*xs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return tuple(o for o in outs if o.requires_grad)
    assert gradcheck(differentiable, inputs, eps=1e-6, atol=1e-5)


# ---- randomness: rrelu and alpha dropout -------------------------------------------------------

def test_rrelu_training_draws_slopes_in_range_and_differentiates_through_them():
    rstorch.manual_seed(0)
    x = (-rstorch.rand(2000, dtype=rstorch.float64) - 0.1).requires_grad_(True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).detach()
    assert float(slopes.min()) >= 0.1 and float(slopes.max()) <= 0.3
    assert abs(float(slopes.mean()) - 0.2) < 0.01  # U(0.1, 0.3) has mean 0.2 and sd 0.058
    y.sum().backward()
    close(x.grad.tolist(), slopes.tolist())
    pos = rstorch.tensor([0.5, 2.0], dtype=rstorch.float64)
    assert F.rrelu(pos, training=True).tolist() == [0.5, 2.0]


def test_rrelu_module_is_random_in_training_and_fixed_in_eval():
    m = nn.RReLU(0.1, 0.3)
    x = -rstorch.ones(1000, dtype=rstorch.float64)
    assert len(set(m(x).tolist())) > 100
    m.eval()
    assert set(m(x).tolist()) == {-0.2}


def test_alpha_dropout_keeps_mean_and_variance_and_drops_to_one_value():
    rstorch.manual_seed(1)
    x = rstorch.randn(200000, dtype=rstorch.float64)
    y = F.alpha_dropout(x, 0.3, training=True)
    assert abs(float(y.mean())) < 0.01 and abs(float(y.std()) - 1) < 0.01
    alpha, p = 1.7580993408473766, 0.3
    a = ((alpha ** 2 * p + 1) * (1 - p)) ** -0.5
    dropped = (y - (x * a + alpha * a * p)).abs() > 1e-12
    assert abs(float(dropped.double().mean()) - p) < 0.01
    close(list(set(y[dropped].tolist())), [a * alpha * p - alpha * a])
    assert F.alpha_dropout(x, 0.0, training=True) is x and F.alpha_dropout(x, 0.3) is x
    assert F.alpha_dropout(x, 1.0, training=True).abs().sum().item() == 0


def test_feature_alpha_dropout_drops_whole_channels():
    rstorch.manual_seed(2)
    x = rstorch.randn(8, 16, 5, 5, dtype=rstorch.float64)
    y = nn.FeatureAlphaDropout(0.5)(x)
    alpha, p = 1.7580993408473766, 0.5
    a = ((alpha ** 2 * p + 1) * (1 - p)) ** -0.5
    dropped_value = a * alpha * p - alpha * a
    per_channel = (y - dropped_value).abs().reshape(8, 16, 25).amax(2) < 1e-12
    assert 0 < int(per_channel.sum()) < 128
    kept = ~per_channel
    close(y.reshape(8, 16, 25)[kept].reshape(-1).tolist(),
          (x.reshape(8, 16, 25)[kept] * a + alpha * a * p).reshape(-1).tolist())


# ---- in-place forms ----------------------------------------------------------------------------

INPLACE = [
    (F.relu_, F.relu, {}), (F.elu_, F.elu, {"alpha": 0.5}), (F.celu_, F.celu, {"alpha": 2.0}),
    (F.selu_, F.selu, {}), (F.leaky_relu_, F.leaky_relu, {"negative_slope": 0.3}),
    (F.hardtanh_, F.hardtanh, {"min_val": -0.5, "max_val": 0.5}),
    (F.threshold_, F.threshold, {"threshold": 0.1, "value": 7.0}),
    (F.rrelu_, F.rrelu, {"lower": 0.2, "upper": 0.4}),
]


@pytest.mark.parametrize("inplace,outplace,kwargs", INPLACE, ids=lambda v: getattr(v, "__name__", ""))
def test_inplace_forms_write_into_their_input(inplace, outplace, kwargs):
    x = nnmods_cases.tensor(rstorch, (3, 4), 3)
    want = outplace(x, **kwargs).tolist()
    version = x._version
    out = inplace(x, **kwargs)
    assert out is x and x.tolist() == want and x._version > version


@pytest.mark.parametrize("module", [nn.CELU(inplace=True), nn.SELU(inplace=True), nn.Mish(inplace=True),
                                    nn.Hardsigmoid(inplace=True), nn.Hardswish(inplace=True),
                                    nn.Threshold(0.0, -1.0, inplace=True), nn.RReLU(inplace=True).eval()])
def test_inplace_modules_overwrite_their_input(module):
    x = nnmods_cases.tensor(rstorch, (3, 4), 4)
    want = type(module)()(x).tolist() if not isinstance(module, (nn.Threshold, nn.RReLU)) else None
    out = module(x)
    assert out is x
    if want is not None:
        assert x.tolist() == want


def test_inplace_module_on_a_leaf_that_requires_grad_raises():
    x = rstorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        nn.SELU(inplace=True)(x)


# ---- Buffer, Container, uninitialized tensors, lazy modules -------------------------------------

class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.kept = nn.Buffer(rstorch.ones(2))
        self.scratch = nn.Buffer(rstorch.zeros(1), persistent=False)


def test_buffer_assignment_registers_a_buffer_with_its_persistence():
    m = WithBuffers()
    assert list(m.state_dict()) == ["kept"]
    assert sorted(dict(m.named_buffers())) == ["kept", "scratch"]
    assert type(m.kept) is rstorch.Tensor and isinstance(m.kept, nn.Buffer)
    assert not isinstance(rstorch.ones(1), nn.Buffer)
    m.kept = nn.Buffer(rstorch.zeros(2), persistent=False)
    assert list(m.state_dict()) == []


def test_uninitialized_parameter_materializes_into_a_parameter():
    p = nn.UninitializedParameter(dtype=rstorch.float64)
    assert isinstance(p, nn.Parameter) and repr(p) == "<UninitializedParameter>"
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.dtype is rstorch.float64 and p.requires_grad
    b = nn.UninitializedBuffer()
    b.materialize((4,))
    assert type(b) is rstorch.Tensor and b.shape == (4,)


def test_lazy_linear_becomes_linear_at_the_first_call():
    m = nn.LazyLinear(3)
    assert m.has_uninitialized_params() and m.in_features == 0
    y = m(rstorch.randn(2, 5))
    assert type(m) is nn.Linear and m.in_features == 5 and m.weight.shape == (3, 5) and y.shape == (2, 3)
    assert not m._forward_pre_hooks
    bound = 1 / math.sqrt(5)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound


def test_lazy_modules_load_a_checkpoint_before_any_call():
    src = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    dst = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d())
    dst.load_state_dict(src.state_dict())
    for (name, a), b in zip(src.state_dict().items(), dst.state_dict().values()):
        assert a.tolist() == b.tolist(), name
    dst(rstorch.randn(2, 4))
    assert type(dst[0]) is nn.Linear and type(dst[1]) is nn.BatchNorm1d


def test_lazy_module_cast_before_the_first_call_keeps_its_placeholders():
    m = nn.LazyBatchNorm2d().double()
    m(rstorch.randn(2, 3, 2, 2, dtype=rstorch.float64))
    assert m.weight.dtype is rstorch.float64 and m.running_mean.dtype is rstorch.float64
    assert m.running_mean.shape == (3,)


def test_lazy_module_state_dict_before_the_call_holds_placeholders_and_pickles():
    m = nn.LazyConv1d(2, 3)
    assert [repr(v) for v in m.state_dict().values()] == ["<UninitializedParameter>"] * 2
    m2 = pickle.loads(pickle.dumps(m))
    m2(rstorch.randn(1, 4, 5))
    assert type(m2) is nn.Conv1d and m2.weight.shape == (2, 4, 3)


def test_container_is_a_module_of_its_keyword_children():
    with pytest.warns(FutureWarning):
        c = nn.Container(a=nn.ReLU(), b=nn.Tanh())
    assert list(dict(c.named_children())) == ["a", "b"]


def test_classes_live_in_pytorchs_module_paths():
    import rstorch.nn.modules.activation as activation
    import rstorch.nn.modules.channelshuffle as channelshuffle
    import rstorch.nn.modules.distance as distance
    import rstorch.nn.modules.instancenorm as instancenorm
    import rstorch.nn.modules.lazy as lazy
    import rstorch.nn.modules.normalization as normalization
    import rstorch.nn.modules.padding as padding
    import rstorch.nn.modules.pixelshuffle as pixelshuffle
    import rstorch.nn.modules.upsampling as upsampling
    import rstorch.nn.parameter as parameter
    assert activation.PReLU is nn.PReLU and padding.ReflectionPad2d is nn.ReflectionPad2d
    assert upsampling.Upsample is nn.Upsample and pixelshuffle.PixelShuffle is nn.PixelShuffle
    assert channelshuffle.ChannelShuffle is nn.ChannelShuffle and distance.CosineSimilarity is nn.CosineSimilarity
    assert normalization.RMSNorm is nn.RMSNorm and instancenorm.InstanceNorm2d is nn.InstanceNorm2d
    assert issubclass(nn.LazyLinear, lazy.LazyModuleMixin) and parameter.Buffer is nn.Buffer
    assert parameter.UninitializedParameter is nn.UninitializedParameter
