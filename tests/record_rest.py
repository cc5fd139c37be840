"""Records PyTorch's values for the small API pieces tested by tests/python/test_rest.py:
cyclic LR schedulers, SparseAdam/Adafactor, DistributedSampler, nn.init.dirac_/eye_, conv_tbc.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_rest.py
It writes tests/fixtures/rest.json; the test replays it on rstorch (never importing torch).
"""
import json
import math
import pathlib

import torch
from torch.optim import lr_scheduler as sched

GROUP_LRS = [0.1, 0.05]
STEPS = 25

# Named callables (test_rest.py defines the same ones).
SCALE_FNS = {"half_sine": lambda x: 0.5 * (1 + math.sin(x))}

SCHEDULES = {
    "cawr_t5": {"scheduler": "CosineAnnealingWarmRestarts", "kwargs": {"T_0": 5, "eta_min": 0.001}},
    "cawr_t3_mult2": {"scheduler": "CosineAnnealingWarmRestarts", "kwargs": {"T_0": 3, "T_mult": 2}},
    "cawr_fractional": {"scheduler": "CosineAnnealingWarmRestarts", "kwargs": {"T_0": 4, "T_mult": 3},
                        "epochs": [0.5, 1.25, 2.0, 3.9, 4.0, 7.5, 15.9, 16.0, 40.2, None, None, 26, None, 2.5]},
    "cawr_fractional_mult1": {"scheduler": "CosineAnnealingWarmRestarts", "kwargs": {"T_0": 4},
                              "epochs": [0.5, 3.99, 4.0, 9.3, None, None, 1.0, None]},
    "cyclic_triangular": {"scheduler": "CyclicLR",
                          "kwargs": {"base_lr": 0.01, "max_lr": [0.1, 0.2], "step_size_up": 4}},
    "cyclic_triangular2": {"scheduler": "CyclicLR",
                           "kwargs": {"base_lr": [0.01, 0.02], "max_lr": 0.1, "step_size_up": 3,
                                      "step_size_down": 5, "mode": "triangular2",
                                      "base_momentum": 0.85, "max_momentum": 0.95}},
    "cyclic_exp_range": {"scheduler": "CyclicLR",
                         "kwargs": {"base_lr": 0.001, "max_lr": 0.05, "step_size_up": 5,
                                    "mode": "exp_range", "gamma": 0.9}},
    "cyclic_scale_fn_iter": {"scheduler": "CyclicLR",
                             "kwargs": {"base_lr": 0.001, "max_lr": 0.05, "step_size_up": 2,
                                        "scale_fn": "@half_sine", "scale_mode": "iterations"}},
    "cyclic_scale_fn_cycle": {"scheduler": "CyclicLR",
                              "kwargs": {"base_lr": 0.001, "max_lr": 0.05, "step_size_up": 2,
                                         "step_size_down": 1, "scale_fn": "@half_sine"}},
    "cyclic_adam": {"scheduler": "CyclicLR", "optimizer": "adam",
                    "kwargs": {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 3,
                               "mode": "triangular2"}},
    "cyclic_no_momentum": {"scheduler": "CyclicLR", "optimizer": "adagrad",
                           "kwargs": {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 3,
                                      "cycle_momentum": False}},
}

SCHEDULE_ERRORS = {
    "cawr_T0_zero": ("CosineAnnealingWarmRestarts", "sgd", {"T_0": 0}),
    "cawr_T0_float": ("CosineAnnealingWarmRestarts", "sgd", {"T_0": 2.0}),
    "cawr_Tmult_zero": ("CosineAnnealingWarmRestarts", "sgd", {"T_0": 2, "T_mult": 0}),
    "cawr_eta_min_str": ("CosineAnnealingWarmRestarts", "sgd", {"T_0": 2, "eta_min": "x"}),
    "cyclic_bad_mode": ("CyclicLR", "sgd", {"base_lr": 0.1, "max_lr": 1.0, "mode": "sine"}),
    "cyclic_no_momentum_support": ("CyclicLR", "adagrad", {"base_lr": 0.1, "max_lr": 1.0}),
    "cyclic_wrong_length": ("CyclicLR", "sgd", {"base_lr": [0.1], "max_lr": 1.0}),
}


def make_optimizer(kind):
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, GROUP_LRS)]
    if kind == "adam":
        return torch.optim.Adam(groups, lr=GROUP_LRS[0])
    if kind == "adagrad":
        return torch.optim.Adagrad(groups, lr=GROUP_LRS[0])
    return torch.optim.SGD(groups, lr=GROUP_LRS[0], momentum=0.9)


def resolve(value):
    if isinstance(value, str) and value.startswith("@"):
        return SCALE_FNS[value[1:]]
    return value


def snapshot(opt, scheduler):
    row = {"lr": [float(x) for x in scheduler.get_last_lr()]}
    if "betas" in opt.defaults:
        row["momentum"] = [float(g["betas"][0]) for g in opt.param_groups]
    elif "momentum" in opt.defaults:
        row["momentum"] = [float(g["momentum"]) for g in opt.param_groups]
    return row


