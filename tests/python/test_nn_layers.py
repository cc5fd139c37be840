"""rstorch.nn layers: forward, backward and running-state parity with recorded PyTorch values,
reprs and state_dict keys as PyTorch prints them, default initialisation, argument errors,
and gradcheck of the recurrent and attention layers in float64."""
import collections
import math
import os
import warnings

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
from rstorch.autograd import gradcheck

from _layer_cases import CASES, flatten_outputs, takes_grad

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
_DATA = np.load(os.path.join(FIXTURES, "layers.npz"))


def _entries(prefix):
    return {k[len(prefix):]: _DATA[k] for k in _DATA.files if k.startswith(prefix)}


def _t(a):
    return rstorch.from_numpy(np.ascontiguousarray(a))


def _close(actual, expected, what, rtol=1e-4, atol=1e-5):
    actual = actual.detach().numpy() if hasattr(actual, "detach") else np.asarray(actual)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if expected.dtype.kind in "iub":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


# ---- parity with PyTorch ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_layer_matches_pytorch(name):
    ctor, spec, call = CASES[name]
    m = eval(ctor, {"nn": nn, "torch": rstorch})
    m.load_state_dict({k: _t(v) for k, v in _entries(f"{name}/state/").items()})
    xs = []
    for i, item in enumerate(spec):
        x = _t(_DATA[f"{name}/in{i}"])
        xs.append(x.requires_grad_(True) if takes_grad(item) else x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = flatten_outputs(eval(call, {"m": m, "nn": nn, "torch": rstorch,
                                           **{f"x{i}": x for i, x in enumerate(xs)}}))
    expected_outs = [_DATA[f"{name}/out{j}"] for j in range(len(outs))]
    assert f"{name}/out{len(outs)}" not in _DATA.files, "fewer outputs than PyTorch"
    total = None
    for j, (o, e) in enumerate(zip(outs, expected_outs)):
        _close(o, e, f"output {j}")
        if f"{name}/gout{j}" in _DATA.files:
            term = (o * _t(_DATA[f"{name}/gout{j}"])).sum()
            total = term if total is None else total + term
    total.backward()
    grads = _entries(f"{name}/grad/")
    for k, p in m.named_parameters():
        if k in grads:
            _close(p.grad, grads[k], f"grad of {k}")
        else:
            assert p.grad is None or not p.grad.abs().sum().item(), f"{k} has a gradient PyTorch does not"
    for i, x in enumerate(xs):
        if f"{name}/ingrad{i}" in _DATA.files:
            _close(x.grad, _DATA[f"{name}/ingrad{i}"], f"grad of input {i}")
    after = _entries(f"{name}/after/")
    state = m.state_dict()
    assert list(state) == list(after)
    for k, v in after.items():
        _close(state[k], v, f"state {k} after the calls")


# ---- what PyTorch prints ----------------------------------------------------------------------

from _layer_reprs import REPRS  # noqa: E402


@pytest.mark.parametrize("ctor,expected_repr,expected_keys", REPRS, ids=[r[0] for r in REPRS])
def test_repr_and_state_dict_keys_match_pytorch(ctor, expected_repr, expected_keys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = eval(ctor, {"nn": nn, "torch": rstorch})
    assert repr(m) == expected_repr
    assert list(m.state_dict()) == expected_keys


def test_layers_are_exported_like_pytorch():
    import rstorch.nn.modules as modules
    for name in ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
                 "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
                 "GroupNorm", "Dropout", "Dropout1d", "Dropout2d", "Embedding", "RNN", "LSTM", "GRU",
                 "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "CrossEntropyLoss",
                 "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss",
                 "KLDivLoss"]:
        assert getattr(nn, name) is getattr(modules, name)
        assert issubclass(getattr(nn, name), nn.Module)
    assert nn.modules.activation.MultiheadAttention is nn.MultiheadAttention
    assert nn.modules.rnn.LSTM is nn.LSTM and nn.modules.conv.Conv2d is nn.Conv2d


# ---- default initialisation -------------------------------------------------------------------

def _uniform_like(t, bound, n_min=1000):
    """Values lie in [-bound, bound] and look uniform there (std close to bound / sqrt(3))."""
    a = t.detach().numpy().ravel()
    assert a.size >= n_min
    assert np.abs(a).max() <= bound + 1e-7
    assert np.abs(a).max() > 0.95 * bound
    assert abs(a.std() - bound / math.sqrt(3)) < 0.08 * bound
    assert abs(a.mean()) < 0.1 * bound


def test_conv_default_init_bounds():
    rstorch.manual_seed(0)
    c = nn.Conv2d(16, 32, 3)
    _uniform_like(c.weight, 1 / math.sqrt(16 * 9))
    b = c.bias.detach().numpy()
    assert np.abs(b).max() <= 1 / math.sqrt(144) and b.std() > 0
    # Transposed weights are (in, out / groups, k, k): fan_in comes from dim 1.
    t = nn.ConvTranspose2d(16, 40, 3)
    _uniform_like(t.weight, 1 / math.sqrt(40 * 9))
    assert np.abs(t.bias.detach().numpy()).max() <= 1 / math.sqrt(40 * 9)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_recurrent_default_init_is_uniform_in_inverse_sqrt_hidden(cls):
    rstorch.manual_seed(1)
    m = cls(20, 25, num_layers=2)
    values = rstorch.cat([p.detach().reshape(-1) for p in m.parameters()])
    _uniform_like(values, 1 / math.sqrt(25))
    for p in m.parameters():
        assert p.detach().abs().max().item() <= 1 / math.sqrt(25) + 1e-7


def test_embedding_default_init_is_standard_normal_with_zero_padding_row():
    rstorch.manual_seed(2)
    e = nn.Embedding(400, 10, padding_idx=3)
    w = e.weight.detach().numpy()
    assert np.all(w[3] == 0)
    rest = np.delete(w, 3, axis=0).ravel()
    assert abs(rest.mean()) < 0.05 and abs(rest.std() - 1) < 0.05


def test_norm_layers_default_init_and_buffers():
    bn = nn.BatchNorm2d(5)
    assert bn.weight.tolist() == [1.0] * 5 and bn.bias.tolist() == [0.0] * 5
    assert bn.running_mean.tolist() == [0.0] * 5 and bn.running_var.tolist() == [1.0] * 5
    assert bn.num_batches_tracked.dtype == rstorch.int64 and bn.num_batches_tracked.item() == 0
    assert [k for k, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert not bn.running_mean.requires_grad
    ln, gn = nn.LayerNorm((2, 3)), nn.GroupNorm(2, 4)
    assert ln.weight.shape == (2, 3) and ln.weight.sum().item() == 6 and ln.bias.abs().sum().item() == 0
    assert gn.weight.tolist() == [1.0] * 4 and gn.bias.tolist() == [0.0] * 4


def test_multihead_attention_default_init():
    rstorch.manual_seed(3)
    m = nn.MultiheadAttention(32, 4)
    # xavier_uniform_ on the stacked (3E, E) weight: bound sqrt(6 / (E + 3E)).
    _uniform_like(m.in_proj_weight, math.sqrt(6 / (32 + 96)))
    assert m.in_proj_bias.abs().sum().item() == 0 and m.out_proj.bias.abs().sum().item() == 0
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(m.out_proj, nn.Linear)
    sep = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert sep.in_proj_weight is None and sep.k_proj_weight.shape == (8, 3) and sep.v_proj_weight.shape == (8, 5)
    assert sep.bias_k.shape == (1, 1, 8) and sep.bias_k.abs().sum().item() > 0


def test_reset_parameters_redraws():
    rstorch.manual_seed(4)
    m = nn.LSTM(3, 4)
    before = m.weight_ih_l0.detach().clone()
    m.reset_parameters()
    assert bool((before != m.weight_ih_l0.detach()).any())
    assert m.weight_ih_l0.abs().max().item() <= 0.5  # still within 1 / sqrt(hidden_size)


# ---- module semantics -------------------------------------------------------------------------

def test_batchnorm_momentum_and_eval():
    rstorch.manual_seed(5)
    bn = nn.BatchNorm1d(3, momentum=0.5)
    x = rstorch.randn(8, 3)
    bn(x)
    mean, var = x.mean(0), x.var(0)  # unbiased variance feeds the running estimate
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.5 * mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.5 + 0.5 * var.numpy(), rtol=1e-5, atol=1e-6)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    y = bn(x)
    ref = (x - bn.running_mean) / (bn.running_var + bn.eps).sqrt()
    np.testing.assert_allclose(y.detach().numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    assert bn.num_batches_tracked.item() == 1  # eval does not count batches
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(rstorch.zeros(2, 3, 1, 1))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        nn.BatchNorm2d(3)(rstorch.zeros(2, 3))


def test_batchnorm_loads_checkpoint_without_num_batches_tracked():
    bn = nn.BatchNorm1d(2)
    state = collections.OrderedDict((k, v) for k, v in bn.state_dict().items() if k != "num_batches_tracked")
    state._metadata = {"": {"version": 1}}  # a checkpoint from before the counter existed
    result = bn.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    # Without metadata the version is unknown, which PyTorch also treats as old.
    plain = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    assert nn.BatchNorm1d(2).load_state_dict(plain).missing_keys == []
    state._metadata = {"": {"version": 2}}
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        nn.BatchNorm1d(2).load_state_dict(state)


def test_dropout_layers_train_and_eval():
    rstorch.manual_seed(6)
    x = rstorch.ones(2000)
    d = nn.Dropout(0.25)
    y = d(x)
    kept = (y != 0).float().mean().item()
    assert 0.7 < kept < 0.8
    values = y.numpy()
    assert np.all((values == 0) | np.isclose(values, 1 / 0.75, rtol=1e-6))
    d.eval()
    assert d(x) is x
    d2 = nn.Dropout2d(0.5)
    z = d2(rstorch.ones(4, 50, 3, 3)).numpy()
    per_channel = z.reshape(4, 50, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))  # whole channels only
    assert 0 < (per_channel == 0).all(-1).mean() < 1
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_embedding_from_pretrained_and_padding_gradient():
    w = rstorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and e.weight.tolist() == w.tolist()
    assert e(rstorch.tensor([2, 0])).tolist() == [[5.0, 6.0], [1.0, 2.0]]
    e2 = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert e2.weight.requires_grad and e2.weight[1].tolist() == [3.0, 4.0]  # not zeroed
    e2(rstorch.tensor([1, 1, 2])).sum().backward()
    assert e2.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(rstorch.zeros(3))


def test_conv_argument_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv1d(2, 2, 3, padding="full")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(2, 2, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


def test_conv_transpose_output_size():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = rstorch.randn(1, 2, 4, 5)
    assert m(x).shape == (1, 3, 7, 9)
    assert m(x, output_size=(8, 10)).shape == (1, 3, 8, 10)
    assert m(x, output_size=[1, 3, 8, 9]).shape == (1, 3, 8, 9)
    with pytest.raises(ValueError, match=r"requested an output size of \(9, 9\), but valid sizes range from "
                                         r"\[7, 9\] to \[8, 10\] \(for an input of rstorch.Size\(\[4, 5\]\)\)"):
        m(x, output_size=(9, 9))


def test_double_keeps_integer_buffers():
    bn = nn.BatchNorm2d(2).double()
    assert bn.weight.dtype == rstorch.float64 and bn.running_var.dtype == rstorch.float64
    assert bn.num_batches_tracked.dtype == rstorch.int64
    bn(rstorch.randn(2, 2, 3, 3, dtype=rstorch.float64))
    assert bn.num_batches_tracked.item() == 1


def test_conv_same_padding_keeps_size_for_every_padding_mode():
    x = rstorch.randn(1, 2, 7, 6)
    for mode in ["zeros", "reflect", "replicate", "circular"]:
        assert nn.Conv2d(2, 3, (4, 3), padding="same", padding_mode=mode)(x).shape == (1, 3, 7, 6)
    assert nn.Conv1d(2, 3, 4, padding="same", padding_mode="reflect")(rstorch.randn(2, 9)).shape == (3, 9)


def test_pooling_shapes_and_indices():
    x = rstorch.randn(2, 3, 9, 8)
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert out.shape == (2, 3, 4, 4) and idx.dtype == rstorch.int64
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(flat.gather(2, idx.reshape(2, 3, -1)).numpy(), out.reshape(2, 3, -1).numpy())
    assert nn.MaxPool2d(2, ceil_mode=True)(x).shape == (2, 3, 5, 4)
    assert nn.AvgPool2d(3, stride=1, padding=1)(x).shape == (2, 3, 9, 8)
    assert nn.AdaptiveAvgPool2d((None, 2))(x).shape == (2, 3, 9, 2)
    assert nn.MaxPool1d(3, stride=2)(rstorch.randn(3, 10)).shape == (3, 4)


def test_rnn_shapes_for_every_layout():
    x = rstorch.randn(5, 2, 3)
    out, h = nn.GRU(3, 4, num_layers=3, bidirectional=True)(x)
    assert out.shape == (5, 2, 8) and h.shape == (6, 2, 4)
    out, (h, c) = nn.LSTM(3, 6, num_layers=2, proj_size=2, batch_first=True)(x)
    assert out.shape == (5, 2, 2) and h.shape == (2, 5, 2) and c.shape == (2, 5, 6)
    out, h = nn.RNN(3, 4)(rstorch.randn(7, 3))
    assert out.shape == (7, 4) and h.shape == (1, 4)


def test_rnn_last_output_is_final_hidden_state():
    rstorch.manual_seed(7)
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    out, (h, _) = m(rstorch.randn(2, 5, 3))
    # Forward direction ends at the last step, the reverse direction at the first.
    np.testing.assert_allclose(out[:, -1, :4].detach().numpy(), h[2].detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(out[:, 0, 4:].detach().numpy(), h[3].detach().numpy(), rtol=1e-6)


def test_rnn_dropout_between_layers_only_in_training():
    rstorch.manual_seed(8)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.9)
    x = rstorch.randn(4, 2, 3)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    c, _ = m(x)
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())
    assert (c != 0).all().item()  # the last layer's output itself is never dropped


def test_rnn_argument_errors_match_pytorch():
    m = nn.RNN(3, 4)
    with pytest.raises(ValueError, match="RNN: Expected input to be 2D or 3D, got 4D tensor instead"):
        m(rstorch.zeros(1, 1, 1, 3))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D but got 2-D tensor"):
        m(rstorch.zeros(2, 2, 3), rstorch.zeros(1, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(rstorch.zeros(2, 2, 3), rstorch.zeros(1, 3, 4))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
        m(rstorch.zeros(2, 2, 5))
    lstm = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        lstm(rstorch.zeros(1, 1, 1, 3))
    with pytest.raises(RuntimeError, match=r"For batched 3-D input, hx and cx should also be 3-D but got \(2-D, 2-D\)"):
        lstm(rstorch.zeros(2, 2, 3), (rstorch.zeros(1, 4), rstorch.zeros(1, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"):
        lstm(rstorch.zeros(2, 2, 3), (rstorch.zeros(1, 3, 4), rstorch.zeros(1, 2, 4)))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'x'. Select from 'tanh' or 'relu'."):
        nn.RNN(3, 4, nonlinearity="x")
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=2)


def test_multihead_attention_weights_and_masks():
    rstorch.manual_seed(9)
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    q = rstorch.randn(2, 3, 8)
    kpm = rstorch.tensor([[False, False, True], [False, False, False]])
    out, w = m(q, q, q, key_padding_mask=kpm)
    assert out.shape == (2, 3, 8) and w.shape == (2, 3, 3)
    np.testing.assert_allclose(w.sum(-1).detach().numpy(), np.ones((2, 3)), rtol=1e-6)
    assert (w[0, :, 2] == 0).all().item()
    _, per_head = m(q, q, q, average_attn_weights=False)
    assert per_head.shape == (2, 2, 3, 3)
    out2, none = m(q, q, q, key_padding_mask=kpm, need_weights=False)
    assert none is None
    np.testing.assert_allclose(out2.detach().numpy(), out.detach().numpy(), rtol=1e-5, atol=1e-6)
    # A boolean attn_mask marks the pairs that may NOT attend (the opposite of SDPA's).
    causal = rstorch.ones(3, 3, dtype=rstorch.bool).triu(1)
    _, w = m(q, q, q, attn_mask=causal)
    assert (w.detach().numpy()[:, np.triu_indices(3, 1)[0], np.triu_indices(3, 1)[1]] == 0).all()
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(q, q, q, is_causal=True)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


def test_transformer_encoder_clones_are_independent():
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0)
    enc = nn.TransformerEncoder(layer, 3)
    ps = [enc.layers[i].linear1.weight for i in range(3)]
    assert ps[0] is not ps[1] and ps[0] is not layer.linear1.weight
    assert len(list(enc.parameters())) == 3 * len(list(layer.parameters()))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    custom = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=lambda t: t.tanh())
    assert custom(rstorch.randn(3, 2, 8)).shape == (3, 2, 8)


def test_loss_weights_are_buffers_and_follow_dtype():
    loss = nn.CrossEntropyLoss(weight=rstorch.tensor([1.0, 2.0]))
    assert [k for k, _ in loss.named_buffers()] == ["weight"] and list(loss.parameters()) == []
    loss.double()
    assert loss.weight.dtype == rstorch.float64
    bce = nn.BCEWithLogitsLoss(pos_weight=rstorch.tensor([2.0]))
    assert [k for k, _ in bce.named_buffers()] == ["pos_weight"] and bce.weight is None
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead."):
        legacy = nn.MSELoss(size_average=False)
    assert legacy.reduction == "sum"


# ---- gradcheck in float64 ---------------------------------------------------------------------

def _gradcheck_module(m, inputs, call):
    """gradcheck over the inputs and every parameter: the parameters are swapped for the
    tensors gradcheck perturbs while `call` runs."""
    m = m.double()
    names = [n for n, _ in m.named_parameters()]
    params = [p.detach().clone().requires_grad_(True) for _, p in m.named_parameters()]
    originals = {n: p for n, p in m.named_parameters()}

    def run(*args):
        for name, p in zip(names, args[len(inputs):]):
            owner, _, leaf = name.rpartition(".")
            (m.get_submodule(owner) if owner else m)._parameters[leaf] = p
        try:
            outs = flatten_outputs(call(m, *args[:len(inputs)]))
        finally:
            for name in names:
                owner, _, leaf = name.rpartition(".")
                (m.get_submodule(owner) if owner else m)._parameters[leaf] = originals[name]
        return tuple(o for o in outs if o.is_floating_point())

    # The swap must really route through the perturbed tensors, or the check is vacuous.
    sum(o.sum() for o in run(*inputs, *params)).backward()
    assert all(p.grad is not None and p.grad.abs().sum().item() > 0 for p in params)
    for p in params:
        p.grad = None
    assert gradcheck(run, (*inputs, *params), eps=1e-6, atol=1e-5, rtol=1e-3)


def _d(*shape, seed=0):
    return rstorch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).requires_grad_(True)


def test_gradcheck_rnn():
    rstorch.manual_seed(10)
    _gradcheck_module(nn.RNN(2, 3, num_layers=2, bidirectional=True), [_d(3, 2, 2), _d(4, 2, 3, seed=1)],
                      lambda m, x, h: m(x, h))


def test_gradcheck_lstm():
    rstorch.manual_seed(11)
    _gradcheck_module(nn.LSTM(2, 3, proj_size=2, batch_first=True), [_d(2, 3, 2), _d(1, 2, 2, seed=1),
                                                                       _d(1, 2, 3, seed=2)],
                      lambda m, x, h, c: m(x, (h, c)))
    _gradcheck_module(nn.LSTM(2, 3, num_layers=2, bidirectional=True), [_d(3, 2)], lambda m, x: m(x))


def test_gradcheck_gru():
    rstorch.manual_seed(12)
    _gradcheck_module(nn.GRU(2, 3, num_layers=2), [_d(3, 2, 2), _d(2, 2, 3, seed=1)], lambda m, x, h: m(x, h))


def test_gradcheck_multihead_attention():
    rstorch.manual_seed(13)
    mask = rstorch.tensor([[False, True, False], [False, False, False]])
    _gradcheck_module(nn.MultiheadAttention(4, 2, batch_first=True), [_d(2, 2, 4), _d(2, 3, 4, seed=1),
                                                                        _d(2, 3, 4, seed=2)],
                      lambda m, q, k, v: m(q, k, v, key_padding_mask=mask))
    _gradcheck_module(nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True, add_zero_attn=True),
                      [_d(2, 4), _d(3, 3, seed=1), _d(3, 2, seed=2)],
                      lambda m, q, k, v: m(q, k, v, average_attn_weights=False))
