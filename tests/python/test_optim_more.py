"""Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop against PyTorch (tests/record_optimizers.py):
parameters and state after every step within 1e-12 relative in float64, state_dict round trips,
default param groups and argument errors."""
import json
import pathlib

import numpy as np
import pytest

import rstorch
from rstorch import optim

FIXTURE = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "optimizers.json").read_text())
CASES = FIXTURE["cases"]
RELOAD_AFTER = 5


def kwargs_for_rstorch(kwargs):
    out = dict(kwargs)
    for key in ("betas", "etas", "step_sizes"):
        if key in out:
            out[key] = tuple(out[key])
    if out.get("lr") == "@lr2":
        out["lr"] = rstorch.tensor([0.1, 0.2])
    return out


def as_json(value):
    return [as_json(v) for v in value] if isinstance(value, (tuple, list)) else value


def params_like_fixture():
    w = rstorch.nn.Parameter(rstorch.tensor(FIXTURE["w0"], dtype=rstorch.float64))
    b = rstorch.nn.Parameter(rstorch.tensor(FIXTURE["b0"], dtype=rstorch.float64))
    return w, b


def build(cls, kwargs, w, b):
    default_lr = cls.__init__.__defaults__[0]
    groups = [{"params": [w]}, {"params": [b], "lr": kwargs.get("lr", default_lr) * 0.5}]
    return cls(groups, **kwargs_for_rstorch(kwargs))


def assert_close(actual, expected, what):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=1e-12, atol=0, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectory_and_state_match_pytorch(name):
    case = CASES[name]
    cls = getattr(optim, case["optimizer"])
    w, b = params_like_fixture()
    opt = build(cls, case["kwargs"], w, b)
    for i, expected in enumerate(case["steps"]):
        if i == RELOAD_AFTER:
            saved = opt.state_dict()
            opt = build(cls, case["kwargs"], w, b)
            opt.load_state_dict(saved)
        for p, g in zip((w, b), expected["grads"]):
            p.grad = rstorch.tensor(g, dtype=rstorch.float64).reshape(p.shape)
        opt.step()
        for j, p in enumerate((w, b)):
            assert_close(p.detach().reshape(-1).tolist(), expected["params"][j], f"{name}: param {j}, step {i}")
            state = opt.state[p]
            assert list(state) == list(expected["state"][j]), f"{name}: state keys of param {j}"
            for key, want in expected["state"][j].items():
                value = state[key]
                assert str(value.dtype).removeprefix("rstorch.") == want["dtype"], f"{name}: {key} dtype, step {i}"
                assert list(value.shape) == want["shape"]
                assert_close(value.reshape(-1).tolist(), want["values"], f"{name}: state {key} of {j}, step {i}")
    groups = [{k: as_json(v) for k, v in g.items() if k != "params"} for g in opt.state_dict()["param_groups"]]
    assert groups == case["param_groups"]


@pytest.mark.parametrize("cls_name", sorted(FIXTURE["defaults"]))
def test_default_param_group_matches_pytorch(cls_name):
    opt = getattr(optim, cls_name)([rstorch.nn.Parameter(rstorch.zeros(2))])
    group = {k: as_json(v) for k, v in opt.param_groups[0].items() if k != "params"}
    assert group == FIXTURE["defaults"][cls_name]
    assert list(group) == list(FIXTURE["defaults"][cls_name])


@pytest.mark.parametrize("error", FIXTURE["errors"], ids=lambda e: f"{e['optimizer']}-{sorted(e['kwargs'])[0]}")
def test_argument_errors_match_pytorch(error):
    cls = getattr(optim, error["optimizer"])
    with pytest.raises(getattr(__builtins__, error["type"], None) or ValueError) as info:
        cls([rstorch.nn.Parameter(rstorch.zeros(2))], **kwargs_for_rstorch(error["kwargs"]))
    assert type(info.value).__name__ == error["type"]
    assert str(info.value) == error["message"]
