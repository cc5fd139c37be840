"""The one-pass kernels of issue 23 item 3 (clamp, max/min/argmax along a dim, cumsum/cumprod,
softmax along a dim that is not last, `x[rows]` of a strided input) against PyTorch
(tests/membound2_cases.py, recorded by tests/record_membound2.py into fixtures/membound2.json),
gradchecks in float64, and results bitwise equal on one and two threads."""
import json
import math
import pathlib
import sys

import numpy as np
import pytest

import rstorch as torch
from rstorch.autograd import gradcheck

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT))
from membound2_cases import capture, cases  # noqa: E402

from _recorded_values import same  # noqa: E402

FIXTURE = json.loads((ROOT / "fixtures" / "membound2.json").read_text())
CASES = cases(torch)


def _same(got, want, path):
    same(got, want, path, tol64=1e-12)


def test_every_case_recorded():
    assert sorted(CASES) == sorted(FIXTURE)


@pytest.mark.parametrize("name", sorted(FIXTURE))
def test_matches_pytorch(name):
    got, want = capture(CASES[name]), FIXTURE[name]
    if "error" in want:
        assert got.get("error") == want["error"], got
    else:
        assert "error" not in got, got["error"]
        _same(got["out"], want["out"], name)


def _x(*shape):
    torch.manual_seed(sum(shape))
    return torch.randn(*shape, dtype=torch.float64)


@pytest.mark.parametrize("fn", [
    lambda v: v.clamp(-0.5, 0.7), lambda v: v.clamp_min(0.1), lambda v: v.clamp_max(-0.1),
    lambda v: v.max(1)[0], lambda v: v.min(0)[0], lambda v: v.t().max(1, keepdim=True)[0],
    lambda v: v.cumsum(0), lambda v: v.cumsum(1), lambda v: v.t().cumsum(1), lambda v: v.cumprod(0),
    lambda v: v.softmax(0), lambda v: v.log_softmax(0), lambda v: v.t()[torch.tensor([1, 1, 0, -1])],
])
def test_gradcheck(fn):
    assert gradcheck(fn, (_x(4, 5).requires_grad_(),))


def test_double_backward_through_the_new_nodes():
    # Under create_graph the formulas record differentiable ops (the one-pass kernels are skipped).
    x = _x(3, 4).requires_grad_()
    for fn in (lambda v: (v * v).clamp(0.1, 0.8), lambda v: (v * v).max(1)[0], lambda v: (v * v).cumsum(0)):
        (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
        assert gg.shape == x.shape


@pytest.mark.parametrize("op", ["clamp", "max0", "max1", "argmin1", "cumsum0", "cumsum1", "softmax0", "index_t"])
def test_bitwise_equal_on_one_and_two_threads(op):
    # 600 x 300 is above the parallel grain: two threads split the work.
    fns = {
        "clamp": lambda v: v.clamp(-0.5, 0.5), "max0": lambda v: v.max(0), "max1": lambda v: v.t().max(1),
        "argmin1": lambda v: v.argmin(1), "cumsum0": lambda v: v.cumsum(0), "cumsum1": lambda v: v.t().cumsum(1),
        "softmax0": lambda v: v.softmax(0), "index_t": lambda v: v.t()[torch.arange(299, -1, -2)],
    }
    before = torch.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            torch.set_num_threads(n)
            x = _x(600, 300).float().requires_grad_()
            out = fns[op](x)
            first = out[0] if isinstance(out, tuple) else out
            grad = None
            if first.requires_grad:
                (grad,) = torch.autograd.grad(first.sum(), x)
            flat = [np.asarray(o.tolist()) for o in (out if isinstance(out, tuple) else (out,))]
            results.append((flat, None if grad is None else np.asarray(grad.tolist())))
    finally:
        torch.set_num_threads(before)
    (a, ga), (b, gb) = results
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p, q)
    if ga is not None:
        np.testing.assert_array_equal(ga, gb)


def test_max_along_a_dim_of_a_large_row_with_nan_and_ties():
    # Long rows take the vectorised fold then the search for the first best.
    x = torch.zeros(3, 1000, dtype=torch.float32)
    x[0, 10] = 5.0
    x[0, 700] = 5.0
    x[1, 999] = float("nan")
    x[1, 500] = float("nan")
    x[2] = -1.0
    values, idx = x.max(1)
    assert idx.tolist() == [10, 500, 0]
    assert values[0].item() == 5.0 and math.isnan(values[1].item()) and values[2].item() == -1.0
    values, idx = x.t().min(0)
    assert idx.tolist() == [0, 500, 0]
