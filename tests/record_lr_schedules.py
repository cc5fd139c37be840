"""Records PyTorch's learning-rate (and momentum) sequences into fixtures/lr_schedules.json.

Run with a real PyTorch:  /work/torchenv/bin/python tests/record_lr_schedules.py
tests/python/test_lr_scheduler.py replays every case on rstorch and compares. A case is
{scheduler, kwargs, optimizer ("sgd" | "adam"), steps} with callables named "@name" in kwargs
(both files define the same LAMBDAS) and nested schedulers as {"scheduler": ..., "kwargs": ...}.
"""
import json
import math
import pathlib
import warnings

import torch
from torch.optim import lr_scheduler as sched

LAMBDAS = {
    "decay95": lambda e: 0.95 ** e,
    "inverse": lambda e: 1.0 / (e + 1),
    "wave": lambda e: 1.0 + 0.5 * math.sin(e),
    "mult98": lambda e: 0.98,
    "mult_alt": lambda e: 0.9 if e % 2 else 1.05,
}

STEPS = 30
GROUP_LRS = [0.1, 0.05]

# Metric sequences for ReduceLROnPlateau: improvements, plateaus and noise.
METRICS_MIN = [1.0, 0.9, 0.85, 0.85, 0.86, 0.84, 0.84, 0.84, 0.84, 0.7, 0.7, 0.7, 0.7, 0.7,
               0.69995, 0.7, 0.6, 0.6, 0.61, 0.62, 0.63, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.4,
               0.4]
METRICS_MAX = [0.1, 0.2, 0.25, 0.3, 0.3, 0.32, 0.31, 0.5, 0.55, 0.58, 0.6, 0.6, 0.6, 0.61, 0.9,
               0.9, 0.9, 0.95, 0.92, 0.93, 1.1, 1.1, 1.12, 1.13, 1.14, 1.3, 1.3, 1.3, 1.3, 1.3]

CASES = {
    "lambda": {"scheduler": "LambdaLR", "kwargs": {"lr_lambda": "@decay95"}},
    "lambda_per_group": {"scheduler": "LambdaLR", "kwargs": {"lr_lambda": ["@inverse", "@wave"]}},
    "multiplicative": {"scheduler": "MultiplicativeLR", "kwargs": {"lr_lambda": "@mult98"}},
    "multiplicative_alt": {"scheduler": "MultiplicativeLR", "kwargs": {"lr_lambda": "@mult_alt"}},
    "step": {"scheduler": "StepLR", "kwargs": {"step_size": 7, "gamma": 0.5}},
    "step_every": {"scheduler": "StepLR", "kwargs": {"step_size": 1, "gamma": 0.9}},
    "multistep": {"scheduler": "MultiStepLR", "kwargs": {"milestones": [3, 8, 8, 20],
                                                          "gamma": 0.3}},
    "constant": {"scheduler": "ConstantLR", "kwargs": {"factor": 0.25, "total_iters": 6}},
    "constant_default": {"scheduler": "ConstantLR", "kwargs": {}},
    "linear": {"scheduler": "LinearLR", "kwargs": {"start_factor": 0.2, "end_factor": 0.9,
                                                    "total_iters": 12}},
    "linear_decay": {"scheduler": "LinearLR", "kwargs": {"start_factor": 1.0, "end_factor": 0.0,
                                                          "total_iters": 25}},
    "exponential": {"scheduler": "ExponentialLR", "kwargs": {"gamma": 0.93}},
    "polynomial": {"scheduler": "PolynomialLR", "kwargs": {"total_iters": 20, "power": 2.0}},
    "cosine_restarting": {"scheduler": "CosineAnnealingLR", "kwargs": {"T_max": 10,
                                                                        "eta_min": 0.001}},
    "cosine_long": {"scheduler": "CosineAnnealingLR", "kwargs": {"T_max": 30}},
    "onecycle_sgd_cos": {"scheduler": "OneCycleLR",
                         "kwargs": {"max_lr": [1.0, 0.5], "total_steps": 31}},
    "onecycle_sgd_linear_three_phase": {
        "scheduler": "OneCycleLR",
        "kwargs": {"max_lr": 0.8, "total_steps": 31, "anneal_strategy": "linear",
                   "three_phase": True, "pct_start": 0.25, "div_factor": 10.0,
                   "final_div_factor": 100.0, "base_momentum": 0.8, "max_momentum": 0.9}},
    "onecycle_adam_betas": {"scheduler": "OneCycleLR", "optimizer": "adam",
                            "kwargs": {"max_lr": 0.01, "epochs": 3, "steps_per_epoch": 11,
                                       "pct_start": 0.4}},
    "onecycle_no_momentum": {"scheduler": "OneCycleLR",
                             "kwargs": {"max_lr": 2.0, "total_steps": 40,
                                        "cycle_momentum": False}},
    "sequential": {"scheduler": "SequentialLR", "kwargs": {
        "schedulers": [{"scheduler": "LinearLR", "kwargs": {"start_factor": 0.1,
                                                             "total_iters": 5}},
                       {"scheduler": "CosineAnnealingLR", "kwargs": {"T_max": 20}}],
        "milestones": [5]}},
    "sequential_three": {"scheduler": "SequentialLR", "kwargs": {
        "schedulers": [{"scheduler": "ConstantLR", "kwargs": {"factor": 0.5, "total_iters": 2}},
                       {"scheduler": "ExponentialLR", "kwargs": {"gamma": 0.9}},
                       {"scheduler": "StepLR", "kwargs": {"step_size": 3, "gamma": 0.5}}],
        "milestones": [4, 12]}},
    "chained": {"scheduler": "ChainedScheduler", "kwargs": {
        "schedulers": [{"scheduler": "ConstantLR", "kwargs": {"factor": 0.1, "total_iters": 2}},
                       {"scheduler": "ExponentialLR", "kwargs": {"gamma": 0.9}}]}},
    "chained_cosine_step": {"scheduler": "ChainedScheduler", "kwargs": {
        "schedulers": [{"scheduler": "CosineAnnealingLR", "kwargs": {"T_max": 8}},
                       {"scheduler": "StepLR", "kwargs": {"step_size": 5, "gamma": 0.5}}]}},
    "plateau_min_rel": {"scheduler": "ReduceLROnPlateau", "metrics": METRICS_MIN,
                        "kwargs": {"patience": 2, "cooldown": 1, "min_lr": 0.001}},
    "plateau_min_abs": {"scheduler": "ReduceLROnPlateau", "metrics": METRICS_MIN,
                        "kwargs": {"threshold_mode": "abs", "threshold": 0.02, "patience": 1,
                                   "factor": 0.5}},
    "plateau_max_abs": {"scheduler": "ReduceLROnPlateau", "metrics": METRICS_MAX,
                        "kwargs": {"mode": "max", "threshold_mode": "abs", "threshold": 0.1,
                                   "factor": 0.5, "patience": 1, "min_lr": [0.01, 0.02]}},
    "plateau_max_rel_eps": {"scheduler": "ReduceLROnPlateau", "metrics": METRICS_MAX,
                            "kwargs": {"mode": "max", "patience": 0, "factor": 0.5,
                                       "eps": 0.01}},
    # Explicit epochs take the closed form where a scheduler has one.
    "step_closed_form": {"scheduler": "StepLR", "kwargs": {"step_size": 4, "gamma": 0.5},
                         "epochs": [1, 2, 5, 9, 9, 13, 3, 20]},
    "cosine_closed_form": {"scheduler": "CosineAnnealingLR", "kwargs": {"T_max": 10},
                           "epochs": [1, 4, 7, 10, 15, 2]},
}