def record_schedule(spec):
    opt = make_optimizer(spec.get("optimizer", "sgd"))
    kwargs = {k: resolve(v) for k, v in spec["kwargs"].items()}
    scheduler = getattr(sched, spec["scheduler"])(opt, **kwargs)
    rows = [snapshot(opt, scheduler)]
    for epoch in spec.get("epochs") or [None] * STEPS:
        opt.step()
        scheduler.step(epoch)
        rows.append(snapshot(opt, scheduler) | {"last_epoch": scheduler.last_epoch})
    return rows


def record_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is recorded
        return {"type": type(e).__name__, "message": str(e)}
    raise AssertionError("expected an error")


def schedules():
    out = {"group_lrs": GROUP_LRS, "steps": STEPS, "cases": {}, "errors": {}}
    for name, spec in SCHEDULES.items():
        out["cases"][name] = dict(spec, rows=record_schedule(spec))
    for name, (cls, kind, kwargs) in SCHEDULE_ERRORS.items():
        out["errors"][name] = {"scheduler": cls, "optimizer": kind, "kwargs": kwargs,
                               **record_error(lambda: getattr(sched, cls)(make_optimizer(kind), **kwargs))}
    return out


# Optimizer cases: {class, kwargs, dtype, shapes}; every step sets grad = sin(3 p) + 0.1 p + 0.05.
OPTIMIZERS = {
    "adafactor_default": ("Adafactor", {}, "float64", [[4, 3], [5], [2, 3, 4]]),
    "adafactor_options": ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": [1e-30, 1e-2], "d": 1.5,
                                        "weight_decay": 0.1, "maximize": True}, "float64", [[3, 5], [4]]),
    "adafactor_float32": ("Adafactor", {"lr": 0.02}, "float32", [[6, 2], [3]]),
    "muon_default": ("Muon", {"lr": 0.02}, "float64", [[4, 6], [5, 3]]),
    "muon_plain_momentum": ("Muon", {"lr": 0.01, "nesterov": False, "momentum": 0.9, "weight_decay": 0.0,
                                     "adjust_lr_fn": "match_rms_adamw", "ns_steps": 3}, "float64", [[3, 3], [2, 7]]),
    "muon_spectral": ("Muon", {"lr": 0.01, "adjust_lr_fn": "spectral_unclamped"}, "float32", [[7, 2]]),
}
OPT_STEPS = 6

OPTIMIZER_ERRORS = {
    "sparse_adam_lr": ("SparseAdam", {"lr": 0.0}, [[2]]),
    "sparse_adam_eps": ("SparseAdam", {"eps": 0.0}, [[2]]),
    "sparse_adam_beta1": ("SparseAdam", {"betas": [1.0, 0.9]}, [[2]]),
    "adafactor_beta2_decay": ("Adafactor", {"beta2_decay": 0.1}, [[2]]),
    "adafactor_eps1": ("Adafactor", {"eps": [-1.0, 1e-3]}, [[2]]),
    "adafactor_eps2": ("Adafactor", {"eps": [None, -1.0]}, [[2]]),
    "adafactor_d": ("Adafactor", {"d": 0.5}, [[2]]),
    "adafactor_wd": ("Adafactor", {"weight_decay": -0.1}, [[2]]),
    "adafactor_lr": ("Adafactor", {"lr": -0.1}, [[2]]),
    "muon_lr": ("Muon", {"lr": -1.0}, [[2, 2]]),
    "muon_momentum": ("Muon", {"momentum": -1.0}, [[2, 2]]),
    "muon_wd": ("Muon", {"weight_decay": -1.0}, [[2, 2]]),
    "muon_adjust": ("Muon", {"adjust_lr_fn": "other"}, [[2, 2]]),
    "muon_not_2d": ("Muon", {}, [[2, 2], [3]]),
}


def initial_values(shapes, seed):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=gen, dtype=torch.float64).tolist() for shape in shapes]


def set_grads(params):
    for p in params:
        p.grad = torch.sin(3 * p.detach()) + 0.1 * p.detach() + 0.05


def optimizers():
    out = {"steps": OPT_STEPS, "cases": {}, "errors": {}}
    for seed, (name, (cls, kwargs, dtype, shapes)) in enumerate(OPTIMIZERS.items()):
        init = initial_values(shapes, seed)
        params = [torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True) for v in init]
        opt = getattr(torch.optim, cls)(params, **kwargs)
        trail = []
        for _ in range(OPT_STEPS):
            set_grads(params)
            opt.step()
            trail.append([p.detach().tolist() for p in params])
        out["cases"][name] = {"optimizer": cls, "kwargs": kwargs, "dtype": dtype, "init": init, "trail": trail}
    for name, (cls, kwargs, shapes) in OPTIMIZER_ERRORS.items():
        params = [torch.zeros(s, requires_grad=True) for s in shapes]
        out["errors"][name] = {"optimizer": cls, "kwargs": kwargs, "shapes": shapes,
                               **record_error(lambda: getattr(torch.optim, cls)(params, **kwargs))}
    p = torch.zeros(3, requires_grad=True)
    opt = torch.optim.SparseAdam([p])
    p.grad = torch.ones(3)
    out["errors"]["sparse_adam_dense_grad"] = record_error(opt.step)
    return out


