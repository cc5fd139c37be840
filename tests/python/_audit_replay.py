"""Replays the audit cases (tests/audit_cases_*.py) on rstorch against fixtures/audit.json."""
import json
import math
import pathlib
import sys

import rstorch

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
from audit_common import capture, inputs  # noqa: E402

RECORDED = json.loads((TESTS / "fixtures" / "audit.json").read_text())["cases"]
# gradcheck as issue 22 asks: float64, eps 1e-6, atol 1e-5, rtol 1e-3
KW = dict(eps=1e-6, atol=1e-5, rtol=1e-3)


def close(got, want, rtol, name):
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), (name, got, want)
    for g, w in zip(got["v"], want["v"]):
        if isinstance(w, float) and math.isnan(w):
            assert isinstance(g, float) and math.isnan(g), (name, got["v"], want["v"])
        elif isinstance(w, float):
            assert abs(g - w) <= rtol * abs(w) + 1e-12, (name, g, w, got["v"], want["v"])
        else:
            assert g == w, (name, got["v"], want["v"])


def compare(name, case):
    """rstorch's outputs, their requires_grad and the weighted gradients are PyTorch's."""
    want = RECORDED[name]
    rstorch.manual_seed(0)
    got = capture(rstorch, case)
    if "error" in want:
        assert (got.get("error"), got.get("message")) == (want["error"], want["message"]), (name, got)
        return
    assert "error" not in got, (name, got)
    assert len(got["outs"]) == len(want["outs"]), (name, got, want)
    for g, w in zip(got["outs"], want["outs"]):
        close(g, w, case.rtol, name)
    assert got["requires_grad"] == want["requires_grad"], name
    if "py" in want:
        assert got.get("py") == want["py"], (name, got, want)
    if "grads" in want and case.grad_parity:
        assert "grads" in got, (name, got)
        for g, w in zip(got["grads"], want["grads"]):
            assert (g is None) == (w is None), name
            if w is not None:
                close(g, w, max(case.rtol, 1e-9), name)


def input_sets(case):
    """The case's inputs contiguous and, where it asks, every other element of a wider tensor."""
    sets = [inputs(rstorch, case)]
    if case.nc and any(len(s) > 0 and s[-1] > 1 for s in case.shapes):
        xs = inputs(rstorch, case, contiguous=False)
        assert not all(x.is_contiguous() for x in xs), case.name
        sets.append(xs)
    return sets


def gradcheckable(cases):
    """The names of the cases with differentiable inputs (and a result in PyTorch)."""
    return [name for name, case in cases.items() if case.grad and case.shapes and "error" not in RECORDED.get(name, {})]
