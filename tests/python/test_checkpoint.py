"""rstorch.utils.checkpoint (issue 22 item 2): PyTorch 2.15's warnings and errors (recorded by
tests/record_checkpoint.py) and the values and gradients of a plain call; rstorch.onnx importable."""
import json
import pathlib
import sys

import numpy as np
import pytest

import rstorch
from rstorch import nn
from rstorch.utils.checkpoint import checkpoint, checkpoint_sequential

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import checkpoint_cases  # noqa: E402 (tests/ is put on the path just above)

REF = json.loads((TESTS / "fixtures" / "checkpoint.json").read_text())
CASES = checkpoint_cases.cases(rstorch, checkpoint, checkpoint_sequential)


def _sin(a):
    return a.sin()


def _ctx():
    return rstorch.no_grad(), rstorch.no_grad()


@pytest.mark.parametrize("name", sorted(CASES))
def test_messages_match_pytorch(name):
    assert checkpoint_cases.capture(CASES[name]) == REF[name]


def _model():
    rstorch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)).double()


def _grads(run):
    model = _model()
    inp = rstorch.randn(5, 4, dtype=rstorch.float64, requires_grad=True)
    rstorch.manual_seed(7)
    out = run(model, inp)
    out.pow(2).sum().backward()
    return [out.detach().numpy(), inp.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_values_and_gradients_match_plain_call(use_reentrant):
    plain = _grads(lambda m, i: m(i))
    ck = _grads(lambda m, i: checkpoint(m, i, use_reentrant=use_reentrant))
    seq = _grads(lambda m, i: checkpoint_sequential(m, 3, i, use_reentrant=use_reentrant))
    for a, b, c in zip(plain, ck, seq):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_kwargs_context_fn_and_decorator():
    a = rstorch.randn(3, dtype=rstorch.float64, requires_grad=True)
    out = checkpoint(lambda t, k=1.0: t * k, a, k=3.0, use_reentrant=False)
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 3.0))
    assert not checkpoint(_sin, a, use_reentrant=False, context_fn=_ctx).requires_grad
    wrapped = checkpoint(None, use_reentrant=False)(_sin)
    np.testing.assert_array_equal(wrapped(a).detach().numpy(), a.sin().detach().numpy())


def test_gradcheck_through_checkpoint():
    a = rstorch.randn(4, dtype=rstorch.float64, requires_grad=True)
    assert rstorch.autograd.gradcheck(lambda t: checkpoint(lambda u: u.sin() * u, t, use_reentrant=True), (a,))


def test_onnx_importable():
    import rstorch.onnx
    assert rstorch.onnx.is_in_onnx_export() is False
    # export works now (tests/python/test_onnx_export.py); without the onnx package it says what is missing.
    import importlib.util
    import io
    buf = io.BytesIO()
    if importlib.util.find_spec("onnx") is None:
        with pytest.raises(ModuleNotFoundError, match="onnx"):
            rstorch.onnx.export(nn.Linear(2, 2), (rstorch.randn(1, 2),), buf)
    else:
        rstorch.onnx.export(nn.Linear(2, 2), (rstorch.randn(1, 2),), buf)
        assert buf.getvalue()
