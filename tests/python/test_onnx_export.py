"""rstorch.onnx.export: the seed MNIST network, LeNet, an MLP, an LSTM model and a transformer
encoder export to files that pass onnx.checker (full check) and that onnxruntime runs to rstorch's
outputs within 1e-5, at the traced batch size and, through a dynamic batch axis, at another one."""
import importlib.util
import io
import pathlib
import warnings

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent.parent / "examples"


def _mnist_net():
    spec = importlib.util.spec_from_file_location("_onnx_test_mnist", EXAMPLES / "mnist.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Net()


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 16, 5), nn.Tanh(), nn.AvgPool2d(2, 2))
        self.classifier = nn.Sequential(nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.Sigmoid(),
                                        nn.Linear(84, 10))

    def forward(self, x):
        x = self.features(x)
        x = x.view(x.size(0), -1)  # the batch read from the input: stays dynamic in the graph
        return F.softmax(self.classifier(x), dim=-1)


def _mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(20, 64), nn.GELU(), nn.Dropout(0.2), nn.LayerNorm(64),
                         nn.Linear(64, 32), nn.LeakyReLU(0.1), nn.Linear(32, 4), nn.LogSoftmax(dim=1))


class LSTMTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.lstm = nn.LSTM(16, 24, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(48, 3)

    def forward(self, tokens):
        out, (h, c) = self.lstm(self.embed(tokens))
        return self.head(out[:, -1, :]) + (h.sum(0) - c.mean(0)).mean(-1, keepdim=True)


class Encoder(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.d = d
        self.embed = nn.Embedding(100, d)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.1, batch_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(d), enable_nested_tensor=False)
        self.head = nn.Linear(d, 5)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens) * self.d ** 0.5)
        return self.head(h.mean(dim=1))


def _randomize_batch_norm(model):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(rstorch.randn(m.num_features))
            m.running_var.copy_(rstorch.rand(m.num_features) + 0.5)


def _export(model, args, **kwargs):
    buf = io.BytesIO()
    rstorch.onnx.export(model, args, buf, **kwargs)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])


def _run(session, *inputs):
    feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
    return session.run(None, feeds)


def _expected(model, *inputs):
    with rstorch.no_grad():
        out = model(*inputs)
    return (out if isinstance(out, tuple) else (out,))


