"""Memory formats as PyTorch lays them out (fixtures/memory_format.json, written by
tests/record_memory_format.py from the cases of tests/memory_format_cases.py):
`contiguous`/`is_contiguous`/`Tensor.to`/`Module.to` with `memory_format=`, channels-last
results of conv2d, batch_norm, pooling and elementwise ops on channels-last inputs, and the
strides of `.grad` (AccumulateGrad's layout contract) for parameters of several layouts."""
import json
import math
import pathlib
import sys
import warnings

import pytest

import rstorch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from memory_format_cases import run_case  # noqa: E402 (tests/ is put on the path just above)

FIXTURE = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "memory_format.json").read_text())


def _close(got, want, path):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        assert isinstance(got, float) and math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-6), (path, got, want)
    else:
        assert got == want, (path, got, want)


def _same(got, want, path):
    """Tensors: shape and strides exactly, values within float tolerance; the rest exactly."""
    if isinstance(want, dict):
        assert isinstance(got, dict), (path, got)
        assert got["shape"] == want["shape"], (path, got["shape"], want["shape"])
        assert got["stride"] == want["stride"], (path, got["stride"], want["stride"])
        _close(got["values"], want["values"], path)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    else:
        assert got == want, (path, got, want)


@pytest.mark.parametrize("case", FIXTURE, ids=[c["name"] for c in FIXTURE])
def test_matches_pytorch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = json.loads(json.dumps(run_case(case["program"], rstorch)))
    want = {k: case[k] for k in ("result", "error") if k in case}
    assert got.keys() == want.keys(), (case["program"], got)
    if "error" in want:
        assert got["error"] == want["error"], case["program"]
    else:
        _same(got["result"], want["result"], case["program"])


def _cl(*shape):
    return rstorch.randn(*shape, dtype=rstorch.float64).contiguous(memory_format=rstorch.channels_last)


@pytest.mark.parametrize("op", [
    lambda x, w: rstorch.nn.functional.conv2d(x, w, padding=1),
    lambda x, w: rstorch.nn.functional.batch_norm(x, None, None, training=True),
    lambda x, w: rstorch.nn.functional.max_pool2d(x, 2),
    lambda x, w: rstorch.nn.functional.avg_pool2d(x, 2),
], ids=["conv2d", "batch_norm", "max_pool2d", "avg_pool2d"])
def test_channels_last_results_differentiate(op):
    rstorch.manual_seed(0)
    x, w = _cl(2, 3, 4, 4).requires_grad_(), _cl(2, 3, 3, 3).requires_grad_()
    assert op(x, w).is_contiguous(memory_format=rstorch.channels_last)
    assert rstorch.autograd.gradcheck(op, (x, w), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert rstorch.autograd.gradgradcheck(op, (x, w), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_grad_keeps_layout_through_create_graph_and_stays_differentiable():
    p = _cl(2, 3, 4, 5).requires_grad_()
    (p * p).sum().backward(create_graph=True)
    assert p.grad.stride() == p.stride() and p.grad.requires_grad
    assert rstorch.allclose(p.grad, 2 * p.detach())
    p.grad.sum().backward()
