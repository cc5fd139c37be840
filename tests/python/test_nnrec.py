"""Recurrent cells, TransformerDecoder(Layer)/Transformer, EmbeddingBag and nn.utils (weight and
spectral norm in both APIs, parametrize, functional_call, fusion) against PyTorch: the cases of
tests/nnrec_cases.py replayed on rstorch and compared with fixtures/nnrec.json (recorded by
tests/record_nnrec.py); gradcheck of the cells and embedding_bag; the behaviour that needs no
reference (caching, pickling, skip_init, memory-format no-ops)."""
import copy
import json
import math
import pathlib
import pickle
import sys

import pytest

import rstorch
from rstorch import nn
from rstorch.autograd import gradcheck
from rstorch.nn import functional as F
from rstorch.nn.utils import parametrize

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import nnrec_cases  # noqa: E402 (tests/ is put on the path just above)

REF = json.loads((TESTS / "fixtures" / "nnrec.json").read_text())
CASES = nnrec_cases.cases(rstorch)
F64 = rstorch.float64


def _message(text):
    # PyTorch's C++ checks sometimes append the printout of an empty tensor: not part of the
    # message. Names print as rstorch's (rstorch.Size, rstorch.float32) where PyTorch says torch.
    return text.split("\n[ torch.")[0].replace("rstorch.", "torch.")


def same(got, want, path="", tol=1e-9):
    if isinstance(want, dict):
        assert isinstance(got, dict), (path, got, want)
        assert sorted(got) == sorted(want), (path, sorted(got), sorted(want))
        for k in want:
            same(got[k], want[k], f"{path}.{k}", tol)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{path}[{i}]", tol)
    elif isinstance(want, float) and not isinstance(got, str):
        if math.isinf(want) or math.isnan(want):
            assert got == want or (math.isnan(want) and math.isnan(got)), (path, got, want)
        else:
            assert abs(got - want) <= tol * max(1.0, abs(want)), (path, got, want)
    else:
        assert got == want, (path, got, want)


@pytest.mark.parametrize("name", sorted(REF))
def test_matches_pytorch(name):
    got = nnrec_cases.capture(CASES[name])
    want = REF[name]
    if "error" in want:
        assert "error" in got, (name, got)
        assert got["error"][0] == want["error"][0]
        assert _message(got["error"][1]) == _message(want["error"][1])
    else:
        assert "ok" in got, (name, got)
        # Class names compare as PyTorch spells them (repr of an error text says rstorch).
        same(got["ok"], want["ok"], name)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(REF)


# ---- gradcheck ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradcheck(kind):
    cell = getattr(nn, kind)(3, 2).double()
    x = rstorch.randn(2, 3, dtype=F64, requires_grad=True)
    h = rstorch.randn(2, 2, dtype=F64, requires_grad=True)
    params = list(cell.parameters())

    def run(x, h, *ps):
        out = rstorch.func.functional_call(cell, dict(zip([n for n, _ in cell.named_parameters()], ps)),
                                           (x, (h, h * 0.5) if kind == "LSTMCell" else h))
        return out if kind != "LSTMCell" else out[0] + out[1]

    assert gradcheck(run, (x, h, *[p.detach().requires_grad_(True) for p in params]))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_gradcheck(mode):
    weight = rstorch.randn(5, 3, dtype=F64, requires_grad=True)
    ids = rstorch.tensor([0, 2, 4, 1, 2, 3])
    offsets = rstorch.tensor([0, 2, 2, 5])
    assert gradcheck(lambda w: F.embedding_bag(ids, w, offsets, mode=mode, padding_idx=1), (weight,))


def test_embedding_bag_per_sample_weights_gradcheck():
    weight = rstorch.randn(5, 3, dtype=F64, requires_grad=True)
    psw = rstorch.randn(4, dtype=F64, requires_grad=True)
    ids, offsets = rstorch.tensor([0, 2, 4, 2]), rstorch.tensor([0, 1])
    assert gradcheck(lambda w, p: F.embedding_bag(ids, w, offsets, mode="sum", per_sample_weights=p),
                     (weight, psw))


# ---- behaviour without a recorded reference ---------------------------------------------------

