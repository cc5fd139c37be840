"""Learning-rate schedulers: every sequence equals the one PyTorch recorded
(tests/fixtures/lr_schedules.json, made by tests/record_lr_schedules.py), state_dict resumes
mid-way, and PyTorch's warnings and errors."""
import json
import math
import pathlib
import warnings

import pytest

import rstorch as torch
from rstorch.optim import lr_scheduler as sched

from _simple_optim import AdamLike, SimpleSGD

FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" /
                      "lr_schedules.json").read_text())

# The same callables as in tests/record_lr_schedules.py.
LAMBDAS = {
    "decay95": lambda e: 0.95 ** e,
    "inverse": lambda e: 1.0 / (e + 1),
    "wave": lambda e: 1.0 + 0.5 * math.sin(e),
    "mult98": lambda e: 0.98,
    "mult_alt": lambda e: 0.9 if e % 2 else 1.05,
}


def resolve(value):
    if isinstance(value, str) and value.startswith("@"):
        return LAMBDAS[value[1:]]
    if isinstance(value, list):
        return [resolve(v) for v in value]
    return value


def make_optimizer(kind):
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, FIXTURE["group_lrs"])]
    if kind == "adam":
        return AdamLike(groups, lr=FIXTURE["group_lrs"][0])
    return SimpleSGD(groups, lr=FIXTURE["group_lrs"][0], momentum=0.9)


def make_scheduler(opt, spec):
    kwargs = {}
    for key, value in spec["kwargs"].items():
        if key == "schedulers":
            value = [make_scheduler(opt, inner) for inner in value]
        kwargs[key] = resolve(value)
    cls = getattr(sched, spec["scheduler"])
    if spec["scheduler"] == "ChainedScheduler":
        return cls(kwargs.pop("schedulers"), **kwargs)
    return cls(opt, **kwargs)


def snapshot(opt, scheduler):
    lrs = [float(x) for x in scheduler.get_last_lr()]
    assert [float(g["lr"]) for g in opt.param_groups] == lrs
    row = {"lr": lrs}
    if "betas" in opt.defaults:
        row["momentum"] = [float(g["betas"][0]) for g in opt.param_groups]
    elif "momentum" in opt.defaults:
        row["momentum"] = [float(g["momentum"]) for g in opt.param_groups]
    return row


def run(spec, resume_at=None):
    opt = make_optimizer(spec.get("optimizer", "sgd"))
    scheduler = make_scheduler(opt, spec)
    rows = [snapshot(opt, scheduler)]
    metrics, epochs = spec.get("metrics"), spec.get("epochs")
    n = len(epochs) if epochs else len(metrics) if metrics else FIXTURE["steps"]
    for i in range(n):
        if resume_at == i:
            saved_sched, saved_opt = scheduler.state_dict(), opt.state_dict()
            opt = make_optimizer(spec.get("optimizer", "sgd"))
            scheduler = make_scheduler(opt, spec)
            opt.load_state_dict(saved_opt)
            scheduler.load_state_dict(saved_sched)
        opt.step()
        if metrics:
            scheduler.step(metrics[i])
        elif epochs:
            scheduler.step(epochs[i])
        else:
            scheduler.step()
        rows.append(snapshot(opt, scheduler))
    return rows


def assert_rows_equal(got, expected):
    assert len(got) == len(expected)
    for step, (g, e) in enumerate(zip(got, expected)):
        assert g.keys() == e.keys(), step
        for key in e:
            assert g[key] == pytest.approx(e[key], rel=1e-12, abs=0), (step, key)


CASES = sorted(FIXTURE["cases"])


def test_fixture_covers_every_scheduler():
    used = {c["scheduler"] for c in FIXTURE["cases"].values()}
    assert used >= {"LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
                    "LinearLR", "ExponentialLR", "CosineAnnealingLR", "OneCycleLR",
                    "ReduceLROnPlateau", "SequentialLR", "ChainedScheduler"}