MODELS = {
    "mnist": (_mnist_net, lambda b: rstorch.randn(b, 1, 28, 28)),
    "lenet": (LeNet, lambda b: rstorch.randn(b, 1, 28, 28)),
    "mlp": (_mlp, lambda b: rstorch.randn(b, 4, 5)),
    "lstm": (LSTMTagger, lambda b: rstorch.randint(0, 50, (b, 7))),
    "transformer": (Encoder, lambda b: rstorch.randint(0, 100, (b, 6))),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_models_export_check_and_match_onnxruntime(name):
    rstorch.manual_seed(0)
    make, example = MODELS[name]
    model = make()
    _randomize_batch_norm(model)
    model.eval()
    proto, session = _export(model, (example(3),), input_names=["input"], output_names=["output"],
                             dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    for batch in (3, 5):
        x = example(batch)
        (got,) = _run(session, x)
        (want,) = _expected(model, x)
        assert got.shape == tuple(want.shape)
        np.testing.assert_allclose(got, want.numpy(), rtol=0, atol=1e-5)


def test_parameters_are_initializers_named_by_state_dict_keys():
    model = _mlp().eval()
    proto, _ = _export(model, (rstorch.randn(2, 4, 5),))
    assert {t.name for t in proto.graph.initializer} == set(model.state_dict())
    lenet = LeNet().eval()
    proto, _ = _export(lenet, (rstorch.randn(1, 1, 28, 28),))
    names = {t.name for t in proto.graph.initializer}
    assert {"features.1.running_mean", "features.1.running_var", "features.0.weight", "classifier.4.bias"} <= names
    assert "features.1.num_batches_tracked" not in names


def test_unsupported_op_raises_naming_it():
    class Cumulative(nn.Module):
        def forward(self, x):
            return rstorch.cumsum(x, 0)

    with pytest.raises(rstorch.onnx.errors.UnsupportedOperatorError,
                       match="Exporting the operator 'aten::cumsum' to ONNX opset version 20 is not supported"):
        rstorch.onnx.export(Cumulative(), (rstorch.randn(3),), io.BytesIO())

    # A layer without a mapping is named as aten spells it.
    with pytest.raises(rstorch.onnx.OnnxExporterError, match="'aten::pixel_unshuffle'"):
        rstorch.onnx.export(nn.Sequential(nn.PixelUnshuffle(2)), (rstorch.randn(1, 1, 4, 4),), io.BytesIO())


def test_is_in_onnx_export_and_modes():
    seen = []

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            seen.append((rstorch.onnx.is_in_onnx_export(), self.training, self.drop.training))
            return self.drop(x) * 2

    model = Probe().train()
    assert rstorch.onnx.is_in_onnx_export() is False
    _export(model, (rstorch.randn(2),))
    # The default training=TrainingMode.EVAL exports in eval mode and puts the modes back.
    assert seen == [(True, False, False)]
    assert rstorch.onnx.is_in_onnx_export() is False and model.training and model.drop.training


def test_file_targets_and_return_values(tmp_path):
    model = _mlp().eval()
    x = rstorch.randn(2, 4, 5)
    path = tmp_path / "mlp.onnx"
    program = rstorch.onnx.export(model, (x,), str(path))
    assert isinstance(program, rstorch.onnx.ONNXProgram)
    assert onnx.load(str(path)) == program.model_proto
    np.testing.assert_allclose(program(x)[0].numpy(), model(x).detach().numpy(), atol=1e-5)
    assert rstorch.onnx.export(model, x, tmp_path / "legacy.onnx", dynamo=False, opset_version=17) is None
    proto = onnx.load(str(tmp_path / "legacy.onnx"))
    assert proto.opset_import[0].version == 17 and [i.name for i in proto.graph.input] == ["input"]
    with open(tmp_path / "fileobj.onnx", "wb") as fh:
        rstorch.onnx.export(model, (x,), fh, input_names=["features"], output_names=["logp"])
    proto = onnx.load(str(tmp_path / "fileobj.onnx"))
    assert [i.name for i in proto.graph.input] == ["features"] and [o.name for o in proto.graph.output] == ["logp"]
    # dynamo's dynamic_shapes and the TorchScript exporter's list form of dynamic_axes.
    proto = rstorch.onnx.export(model, (x,), dynamic_shapes={"input": {0: "batch"}}).model_proto
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    proto = rstorch.onnx.export(model, (x,), dynamic_axes={"input": [0]}, dynamo=False, f=io.BytesIO())
    program = rstorch.onnx.export(model, (x,), dynamic_axes={"input": [0]})
    assert proto is None and program.model_proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == \
        "input_dynamic_axes_1"


def test_names_given_to_inputs_and_outputs_stay_unique():
    # An input named like a parameter, an output named like a value made on the way.
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU()).eval()
    x = rstorch.randn(2, 3)
    proto, session = _export(model, (x,), input_names=["0.weight"], output_names=["gemm"])
    assert [i.name for i in proto.graph.input] == ["0.weight"] and [o.name for o in proto.graph.output] == ["gemm"]
    assert {t.name for t in proto.graph.initializer} == {"0.weight_1", "0.bias"}
    np.testing.assert_allclose(_run(session, x)[0], model(x).detach().numpy(), atol=1e-6)


def test_export_params_and_initializers_as_inputs():
    model = nn.Sequential(nn.Linear(3, 2)).eval()
    proto, _ = _export(model, (rstorch.randn(1, 3),), export_params=False)
    assert [i.name for i in proto.graph.input] == ["input", "0.weight", "0.bias"] and not proto.graph.initializer
    proto, session = _export(model, (rstorch.randn(1, 3),), keep_initializers_as_inputs=True)
    assert len(proto.graph.initializer) == 2 and len(proto.graph.input) == 3


@pytest.mark.parametrize("opset", [13, 17, 20])
def test_older_opsets_compose_layer_norm_and_gelu(opset):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(rstorch.randn(4, 3))
            self.norm = nn.LayerNorm(3)

        def forward(self, x, scale: float = 2.0):
            y = F.gelu(x @ self.w, approximate="tanh") * scale
            return rstorch.cat([self.norm(y), y[:, :1]], dim=1).transpose(0, 1)

    model = Block().eval()
    x = rstorch.randn(2, 4)
    proto, session = _export(model, (x,), opset_version=opset)
    ops = {n.op_type for n in proto.graph.node}
    assert ("LayerNormalization" in ops) == (opset >= 17) and ("Gelu" in ops) == (opset >= 20)
    np.testing.assert_allclose(_run(session, x)[0], model(x).detach().numpy(), atol=1e-5)


def test_attention_with_masks_and_weights():
    class Attend(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

        def forward(self, x, key_padding_mask, attn_mask):
            return self.attn(x, x, x, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                             average_attn_weights=False)

    model = Attend().eval()
    x, mask = rstorch.randn(2, 5, 16), rstorch.randn(5, 5)
    padding = rstorch.tensor([[False] * 5, [False, False, False, True, True]])
    _, session = _export(model, (x, padding, mask))
    for got, want in zip(_run(session, x, padding, mask), _expected(model, x, padding, mask)):
        np.testing.assert_allclose(got, want.numpy(), atol=1e-5)


def test_python_control_flow_follows_the_example():
    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(16, 2, 32, norm_first=True)

        def forward(self, x, mask):
            if x.dim() == 2:
                x = x.unsqueeze(1)
            rows = [x[i] * 2 for i in range(x.size(0))]
            return self.layer(x, src_mask=mask), rstorch.stack(rows, 0)

    model = Branchy().eval()
    x = rstorch.randn(5, 3, 16)
    mask = rstorch.triu(rstorch.full((5, 5), float("-inf")), 1)
    _, session = _export(model, (x, mask))
    for got, want in zip(_run(session, x, mask), _expected(model, x, mask)):
        np.testing.assert_allclose(got, want.numpy(), atol=1e-5)

    class DataDependent(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _export(DataDependent(), (rstorch.ones(3),))
    assert any(issubclass(w.category, rstorch.onnx.errors.OnnxExporterWarning) for w in caught)


@pytest.mark.parametrize("make", [lambda: nn.GRU(5, 8, num_layers=2, bidirectional=True, batch_first=True),
                                  lambda: nn.RNN(5, 8, nonlinearity="relu"),
                                  lambda: nn.RNN(5, 8, num_layers=2, bidirectional=True, bias=False),
                                  lambda: nn.LSTM(5, 8, bidirectional=True)], ids=["gru", "rnn_relu", "rnn_tanh", "lstm"])
def test_recurrent_layers_with_initial_state(make):
    rnn = make().eval()
    directions = 2 if rnn.bidirectional else 1
    x = rstorch.randn(3, 4, 5)
    h = rstorch.randn(rnn.num_layers * directions, 3 if rnn.batch_first else 4, 8)
    state = (h, rstorch.randn(*h.shape)) if isinstance(rnn, nn.LSTM) else h
    _, session = _export(rnn, (x, state))
    want = _expected(rnn, x, state)
    want = [want[0]] + (list(want[1]) if isinstance(want[1], tuple) else [want[1]])
    feeds = [x] + (list(state) if isinstance(state, tuple) else [state])
    # The state tuple's tensors are graph inputs of their own (hx_0, hx_1), as PyTorch flattens them.
    assert [i.name for i in session.get_inputs()] == ["input"] + (["hx_0", "hx_1"] if isinstance(state, tuple) else ["hx"])
    got = session.run(None, {i.name: t.numpy() for i, t in zip(session.get_inputs(), feeds)})
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), atol=1e-5)


class _SizesFromInput(nn.Module):
    """Tensors made from traced sizes (zeros, arange), a slice by one, in-place ops, max with indices."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 6, batch_first=True)
        self.pos = nn.Parameter(rstorch.randn(1, 10, 4))

    def forward(self, x):
        h0 = rstorch.zeros(1, x.size(0), 6)
        steps = rstorch.arange(x.size(1))
        x = x + self.pos[:, :x.size(1)] + steps.float().unsqueeze(-1) / x.shape[-1] ** 0.5
        out, _ = self.rnn(x, h0)
        values, indices = out.max(dim=1)
        y = F.normalize(values, dim=-1)
        y.add_(1.0)
        causal = rstorch.triu(rstorch.ones(x.size(1), x.size(1)), diagonal=1).bool()
        return (y * rstorch.ones_like(y), indices, rstorch.tril(out[0] @ out[0].t()).sum(),
                out.repeat(1, 2, 1), out.masked_fill(causal[:, :1], 0.0))


LAYERS = {
    "conv_transpose": (lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), (4, 8, 8)),
    "upsample_nearest": (lambda: nn.Upsample(scale_factor=2), (4, 8, 8)),
    "upsample_bilinear": (lambda: nn.Upsample(scale_factor=2, mode="bilinear"), (4, 8, 8)),
    "upsample_size_align_corners": (lambda: nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True), (4, 8, 8)),
    "pads": (lambda: nn.Sequential(nn.ZeroPad2d((1, 2, 0, 3)), nn.ReflectionPad2d(1), nn.ReplicationPad2d((2, 0, 1, 1)),
                                   nn.ConstantPad2d(1, 0.5)), (4, 8, 8)),
    "group_norm": (lambda: nn.GroupNorm(2, 4), (4, 8, 8)),
    "instance_norm": (lambda: nn.InstanceNorm2d(4, affine=True), (4, 8, 8)),
    "pixel_shuffle": (lambda: nn.PixelShuffle(2), (4, 8, 8)),
    "activations": (lambda: nn.Sequential(nn.Hardswish(), nn.Hardsigmoid(), nn.Mish(), nn.PReLU(4), nn.ReLU6(), nn.SiLU(),
                                          nn.ELU(), nn.Softplus()), (4, 8, 8)),
    "conv_padding_modes": (lambda: nn.Sequential(nn.Conv2d(4, 2, 3, padding=1, padding_mode="reflect"),
                                                 nn.Conv2d(2, 2, 3, padding=2, padding_mode="circular")), (4, 8, 8)),
    "conv1d_pool1d": (lambda: nn.Sequential(nn.Conv1d(4, 6, 3, padding="same", dilation=2), nn.BatchNorm1d(6),
                                            nn.MaxPool1d(2), nn.AdaptiveAvgPool1d(2)), (4, 9)),
    "sizes_from_input": (_SizesFromInput, (5, 4)),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_more_layers_match_onnxruntime_at_two_batch_sizes(name):
    rstorch.manual_seed(1)
    make, shape = LAYERS[name]
    model = make().eval()
    _, session = _export(model, (rstorch.randn(2, *shape),), input_names=["x"], dynamic_axes={"x": {0: "batch"}})
    for batch in (2, 3):
        x = rstorch.randn(batch, *shape)
        got, want = _run(session, x), _expected(model, x)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), atol=1e-5)


@pytest.mark.parametrize("batch_first", [True, False])
def test_full_transformer_with_causal_mask_input(batch_first):
    # nn.Transformer's forward is followed op by op; its mask checks decide Python branches only
    # and leave no nodes.
    rstorch.manual_seed(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's note about nested tensors when not batch_first
        model = nn.Transformer(16, 2, 1, 1, 32, batch_first=batch_first).eval()
    src = rstorch.randn(2, 5, 16) if batch_first else rstorch.randn(5, 2, 16)
    tgt = rstorch.randn(2, 4, 16) if batch_first else rstorch.randn(4, 2, 16)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proto, session = _export(model, (src, tgt), kwargs={"tgt_mask": mask})
    assert [i.name for i in proto.graph.input] == ["src", "tgt", "tgt_mask"]
    (got,) = _run(session, src, tgt, mask)
    np.testing.assert_allclose(got, model(src, tgt, tgt_mask=mask).detach().numpy(), atol=1e-5)
