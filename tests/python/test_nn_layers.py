"""rstorch.nn layers: forward, backward and running-state parity with recorded PyTorch values,
reprs and state_dict keys as PyTorch prints them, default initialisation, argument errors,
and gradcheck of the recurrent and attention layers in float64."""
import math
import os
import warnings

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F
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