@pytest.mark.parametrize("name", CASES)
def test_sequence_matches_pytorch(name):
    spec = FIXTURE["cases"][name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = run(spec)
    assert_rows_equal(rows, spec["rows"])


@pytest.mark.parametrize("name", [n for n in CASES if "epochs" not in FIXTURE["cases"][n]])
def test_state_dict_round_trip_mid_way(name):
    spec = FIXTURE["cases"][name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = run(spec, resume_at=12)
    assert_rows_equal(rows, spec["rows"])


def fresh():
    return SimpleSGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)


def test_state_dict_excludes_the_optimizer_and_saves_callable_objects():
    class Halving:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor ** epoch

    opt = fresh()
    fn = Halving()
    s = sched.LambdaLR(opt, [fn])
    state = s.state_dict()
    assert "optimizer" not in state and state["lr_lambdas"] == [{"factor": 0.5}]
    fn.factor = 0.1
    s.load_state_dict(state)
    assert fn.factor == 0.5
    assert sched.LambdaLR(fresh(), lambda e: 1.0).state_dict()["lr_lambdas"] == [None]
    s = sched.SequentialLR(opt, [sched.ConstantLR(opt), sched.StepLR(opt, 2)], milestones=[3])
    assert [set(d) >= {"last_epoch", "base_lrs"} for d in s.state_dict()["_schedulers"]] == [True] * 2


def test_initial_lr_and_base_lrs():
    opt = fresh()
    s = sched.StepLR(opt, 3)
    assert opt.param_groups[0]["initial_lr"] == 1.0 and s.base_lrs == [1.0]
    assert s.last_epoch == 0 and s.get_last_lr() == [1.0]
    opt2 = fresh()
    with pytest.raises(KeyError, match="initial_lr"):
        sched.StepLR(opt2, 3, last_epoch=5)


def test_tensor_lr_is_updated_in_place():
    lr = torch.tensor(1.0, dtype=torch.float64)
    opt = SimpleSGD([torch.zeros(1, requires_grad=True)], lr=lr)
    s = sched.ExponentialLR(opt, gamma=0.5)
    opt.step()
    s.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == 0.5
    assert s.get_last_lr()[0] is not lr and s.get_last_lr()[0].item() == 0.5


def test_order_warnings():
    opt = fresh()
    s = sched.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    opt = fresh()
    s = sched.StepLR(opt, 2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    with pytest.warns(UserWarning, match="epoch parameter"):
        s.step(4)


def test_constructor_errors():
    opt = fresh()
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        sched.StepLR([], 2)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        sched.LambdaLR(opt, [lambda e: 1, lambda e: 1])
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got int"):
        sched.MultiplicativeLR(opt, 3)
    with pytest.raises(ValueError, match="between 0 and 1"):
        sched.ConstantLR(opt, factor=2.0)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        sched.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        sched.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown"):
        sched.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        sched.ReduceLROnPlateau(opt, min_lr=[0, 0])
    with pytest.raises(ValueError, match="You must define either total_steps"):
        sched.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start"):
        sched.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        sched.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match="max_lr must have the same length"):
        sched.OneCycleLR(opt, max_lr=[1.0, 2.0], total_steps=10)
    plain = SimpleSGD([torch.zeros(1, requires_grad=True)])
    del plain.defaults["momentum"]
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        sched.OneCycleLR(plain, max_lr=1.0, total_steps=10)
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        sched.ChainedScheduler([sched.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        sched.SequentialLR(opt, [], [])
    with pytest.raises(ValueError, match="number of milestones to be equal to 2"):
        sched.SequentialLR(opt, [sched.StepLR(opt, 2)], milestones=[1, 2])
    other = fresh()
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        sched.SequentialLR(opt, [sched.StepLR(opt, 2), sched.StepLR(other, 2)], [3])


def test_onecycle_refuses_to_step_past_the_end():
    opt = fresh()
    s = sched.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        opt.step()
        s.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total "
                                         "steps is 3"):
        s.step()


def test_plateau_cooldown_and_new_groups():
    opt = fresh()
    s = sched.ReduceLROnPlateau(opt, patience=0, cooldown=2, factor=0.5)
    lrs = []
    for m in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        s.step(m)
        lrs.append(s.get_last_lr()[0])
    # Worse at step 2 -> halve, then two cooldown steps ignore bad epochs, then halve again.
    assert lrs == [1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
    opt.add_param_group({"params": [torch.zeros(1, requires_grad=True)], "lr": 1.0})
    s.step(1.0)
    s.step(1.0)
    assert [g["lr"] for g in opt.param_groups] == [0.125, 0.5]
