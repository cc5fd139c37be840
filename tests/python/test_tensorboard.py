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
