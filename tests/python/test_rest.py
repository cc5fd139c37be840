"""Small, common API pieces replayed against PyTorch's recorded values
(tests/fixtures/rest.json, made by tests/record_rest.py): cyclic LR schedulers."""
import json
import math
import pathlib
import pickle

import pytest

import rstorch as torch
from rstorch.optim import lr_scheduler as sched

FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "rest.json").read_text())
SCHEDULES = FIXTURE["schedules"]

# The same callables as in tests/record_rest.py.
SCALE_FNS = {"half_sine": lambda x: 0.5 * (1 + math.sin(x))}


def make_optimizer(kind):
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    lrs = SCHEDULES["group_lrs"]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, lrs)]
    if kind == "adam":
        return torch.optim.Adam(groups, lr=lrs[0])
    if kind == "adagrad":
        return torch.optim.Adagrad(groups, lr=lrs[0])
    return torch.optim.SGD(groups, lr=lrs[0], momentum=0.9)


def resolve(value):
    if isinstance(value, str) and value.startswith("@"):
        return SCALE_FNS[value[1:]]
    return value


def snapshot(opt, scheduler):
    lrs = [float(x) for x in scheduler.get_last_lr()]
    assert [float(g["lr"]) for g in opt.param_groups] == lrs
    row = {"lr": lrs}
    if "betas" in opt.defaults:
        row["momentum"] = [float(g["betas"][0]) for g in opt.param_groups]
    elif "momentum" in opt.defaults:
        row["momentum"] = [float(g["momentum"]) for g in opt.param_groups]
    return row


def build(spec):
    opt = make_optimizer(spec.get("optimizer", "sgd"))
    kwargs = {k: resolve(v) for k, v in spec["kwargs"].items()}
    return opt, getattr(sched, spec["scheduler"])(opt, **kwargs)


def assert_rows_close(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.keys() == e.keys()
        for key in e:
            assert g[key] == pytest.approx(e[key], rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("name", sorted(SCHEDULES["cases"]))
def test_cyclic_schedule_matches_pytorch(name):
    spec = SCHEDULES["cases"][name]
    opt, scheduler = build(spec)
    rows = [snapshot(opt, scheduler)]
    for epoch in spec.get("epochs") or [None] * SCHEDULES["steps"]:
        opt.step()
        scheduler.step(epoch)
        rows.append(snapshot(opt, scheduler) | {"last_epoch": scheduler.last_epoch})
    assert_rows_close(rows, spec["rows"])


@pytest.mark.parametrize("name", ["cawr_t3_mult2", "cyclic_triangular2", "cyclic_adam"])
def test_cyclic_schedule_resumes_from_state_dict(name):
    spec = SCHEDULES["cases"][name]
    opt, scheduler = build(spec)
    rows = [snapshot(opt, scheduler)]
    for i in range(SCHEDULES["steps"]):
        if i == 7:
            saved = pickle.loads(pickle.dumps(scheduler.state_dict()))
            opt_state = opt.state_dict()
            opt, scheduler = build(spec)
            opt.load_state_dict(opt_state)
            scheduler.load_state_dict(saved)
        opt.step()
        scheduler.step()
        rows.append(snapshot(opt, scheduler) | {"last_epoch": scheduler.last_epoch})
    assert_rows_close(rows, spec["rows"])


@pytest.mark.parametrize("name", sorted(SCHEDULES["errors"]))
def test_cyclic_schedule_errors(name):
    case = SCHEDULES["errors"][name]
    opt = make_optimizer(case["optimizer"])
    with pytest.raises(Exception) as info:  # noqa: PT011 - type checked by name below
        getattr(sched, case["scheduler"])(opt, **case["kwargs"])
    assert type(info.value).__name__ == case["type"]
    assert str(info.value) == case["message"]


def test_cawr_rejects_negative_epoch():
    scheduler = sched.CosineAnnealingWarmRestarts(make_optimizer("sgd"), T_0=3)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        scheduler.step(-1)


def test_cyclic_custom_scale_fn_object_state_is_saved():
    class Scale:
        def __init__(self):
            self.k = 2.0

        def __call__(self, x):
            return 1.0 / self.k

    fn = Scale()
    scheduler = sched.CyclicLR(make_optimizer("sgd"), 0.01, 0.1, scale_fn=fn)
    fn.k = 4.0
    state = scheduler.state_dict()
    assert state["_scale_fn_custom"] == {"k": 4.0} and "_scale_fn_ref" not in state
    other_fn = Scale()
    other = sched.CyclicLR(make_optimizer("sgd"), 0.01, 0.1, scale_fn=other_fn)
    other.load_state_dict(state)
    assert other._scale_fn_custom is other_fn and other_fn.k == 4.0
