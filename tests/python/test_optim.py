"""Optimizers against trajectories recorded from PyTorch (tests/record_optim_fixtures.py),
state_dict round trips included, plus their argument checks and state layout."""
import json
import pathlib

import numpy as np
import pytest

import rstorch
from rstorch import optim

FIXTURE = np.load(pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "optim.npz")
CASES = json.loads(str(FIXTURE["cases"]))
STEPS, RELOAD_AFTER = 6, 3


@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectory_matches_pytorch(name):
    cls_name, kwargs = CASES[name]
    if "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    cls = getattr(optim, cls_name)
    params = [rstorch.nn.Parameter(rstorch.from_numpy(FIXTURE[f"{name}/init{i}"].copy())) for i in range(3)]
    groups = [{"params": params[:2]}, {"params": params[2:], "lr": kwargs.get("lr", 0.01) * 0.5}]
    opt = cls(groups, **kwargs)
    for step in range(STEPS):
        if step == RELOAD_AFTER:
            saved = opt.state_dict()
            opt = cls([{"params": params[:2]}, {"params": params[2:]}], **kwargs)
            opt.load_state_dict(saved)
            assert opt.param_groups[1]["lr"] == kwargs.get("lr", 0.01) * 0.5
        for i, p in enumerate(params):
            p.grad = rstorch.from_numpy(FIXTURE[f"{name}/grad{step}_{i}"].copy())
        opt.step()
        for i, p in enumerate(params):
            np.testing.assert_allclose(p.detach().numpy(), FIXTURE[f"{name}/step{step}_{i}"], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name}: parameter {i} after step {step}")


def test_state_layout_matches_pytorch():
    p = rstorch.nn.Parameter(rstorch.ones(3))
    p.grad = rstorch.ones(3)
    expected = {
        optim.SGD([p], lr=0.1, momentum=0.9): ["momentum_buffer"],
        optim.Adam([p], amsgrad=True): ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"],
        optim.RMSprop([p], momentum=0.1, centered=True): ["step", "square_avg", "momentum_buffer", "grad_avg"],
        optim.Adagrad([p]): ["step", "sum"],
    }
    for opt, keys in expected.items():
        opt.step()
        assert list(opt.state[p]) == keys
    assert optim.SGD([p], lr=0.1).state_dict()["state"] == {}
    assert optim.AdamW([p]).defaults["weight_decay"] == 0.01
    assert optim.AdamW([p]).defaults["decoupled_weight_decay"] is True


def test_parameters_without_grad_are_skipped_and_closure_is_called():
    a, b = rstorch.nn.Parameter(rstorch.ones(2)), rstorch.nn.Parameter(rstorch.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (a * 3).sum()
        loss.backward()
        calls.append(loss.item())
        return loss

    assert opt.step(closure).item() == 6.0
    assert calls == [6.0]
    assert b.tolist() == [1.0, 1.0] and b not in opt.state
    assert a.tolist()[0] < 1.0


def test_float64_parameters():
    p = rstorch.nn.Parameter(rstorch.ones(2, dtype=rstorch.float64))
    p.grad = rstorch.full((2,), 0.5, dtype=rstorch.float64)
    optim.SGD([p], lr=0.1, momentum=0.9).step()
    assert p.dtype == rstorch.float64 and p.tolist() == [0.95, 0.95]


def test_non_contiguous_gradient():
    p = rstorch.nn.Parameter(rstorch.zeros(2, 3))
    p.grad = rstorch.arange(6.0).reshape(3, 2).t()
    optim.SGD([p], lr=1.0).step()
    assert p.tolist() == [[-0.0, -2.0, -4.0], [-1.0, -3.0, -5.0]]


@pytest.mark.parametrize("make, message", [
    (lambda p: optim.SGD(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.SGD(p, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD(p, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.Adam(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (lambda p: optim.AdamW(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.RMSprop(p, alpha=-1), "Invalid alpha value: -1"),
    (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
])
def test_argument_checks(make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make([rstorch.nn.Parameter(rstorch.ones(1))])


def test_a_mnist_like_training_run_learns():
    rstorch.manual_seed(0)
    x = rstorch.randn(64, 10)
    y = (x[:, 0] > 0).long()
    model = rstorch.nn.Sequential(rstorch.nn.Linear(10, 16), rstorch.nn.ReLU(), rstorch.nn.Linear(16, 2))
    for cls, kw in [(optim.SGD, dict(lr=0.5, momentum=0.9)), (optim.Adam, dict(lr=0.05))]:
        for layer in (model[0], model[2]):
            layer.reset_parameters()
        opt = cls(model.parameters(), **kw)
        for _ in range(60):
            opt.zero_grad()
            loss = rstorch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        assert loss.item() < 0.1, cls.__name__
