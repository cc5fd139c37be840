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


# The optimizer reads a non-leaf's .grad, which warns as in PyTorch.
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("name", sorted(FIXTURE["differentiable"]))
def test_differentiable_steps_backpropagate_as_pytorch(name):
    case = FIXTURE["differentiable"][name]
    leaf = rstorch.tensor(FIXTURE["w0"], dtype=rstorch.float64, requires_grad=True)
    p = leaf.clone()
    opt = getattr(optim, case["optimizer"])([p], differentiable=True, **kwargs_for_rstorch(case["kwargs"]))
    for g in case["grads"]:
        p.grad = rstorch.tensor(g, dtype=rstorch.float64)
        opt.step()
    assert p.grad_fn is not None
    weights = rstorch.linspace(-1.0, 1.0, p.numel(), dtype=rstorch.float64).reshape(p.shape)
    (p * weights).sum().backward()
    assert_close(p.detach().reshape(-1).tolist(), case["params"], f"{name}: parameters")
    assert_close(leaf.grad.reshape(-1).tolist(), case["leaf_grad"], f"{name}: gradient through the steps")


# LBFGS takes neither foreach, capturable nor differentiable, as in PyTorch.
ELEMENTWISE = sorted(set(FIXTURE["defaults"]) - {"LBFGS"})


@pytest.mark.parametrize("cls_name", ELEMENTWISE)
def test_differentiable_false_leaves_no_graph_and_leaf_params_refuse_differentiable(cls_name):
    cls = getattr(optim, cls_name)
    p = rstorch.nn.Parameter(rstorch.ones(3, dtype=rstorch.float64))
    p.grad = rstorch.full((3,), 0.5, dtype=rstorch.float64)
    opt = cls([p], foreach=True)
    opt.step()
    assert p.grad_fn is None and p.is_leaf and all(not v.requires_grad for v in opt.state[p].values())
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        cls([p], differentiable=True).step()


@pytest.mark.parametrize("cls_name", ELEMENTWISE)
def test_capturable_on_cpu_is_refused_at_step_as_in_pytorch(cls_name):
    p = rstorch.nn.Parameter(rstorch.ones(3))
    p.grad = rstorch.ones(3)
    opt = getattr(optim, cls_name)([p], capturable=True)
    with pytest.raises(AssertionError, match="If capturable=True, .* must be on supported devices"):
        opt.step()


def test_tensor_lr_and_closure():
    w, b = params_like_fixture()
    case = CASES["nadam"]
    opt = optim.NAdam([w, b], lr=rstorch.tensor(0.05))
    x = rstorch.tensor(FIXTURE["x"], dtype=rstorch.float64)
    y = rstorch.tensor(FIXTURE["y"], dtype=rstorch.float64)

    def closure():
        opt.zero_grad()
        loss = (rstorch.tanh(x @ w.T + b) - y).pow(2).mean()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() > 0
    # The recorded float lr's update, up to the float32 rounding of the tensor lr (as in PyTorch).
    np.testing.assert_allclose(w.detach().reshape(-1).tolist(), case["steps"][0]["params"][0], rtol=1e-7)


def lbfgs_state_json(state):
    out = {}
    for key, value in state.items():
        if isinstance(value, list):
            value = {"length": len(value)}
        elif isinstance(value, rstorch.Tensor):
            value = {"dtype": str(value.dtype).removeprefix("rstorch."), "values": value.reshape(-1).tolist()}
        out[key] = value
    return out


# The closure's gradients are rstorch's own here (not replayed), so the trajectories differ from
# PyTorch's by the last bits of tanh/matmul/mean and their backward, carried through tens of
# quasi-Newton iterations: LBFGS_RTOL relative to each vector's largest element bounds that (an
# element that nearly cancels carries the others' absolute error); the decisions (evaluation
# counts, history lengths, which branch set t) must be identical.
LBFGS_RTOL = 1e-9


def assert_close_to_scale(actual, expected, what):
    scale = max(abs(v) for v in expected)
    np.testing.assert_allclose(actual, expected, rtol=LBFGS_RTOL, atol=LBFGS_RTOL * scale, err_msg=what)


@pytest.mark.parametrize("name", sorted(FIXTURE["lbfgs"]))
def test_lbfgs_matches_pytorch(name):
    case = FIXTURE["lbfgs"][name]
    kwargs = case["kwargs"]
    w, b = params_like_fixture()
    x = rstorch.tensor(FIXTURE["x"], dtype=rstorch.float64)
    y = rstorch.tensor(FIXTURE["y"], dtype=rstorch.float64)
    sign = -1.0 if kwargs.get("maximize") else 1.0
    opt = optim.LBFGS([w, b], **kwargs)

    def closure():
        opt.zero_grad()
        loss = sign * (rstorch.tanh(x @ w.T + b) - y).pow(2).mean()
        loss.backward()
        return loss

    for i, expected in enumerate(case["steps"]):
        if i == 2:
            saved = opt.state_dict()
            opt = optim.LBFGS([w, b], **kwargs)
            opt.load_state_dict(saved)
        loss = opt.step(closure)
        np.testing.assert_allclose(loss.item(), expected["loss"], rtol=LBFGS_RTOL, err_msg=f"{name}: loss, step {i}")
        for j, p in enumerate((w, b)):
            assert_close_to_scale(p.detach().reshape(-1).tolist(), expected["params"][j], f"{name}: param {j}, step {i}")
        state = lbfgs_state_json(opt.state[w])
        assert list(state) == list(expected["state"]), f"{name}: state keys, step {i}"
        for key, want in expected["state"].items():
            got = state[key]
            if isinstance(want, dict) and "values" in want:
                assert got["dtype"] == want["dtype"], f"{name}: {key} dtype, step {i}"
                assert_close_to_scale(got["values"], want["values"], f"{name}: {key}, step {i}")
            elif isinstance(want, float):
                np.testing.assert_allclose(got, want, rtol=LBFGS_RTOL, err_msg=f"{name}: {key}, step {i}")
            else:
                assert got == want and type(got) is type(want), f"{name}: {key}, step {i}"
    group = {k: as_json(v) for k, v in opt.param_groups[0].items() if k != "params"}
    assert group == case["param_group"]


def test_lbfgs_rejects_groups_and_other_line_searches():
    a, b = rstorch.nn.Parameter(rstorch.ones(2)), rstorch.nn.Parameter(rstorch.ones(2))
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = optim.LBFGS([a], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
    # A converged start returns at once: the gradient is already below tolerance_grad.
    c = rstorch.nn.Parameter(rstorch.zeros(2))
    opt = optim.LBFGS([c])
    assert opt.step(lambda: (c * c).sum().backward() or (c * c).sum()).item() == 0.0
    assert opt.state[c] == {"func_evals": 1, "n_iter": 0}