def test_cell_defaults_and_init_range():
    cell = nn.GRUCell(5, 16)
    bound = 1 / math.sqrt(16)
    for p in cell.parameters():
        assert float(p.abs().max()) <= bound
    assert [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert nn.RNNCell(2, 3, bias=False).bias_ih is None
    assert isinstance(cell, nn.RNNCellBase)


def test_transformer_mask_and_exports():
    import rstorch.nn.modules.transformer as T
    for name in ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
                 "Transformer"]:
        assert getattr(T, name) is getattr(nn, name)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == rstorch.float32
    assert mask.tolist() == [[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf], [0.0, 0.0, 0.0]]
    model = nn.Transformer(8, 2, 1, 1, 16)
    assert isinstance(model.encoder, nn.TransformerEncoder) and isinstance(model.decoder, nn.TransformerDecoder)


def test_parametrize_cached_pickle_and_deepcopy():
    m = nn.Linear(3, 3)
    nn.utils.parametrizations.weight_norm(m)
    assert m.weight is not m.weight
    with parametrize.cached():
        assert m.weight is m.weight
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules"):
        pickle.dumps(m)
    replica = copy.deepcopy(m)
    assert type(replica) is type(m) and replica.parametrizations.weight.original1 is not \
        m.parametrizations.weight.original1
    assert rstorch.allclose(replica.weight, m.weight)
    # Another Linear is untouched by the property added to the parametrized one's class.
    assert type(nn.Linear(3, 3)).__name__ == "Linear" and not hasattr(nn.Linear, "weight")


def test_parametrization_keeps_the_parameter_identity():
    m = nn.Linear(3, 3)
    weight = m.weight
    parametrize.register_parametrization(m, "weight", nn.Identity())
    assert m.parametrizations.weight.original is weight
    opt = rstorch.optim.SGD(m.parameters(), lr=0.1)
    m(rstorch.randn(2, 3)).sum().backward()
    opt.step()
    assert weight.grad is not None


def test_stateless_functional_call_warns_and_restores():
    m = nn.Linear(2, 2)
    weight = m.weight
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = nn.utils.stateless.functional_call(m, {"weight": rstorch.zeros(2, 2), "bias": rstorch.ones(2)},
                                                 rstorch.randn(1, 2))
    assert out.tolist() == [[1.0, 1.0]]
    assert m.weight is weight
    # A name that is no parameter or buffer is an attribute for the call only.
    rstorch.func.functional_call(m, {"extra": rstorch.ones(1)}, rstorch.randn(1, 2))
    assert not hasattr(m, "extra")
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        rstorch.func.functional_call(m, ({"bias": rstorch.ones(2)}, {"bias": rstorch.ones(2)}), rstorch.randn(1, 2))


def test_weight_norm_warns_and_skip_init_memory_format():
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        nn.utils.weight_norm(nn.Linear(2, 2))
    m = nn.utils.skip_init(nn.Linear, 3, 4)
    assert isinstance(m, nn.Linear) and tuple(m.weight.shape) == (4, 3)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)
    conv = nn.Conv2d(1, 1, 1)
    assert nn.utils.convert_conv2d_weight_memory_format(conv, rstorch.channels_last if hasattr(
        rstorch, "channels_last") else None) is conv
    assert nn.utils.convert_conv3d_weight_memory_format(conv, None) is conv


def test_parametrized_weight_norm_loads_hook_based_state_dict():
    with pytest.warns(FutureWarning):
        old = nn.utils.weight_norm(nn.Linear(3, 4))
    new = nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Linear(3, 4)))
    result = new.load_state_dict(nn.Sequential(old).state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = rstorch.randn(2, 3)
    assert rstorch.allclose(new(x), old(x))


@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_map_gradcheck(orth_map):
    m = nn.Linear(3, 4).double()
    nn.utils.parametrizations.orthogonal(m, orthogonal_map=orth_map,
                                         use_trivialization=orth_map != "householder")
    orth = m.parametrizations.weight[0]
    x = (m.parametrizations.weight.original.detach() + 0.3 * rstorch.randn(4, 3, dtype=F64)).requires_grad_(True)
    assert gradcheck(orth, (x,))
