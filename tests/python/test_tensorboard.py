"""rstorch.utils.tensorboard (issue 22 item 2): the program of tests/tb_program.py written with
rstorch's SummaryWriter and read back by tensorboard's own EventAccumulator gives what PyTorch
2.15's SummaryWriter gave for it (tests/record_tensorboard.py -> tests/fixtures/tensorboard.json):
tags, steps, values, histogram buckets, decoded image pixels, text, hparams records, purge_step."""
import importlib.util
import json
import math
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import rstorch

TESTS = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(TESTS))
import tb_program  # noqa: E402 (tests/ is put on the path just above; it imports tensorboard lazily)

# `make test` installs tensorboard (Makefile); the import-error test below runs either way.
needs_tensorboard = pytest.mark.skipif(importlib.util.find_spec("tensorboard") is None, reason="tensorboard is not installed")
REF = json.loads((TESTS / "fixtures" / "tensorboard.json").read_text())


def _same(got, want, where="run"):
    if isinstance(want, float) and isinstance(got, (int, float)):
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300), f"{where}: {got} != {want}"
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: keys {sorted(got)} != {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got} != {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


def _writer():
    from rstorch.utils.tensorboard import SummaryWriter
    return SummaryWriter


@needs_tensorboard
def test_events_match_pytorch(tmp_path):
    SummaryWriter = _writer()
    _same(tb_program.main_program(SummaryWriter, rstorch.tensor, str(tmp_path / "main")), REF["main"])


@needs_tensorboard
def test_purge_step_matches_pytorch(tmp_path):
    SummaryWriter = _writer()
    _same(tb_program.purge_program(SummaryWriter, rstorch.tensor, str(tmp_path / "purge")), REF["purge"])


@needs_tensorboard
def test_default_log_dir_comment_and_errors(tmp_path, monkeypatch):
    SummaryWriter = _writer()
    monkeypatch.chdir(tmp_path)
    import socket
    with SummaryWriter(comment="_exp") as w:
        w.add_scalar("x", rstorch.tensor([3.0]), 0)
        log_dir = w.log_dir
    parts = pathlib.Path(log_dir).parts
    assert parts[0] == "runs" and parts[1].endswith("_" + socket.gethostname() + "_exp")
    assert any(f.startswith("events.out.tfevents.") for f in os.listdir(log_dir))
    w.close()  # closing twice is allowed
    with SummaryWriter(log_dir=str(tmp_path / "e")) as w:
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            w.add_scalar("bad", rstorch.ones(2), 0)
        with pytest.raises(ValueError, match="The input has no element."):
            w.add_histogram("h", rstorch.ones(0), 0)
        with pytest.raises(AssertionError, match="size of input tensor and input format are different"):
            w.add_image("i", rstorch.ones(3, 4), 0)
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([1], {})


def test_import_without_tensorboard_raises_pytorchs_error():
    # A fresh interpreter in which `import tensorboard` fails as it does when the package is absent.
    code = textwrap.dedent("""
        import importlib.abc, sys
        class Hide(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "tensorboard" or name.startswith("tensorboard."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, Hide())
        try:
            import rstorch.utils.tensorboard
        except ModuleNotFoundError as e:
            print(type(e).__name__, e)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == "ModuleNotFoundError No module named 'tensorboard'"


@needs_tensorboard
def test_media_and_plugins_match_pytorch(tmp_path):
    # add_images/add_image_with_boxes/add_audio/add_tensor/add_histogram_raw/add_pr_curve(_raw)/
    # add_custom_scalars*/add_mesh/add_embedding: events as tensorboard reads them, and the
    # projector's files, against PyTorch's for the same program.
    SummaryWriter = _writer()
    _same(tb_program.media_program(SummaryWriter, rstorch.tensor, str(tmp_path / "media")), REF["media"])


@needs_tensorboard
def test_figures_boxes_video_graphs_and_errors(tmp_path, capsys):
    SummaryWriter = _writer()
    import numpy as np
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    from tensorboard.compat.proto.node_def_pb2 import NodeDef
    from tensorboard.compat.proto.config_pb2 import RunMetadata
    log_dir = str(tmp_path / "misc")
    with SummaryWriter(log_dir=log_dir) as w:
        w.add_image_with_boxes("labelled", rstorch.zeros(3, 40, 60), rstorch.tensor([[5.0, 5.0, 50.0, 35.0]]), 0,
                               labels=["cat"])
        w.add_image_with_boxes("wrong_label_count", rstorch.zeros(3, 8, 8), rstorch.tensor([[1.0, 1.0, 6.0, 6.0]]), 0,
                               labels=["a", "b"])
        w.add_video("clip", rstorch.rand(2, 3, 3, 4, 4), 0)
        w.file_writer.add_graph((GraphDef(node=[NodeDef(name="x", op="Variable")]), RunMetadata()))
        with pytest.raises(AssertionError, match="Expected 3 tags, got 2."):
            w.add_custom_scalars_marginchart(["a", "b"])
        with pytest.raises(AssertionError, match="#labels should equal with #data points"):
            w.add_embedding(rstorch.rand(3, 2), metadata=["a"])
        with pytest.raises(AssertionError, match="input tensor should be 1 dimensional."):
            w.add_audio("stereo", rstorch.rand(2, 5) * 0.5)
        with pytest.raises(ValueError, match="len\\(bucket_limits\\) != len\\(bucket_counts\\)"):
            w.add_histogram_raw("bad", 0, 1, 1, 1, 1, [1.0], [1, 2])
        w.add_audio("loud", rstorch.tensor([0.5, 2.0]))
        if importlib.util.find_spec("onnx") is None:
            with pytest.raises(ModuleNotFoundError, match="onnx"):
                w.add_onnx_graph(str(tmp_path / "model.onnx"))
    printed = capsys.readouterr().out
    assert "warning: audio amplitude out of range, auto clipped." in printed
    if importlib.util.find_spec("moviepy") is None:
        assert "add_video needs package moviepy" in printed
    acc = EventAccumulator(log_dir, size_guidance={"images": 0})
    acc.Reload()
    assert sorted(acc.Tags()["images"]) == ["labelled", "wrong_label_count"]
    from PIL import Image
    import io
    picture = np.asarray(Image.open(io.BytesIO(acc.Images("labelled")[0].encoded_image_string)))
    # The box's left edge is red, and so is the label's band above its bottom edge.
    assert (picture[20, 5] == [255, 0, 0]).all() and (picture[26, 10] == [255, 0, 0]).all()
    assert picture[20, 25].tolist() == [0, 0, 0]
    assert [n.name for n in acc.Graph().node] == ["x"]


@needs_tensorboard
def test_add_figure_draws_the_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")  # `make test` installs it (Makefile)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    SummaryWriter = _writer()
    figure = plt.figure(figsize=(2, 1), dpi=50)
    figure.add_subplot().plot([0, 1], [1, 0])
    second, third = plt.figure(figsize=(2, 1), dpi=50), plt.figure(figsize=(2, 1), dpi=50)
    with SummaryWriter(log_dir=str(tmp_path)) as w:
        w.add_figure("one", figure, 0)
        assert not plt.fignum_exists(figure.number)  # closed after drawing, as PyTorch's
        w.add_figure("two", [second, third], 0, close=False)
    assert plt.fignum_exists(second.number) and plt.fignum_exists(third.number)  # close=False keeps them
    acc = EventAccumulator(str(tmp_path), size_guidance={"images": 0})
    acc.Reload()
    one, two = acc.Images("one")[0], acc.Images("two")[0]
    assert (one.width, one.height) == (100, 50)
    assert (two.width, two.height) == (200, 50)  # two figures side by side


@needs_tensorboard
def test_add_graph_writes_the_ops_with_their_scopes(tmp_path):
    SummaryWriter = _writer()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    nn = rstorch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            return h.tanh() if x.shape[0] > 1 else h  # control flow: the trace takes the inputs' branch

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.body = nn.Sequential(Block(), nn.ReLU())
            self.head = nn.Linear(4, 2)

        def forward(self, tokens, bias):
            h = self.body(self.emb(tokens)) * 2
            return self.head(h) + bias, h

    model = Net()
    handles_before = len(model.body[0]._forward_hooks)
    with SummaryWriter(log_dir=str(tmp_path)) as w:
        w.add_graph(model, (rstorch.tensor([1, 2, 3]), rstorch.zeros(2)))
    assert len(model.body[0]._forward_hooks) == handles_before  # the trace's hooks are gone
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    nodes = {n.name: n for n in acc.Graph().node}
    ops = {n.op for n in nodes.values()}
    assert {"aten::embedding", "aten::addmm", "aten::tanh", "aten::relu", "aten::mul", "aten::add", "IO Node",
            "prim::GetAttr"} <= ops
    assert "Net/Sequential[body]/Block[0]/Linear[fc]/weight" in nodes
    tanh = next(n for n in nodes.values() if n.op == "aten::tanh")
    assert tanh.name.startswith("Net/Sequential[body]/Block[0]/")
    relu = next(n for n in nodes.values() if n.op == "aten::relu")
    assert relu.name.startswith("Net/Sequential[body]/ReLU[1]/") and list(relu.input) == [tanh.name]
    mul = next(n for n in nodes.values() if n.op == "aten::mul")
    assert mul.name.startswith("Net/mul") and relu.name in mul.input  # the root's own op
    out1, out2 = nodes["output/output.1"], nodes["output/output.2"]
    assert nodes[out1.input[0]].op == "aten::add" and list(out2.input) == [mul.name]
    assert [d.size for d in out1.attr["_output_shapes"].list.shape[0].dim] == [3, 2]
    # The float input is a graph input feeding the final add; the token ids are an input too.
    assert "input/input.2" in nodes[out1.input[0]].input and "input/input.1" in nodes
