"""Whole-model parity with PyTorch: six models start from PyTorch's recorded weights and take
three momentum-SGD steps on recorded batches; losses, outputs, parameters and BatchNorm running
statistics must match PyTorch's after every step."""
import os
import warnings

import numpy as np
import pytest

import rstorch
from _models import FULL_LIMIT, LR, MOMENTUM, PREFIX, SPECS, STEPS, define, loss_fn

_DATA = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "models.npz"))
MODELS = define(rstorch)
# float32 throughout; three steps of SGD compound rounding differences only slightly.
RTOL, ATOL = 1e-4, 1e-5


def _t(a):
    return rstorch.from_numpy(np.ascontiguousarray(a))


def _entries(prefix):
    return {k[len(prefix):]: _DATA[k] for k in _DATA.files if k.startswith(prefix)}


def _sgd_step(params, buffers):
    """torch.optim.SGD(lr, momentum) without dampening or Nesterov, written out: rstorch.optim
    does not exist yet."""
    with rstorch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            if id(p) not in buffers:
                buffers[id(p)] = p.grad.clone()
            else:
                buffers[id(p)].mul_(MOMENTUM).add_(p.grad)
            p.sub_(buffers[id(p)] * LR)


def _check_state(state, expected, step):
    names = {k.split("@")[0] for k in expected}
    assert names == set(state), f"step {step}: state_dict keys differ"
    for k, v in expected.items():
        name, _, part = k.partition("@")
        actual = state[name].detach().numpy()
        msg = f"step {step}: {name}"
        if part == "":
            np.testing.assert_allclose(actual, v, rtol=RTOL, atol=ATOL, err_msg=msg)
        elif part == "prefix":
            np.testing.assert_allclose(actual.ravel()[:PREFIX], v, rtol=RTOL, atol=ATOL, err_msg=msg)
        else:
            flat = actual.ravel().astype(np.float64)
            np.testing.assert_allclose([flat.sum(), (flat * flat).sum()], v, rtol=RTOL, atol=1e-3, err_msg=msg)


def _run_steps(name, model):
    spec = SPECS[name]
    params = list(model.parameters())
    buffers = {}
    for step in range(STEPS):
        x = _t(_DATA[f"{name}/step{step}/input"])
        y = _t(_DATA[f"{name}/step{step}/target"])
        model.zero_grad()
        if name == "dynamic":
            out = model(x, int(_DATA[f"{name}/step{step}/repeats"]))
        else:
            out = model(x)
        loss = loss_fn(rstorch, spec["loss"], out, y)
        loss.backward()
        _sgd_step(params, buffers)
        np.testing.assert_allclose(loss.item(), _DATA[f"{name}/step{step}/loss"], rtol=RTOL, atol=ATOL,
                                   err_msg=f"loss at step {step}")
        np.testing.assert_allclose(out.detach().numpy(), _DATA[f"{name}/step{step}/output"], rtol=RTOL,
                                   atol=ATOL, err_msg=f"output at step {step}")
        _check_state(model.state_dict(), _entries(f"{name}/step{step}/state/"), step)


@pytest.mark.parametrize("name", list(SPECS))
def test_three_sgd_steps_match_pytorch(name):
    model = MODELS[name]()
    model.train(SPECS[name]["train"])
    result = model.load_state_dict({k: _t(v) for k, v in _entries(f"{name}/init/").items()})
    assert result.missing_keys == [] and result.unexpected_keys == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the MNIST net's implicit log_softmax dim
        _run_steps(name, model)


def test_fixture_records_full_final_parameters():
    # The strongest check is on the last step: every tensor must be there in full.
    for name in SPECS:
        final = _entries(f"{name}/step{STEPS - 1}/state/")
        assert final and all("@" not in k for k in final)
        assert any(v.size > FULL_LIMIT for v in final.values()) or name not in ("mnist", "lenet")


def test_mnist_net_trains_with_dropout():
    rstorch.manual_seed(0)
    model = MODELS["mnist"]()
    model.train()
    x = _t(_DATA["mnist/step0/input"])
    y = _t(_DATA["mnist/step0/target"])
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        out = model(x)
    assert out.shape == (4, 10)
    np.testing.assert_allclose(out.exp().sum(1).detach().numpy(), np.ones(4), rtol=1e-5)
    loss = rstorch.nn.functional.nll_loss(out, y)
    loss.backward()
    assert np.isfinite(loss.item())
    assert all(p.grad is not None for p in model.parameters())
    # Dropout is live in training: two forwards differ, while eval forwards agree.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not np.allclose(model(x).detach().numpy(), model(x).detach().numpy())
        model.eval()
        np.testing.assert_array_equal(model(x).detach().numpy(), model(x).detach().numpy())


def test_dynamic_net_draws_repeat_counts_itself():
    import random
    model = MODELS["dynamic"]()
    x = _t(_DATA["dynamic/step0/input"])
    random.seed(3)
    outs = {tuple(model(x).detach().numpy().ravel().round(6)) for _ in range(20)}
    assert 2 <= len(outs) <= 4  # one output per repeat count drawn