def resolve(value):
    if isinstance(value, str) and value.startswith("@"):
        return LAMBDAS[value[1:]]
    if isinstance(value, list):
        return [resolve(v) for v in value]
    return value


def make_optimizer(kind):
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, GROUP_LRS)]
    if kind == "adam":
        return torch.optim.Adam(groups, lr=GROUP_LRS[0])
    return torch.optim.SGD(groups, lr=GROUP_LRS[0], momentum=0.9)


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
    # get_last_lr() is what the scheduler reports; the groups' own lr must agree with it.
    assert [float(g["lr"]) for g in opt.param_groups] == [float(x) for x in scheduler.get_last_lr()]
    row = {"lr": [float(x) for x in scheduler.get_last_lr()]}
    if "betas" in opt.defaults:
        row["momentum"] = [float(g["betas"][0]) for g in opt.param_groups]
    elif "momentum" in opt.defaults:
        row["momentum"] = [float(g["momentum"]) for g in opt.param_groups]
    return row


def run(spec, resume_at=None):
    opt = make_optimizer(spec.get("optimizer", "sgd"))
    scheduler = make_scheduler(opt, spec)
    rows = [snapshot(opt, scheduler)]
    metrics = spec.get("metrics")
    epochs = spec.get("epochs")
    n = len(epochs) if epochs else len(metrics) if metrics else STEPS
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


def main():
    warnings.simplefilter("ignore")
    out = {"torch_version": torch.__version__, "steps": STEPS, "group_lrs": GROUP_LRS,
           "cases": {}}
    for name, spec in CASES.items():
        rows = run(spec)
        # The state_dict round trip must not change anything in PyTorch either.
        if "epochs" not in spec:
            resumed = run(spec, resume_at=12)
            assert resumed == rows, name
        out["cases"][name] = dict(spec, rows=rows)
    path = pathlib.Path(__file__).parent / "fixtures" / "lr_schedules.json"
    path.write_text(json.dumps(out, separators=(",", ":")))
    print(f"wrote {len(CASES)} cases to {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