# DistributedSampler cases: (dataset length, num_replicas, drop_last); shuffle=False.
SAMPLER_CASES = [(10, 3, False), (10, 3, True), (12, 4, False), (12, 4, True), (2, 5, False), (3, 7, False),
                 (7, 2, True), (0, 2, False), (1, 1, True)]


def samplers():
    from torch.utils.data import DistributedSampler
    out = {"cases": [], "errors": {}}
    for n, replicas, drop_last in SAMPLER_CASES:
        shares = [DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last) for r in range(replicas)]
        out["cases"].append({"n": n, "num_replicas": replicas, "drop_last": drop_last,
                             "len": [len(s) for s in shares], "total_size": shares[0].total_size,
                             "indices": [list(s) for s in shares]})
    for name, kwargs in {"no_group": {}, "no_group_rank_given": {"rank": 0},
                         "rank_too_big": {"num_replicas": 2, "rank": 2},
                         "rank_negative": {"num_replicas": 3, "rank": -1}}.items():
        out["errors"][name] = {"kwargs": kwargs, **record_error(lambda: DistributedSampler(range(5), **kwargs))}
    return out


def seeded(shape, seed):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def misc():
    import warnings

    import torch.nn.functional as F
    from torch import nn
    out = {}
    w = torch.empty(4, 2, 3, 3)
    out["dirac_groups2"] = nn.init.dirac_(w, groups=2).tolist()
    out["dirac_3d"] = nn.init.dirac_(torch.empty(3, 3, 2, 3, 3)).tolist()
    out["eye"] = nn.init.eye_(torch.empty(3, 5)).tolist()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.init.dirac(torch.empty(2, 2, 3))
        nn.init.eye(torch.empty(2, 2))
    out["init_warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
    # SyncBatchNorm on one process: batch norm over any rank >= 2.
    bn = nn.SyncBatchNorm(3, momentum=0.3)
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([0.5, 1.0, 2.0]))
        bn.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    x5, x2 = seeded([4, 3, 2, 3, 2], 1), seeded([6, 3], 2)
    out["syncbn"] = {"x5": x5.tolist(), "x2": x2.tolist(), "y5": bn(x5).tolist(), "y2": bn(x2).tolist(),
                     "running_mean": bn.running_mean.tolist(), "running_var": bn.running_var.tolist(),
                     "tracked": int(bn.num_batches_tracked), "repr": repr(bn)}
    bn.eval()
    out["syncbn"]["y_eval"] = bn(x5).tolist()
    out["syncbn"]["errors"] = [record_error(lambda: bn(torch.zeros(3))),
                               record_error(lambda: nn.SyncBatchNorm(0)(torch.zeros(2, 0, 3)))]
    x, w, b = seeded([5, 2, 3], 3), seeded([3, 3, 4], 4), seeded([4], 5)
    out["conv_tbc"] = {"input": x.tolist(), "weight": w.tolist(), "bias": b.tolist(),
                       "pad0": F.conv_tbc(x, w, b).tolist(), "pad2": F.conv_tbc(x, w, b, 2).tolist()}
    out["conv_tbc"]["errors"] = [record_error(lambda: F.conv_tbc(*args)) for args in [
        (seeded([5, 2], 0), w, b), (x, seeded([3, 3], 0), b), (x, w, seeded([4, 1], 0)), (x, seeded([3, 4, 4], 0), b),
        (x, w, seeded([3], 0))]]
    out["factory_kwargs"] = {
        "none": nn.factory_kwargs(None),
        "merged": repr(sorted(nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"memory_format": None}}).items())),
        "errors": [record_error(lambda: nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"device": "cpu"}})),
                   record_error(lambda: nn.factory_kwargs({"bad": 1}))]}

    class TensorLike:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return -1

    out["autograd"] = {
        "variable": record_error(lambda: torch.autograd.variable(1)),
        "is_multithreading_enabled": torch.autograd.is_multithreading_enabled(),
        "is_view_replay_enabled": torch.autograd.is_view_replay_enabled(),
        "is_tensor_like": [torch.autograd.is_tensor_like(v) for v in (torch.zeros(1), 3, None, TensorLike())],
        "assert_int_or_pair": record_error(lambda: F.assert_int_or_pair([1, 2, 3], "kernel_size", "{} must be int")),
    }
    return out


def main():
    torch.set_default_dtype(torch.float64)
    fixture = {"schedules": schedules(), "optimizers": optimizers(), "samplers": samplers(), "misc": misc()}
    path = pathlib.Path(__file__).parent / "fixtures" / "rest.json"
    path.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
