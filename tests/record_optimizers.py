"""Records PyTorch's Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop into fixtures/optimizers.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_optimizers.py
tests/python/test_optimizers_more.py replays it on rstorch. Each case runs STEPS steps on a small
float64 least-squares-with-tanh problem (a 3x4 matrix W and a 3-vector b, two parameter groups,
the second at half the learning rate). The gradients PyTorch computed are recorded with the
parameters and the optimizer state after every step, so the replay checks the optimizer's
arithmetic alone; after RELOAD_AFTER steps the optimizer is rebuilt from its state_dict, so the
state's keys and values must round-trip. It also records each class's default param group and
the errors its argument checks raise.
"""
import json
import pathlib

import numpy as np
import torch

STEPS, RELOAD_AFTER = 10, 5

CASES = {
    "adadelta": ("Adadelta", {}),
    "adadelta_wd_max": ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.1, "maximize": True}),
    "adamax": ("Adamax", {"lr": 0.05}),
    "adamax_wd_max": ("Adamax", {"lr": 0.02, "betas": [0.8, 0.9], "eps": 1e-6, "weight_decay": 0.1,
                                 "maximize": True}),
    "nadam": ("NAdam", {"lr": 0.05}),
    "nadam_wd": ("NAdam", {"lr": 0.02, "betas": [0.8, 0.95], "weight_decay": 0.1, "momentum_decay": 0.01}),
    "nadam_decoupled_max": ("NAdam", {"lr": 0.03, "weight_decay": 0.2, "decoupled_weight_decay": True,
                                      "maximize": True}),
    "radam": ("RAdam", {"lr": 0.05}),
    "radam_rectified_wd": ("RAdam", {"lr": 0.02, "betas": [0.8, 0.9], "weight_decay": 0.1}),
    "radam_decoupled_max": ("RAdam", {"lr": 0.03, "betas": [0.9, 0.8], "weight_decay": 0.2,
                                      "decoupled_weight_decay": True, "maximize": True}),
    "asgd": ("ASGD", {}),
    "asgd_averaging_wd": ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    "asgd_max": ("ASGD", {"lr": 0.03, "t0": 0, "maximize": True}),
    "rprop": ("Rprop", {}),
    "rprop_bounds_max": ("Rprop", {"lr": 0.05, "etas": [0.3, 1.5], "step_sizes": [1e-3, 0.2], "maximize": True}),
}

# differentiable=True: the steps run on a non-leaf copy of a leaf, and the recorded gradient of a
# loss on the result with respect to that leaf is taken through every update. PyTorch's own
# Adamax cannot backpropagate through a second differentiable step (its exp_avg is changed in
# place after lerp saved it), so its case stops after one.
DIFFERENTIABLE = {
    "Adadelta": {"lr": 0.5, "weight_decay": 0.1},
    "Adamax": {"lr": 0.05, "weight_decay": 0.1},
    "NAdam": {"lr": 0.05, "weight_decay": 0.1},
    "NAdam_decoupled": {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
    "RAdam": {"lr": 0.05, "betas": [0.8, 0.9], "weight_decay": 0.1},
    "ASGD": {"lr": 0.05, "t0": 1, "lambd": 0.01, "weight_decay": 0.1},
    "Rprop": {"lr": 0.05, "maximize": True},
}
DIFFERENTIABLE_STEPS = {"Adamax": 1}

# LBFGS runs LBFGS_STEPS steps of a closure on the same problem (its gradients are the replay's
# own), rebuilt from its state_dict after LBFGS_RELOAD_AFTER; "maximize" cases maximize -loss.
LBFGS_CASES = {
    "lbfgs": {"max_iter": 5},
    "lbfgs_history": {"lr": 0.8, "max_iter": 6, "history_size": 3},
    "lbfgs_wolfe": {"line_search_fn": "strong_wolfe", "max_iter": 8},
    "lbfgs_wolfe_history_max": {"line_search_fn": "strong_wolfe", "max_iter": 5, "history_size": 2,
                                "maximize": True},
    "lbfgs_wolfe_few_evals": {"line_search_fn": "strong_wolfe", "lr": 2.0, "max_iter": 10, "max_eval": 4},
    "lbfgs_tolerances": {"max_iter": 50, "tolerance_change": 1e-4, "tolerance_grad": 1e-3},
}
LBFGS_STEPS, LBFGS_RELOAD_AFTER = 4, 2

# (class, kwargs) that every PyTorch rejects; "@lr2" stands for a 2-element tensor learning rate.
BAD_ARGS = [
    ("Adadelta", {"lr": -1.0}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1e-3}),
    ("Adadelta", {"weight_decay": -0.5}), ("Adadelta", {"lr": "@lr2"}),
    ("Adamax", {"lr": -0.1}), ("Adamax", {"eps": -1.0}), ("Adamax", {"betas": [1.0, 0.9]}),
    ("Adamax", {"betas": [0.9, -0.1]}), ("Adamax", {"weight_decay": -1.0}),
    ("NAdam", {"lr": -0.1}), ("NAdam", {"betas": [0.9, 1.0]}), ("NAdam", {"momentum_decay": -0.1}),
    ("NAdam", {"weight_decay": -1.0}), ("NAdam", {"eps": -1.0}),
    ("RAdam", {"lr": -0.1}), ("RAdam", {"betas": [-0.1, 0.9]}), ("RAdam", {"weight_decay": -1.0}),
    ("RAdam", {"eps": -1.0}),
    ("ASGD", {"lr": -0.1}), ("ASGD", {"lambd": -0.1}), ("ASGD", {"alpha": -0.1}), ("ASGD", {"weight_decay": -1.0}),
    ("Rprop", {"lr": -0.1}), ("Rprop", {"etas": [1.5, 1.2]}), ("Rprop", {"etas": [0.5, 0.9]}),
    ("Rprop", {"etas": [0.0, 1.2]}),
    ("LBFGS", {"lr": -1.0}), ("LBFGS", {"lr": "@lr2"}),
]


def problem():
    rng = np.random.default_rng(22)
    x = torch.from_numpy(rng.standard_normal((6, 4)))
    y = torch.from_numpy(rng.standard_normal((6, 3)))
    w0 = rng.standard_normal((3, 4))
    b0 = rng.standard_normal(3)
    return x, y, w0, b0


def kwargs_for_torch(kwargs):
    out = dict(kwargs)
    for key in ("betas", "etas", "step_sizes"):
        if key in out:
            out[key] = tuple(out[key])
    if out.get("lr") == "@lr2":
        out["lr"] = torch.tensor([0.1, 0.2])
    return out


def state_json(opt, params):
    out = []
    for p in params:
        entry = {}
        for key, value in opt.state[p].items():
            entry[key] = {"dtype": str(value.dtype).removeprefix("torch."), "shape": list(value.shape),
                          "values": value.detach().reshape(-1).tolist()}
        out.append(entry)
    return out


def jsonable(value):
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    return value


def run_case(cls_name, kwargs, x, y, w0, b0):
    cls = getattr(torch.optim, cls_name)
    w = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    b = torch.nn.Parameter(torch.from_numpy(b0.copy()))
    default_lr = cls.__init__.__defaults__[0]

    def build():
        groups = [{"params": [w]}, {"params": [b], "lr": kwargs.get("lr", default_lr) * 0.5}]
        return cls(groups, **kwargs_for_torch(kwargs))

    opt = build()
    steps = []
    for step in range(STEPS):
        if step == RELOAD_AFTER:
            saved = opt.state_dict()
            opt = build()
            opt.load_state_dict(saved)
        opt.zero_grad()
        loss = (torch.tanh(x @ w.T + b) - y).pow(2).mean()
        loss.backward()
        grads = [p.grad.reshape(-1).tolist() for p in (w, b)]
        opt.step()
        steps.append({"grads": grads, "params": [p.detach().reshape(-1).tolist() for p in (w, b)],
                      "state": state_json(opt, (w, b))})
    groups = [{k: jsonable(v) for k, v in g.items() if k != "params"} for g in opt.state_dict()["param_groups"]]
    return {"optimizer": cls_name, "kwargs": kwargs, "steps": steps, "param_groups": groups}


def run_differentiable(name, kwargs, w0):
    cls = getattr(torch.optim, name.split("_")[0])
    leaf = torch.tensor(w0, requires_grad=True)
    p = leaf.clone()
    opt = cls([p], differentiable=True, **kwargs_for_torch(kwargs))
    rng = np.random.default_rng(7)
    grads = [rng.standard_normal(w0.shape) for _ in range(DIFFERENTIABLE_STEPS.get(name, 8))]
    for g in grads:
        p.grad = torch.from_numpy(g)
        opt.step()
    weights = torch.linspace(-1.0, 1.0, p.numel(), dtype=torch.float64).reshape(p.shape)
    (p * weights).sum().backward()
    return {"optimizer": name.split("_")[0], "kwargs": kwargs, "grads": [g.tolist() for g in grads],
            "params": p.detach().reshape(-1).tolist(), "leaf_grad": leaf.grad.reshape(-1).tolist()}


def lbfgs_state_json(state):
    out = {}
    for key, value in state.items():
        if isinstance(value, list):
            value = {"length": len(value)}
        elif isinstance(value, torch.Tensor):
            value = {"dtype": str(value.dtype).removeprefix("torch."), "values": value.reshape(-1).tolist()}
        out[key] = value
    return out


def run_lbfgs(kwargs, x, y, w0, b0):
    w = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    b = torch.nn.Parameter(torch.from_numpy(b0.copy()))
    sign = -1.0 if kwargs.get("maximize") else 1.0
    opt = torch.optim.LBFGS([w, b], **kwargs)

    def closure():
        opt.zero_grad()
        loss = sign * (torch.tanh(x @ w.T + b) - y).pow(2).mean()
        loss.backward()
        return loss

    steps = []
    for step in range(LBFGS_STEPS):
        if step == LBFGS_RELOAD_AFTER:
            saved = opt.state_dict()
            opt = torch.optim.LBFGS([w, b], **kwargs)
            opt.load_state_dict(saved)
        loss = opt.step(closure)
        steps.append({"loss": loss.item(), "params": [p.detach().reshape(-1).tolist() for p in (w, b)],
                      "state": lbfgs_state_json(opt.state[w])})
    group = {k: jsonable(v) for k, v in opt.param_groups[0].items() if k != "params"}
    return {"kwargs": kwargs, "steps": steps, "param_group": group}


def main():
    torch.set_default_dtype(torch.float32)
    x, y, w0, b0 = problem()
    out = {"x": x.tolist(), "y": y.tolist(), "w0": w0.tolist(), "b0": b0.tolist(), "cases": {}, "defaults": {},
           "errors": [], "differentiable": {}}
    for name, (cls_name, kwargs) in CASES.items():
        out["cases"][name] = run_case(cls_name, kwargs, x, y, w0, b0)
    out["lbfgs"] = {name: run_lbfgs(kwargs, x, y, w0, b0) for name, kwargs in LBFGS_CASES.items()}
    for name, kwargs in DIFFERENTIABLE.items():
        out["differentiable"][name] = run_differentiable(name, kwargs, w0)
    for cls_name in sorted({c for c, _ in CASES.values()} | {"LBFGS"}):
        opt = getattr(torch.optim, cls_name)([torch.nn.Parameter(torch.zeros(2))])
        out["defaults"][cls_name] = {k: jsonable(v) for k, v in opt.param_groups[0].items() if k != "params"}
    for cls_name, kwargs in BAD_ARGS:
        try:
            getattr(torch.optim, cls_name)([torch.nn.Parameter(torch.zeros(2))], **kwargs_for_torch(kwargs))
        except Exception as e:  # noqa: BLE001 - the type is what is recorded
            out["errors"].append({"optimizer": cls_name, "kwargs": kwargs, "type": type(e).__name__,
                                  "message": str(e)})
        else:
            raise AssertionError(f"{cls_name}({kwargs}) was accepted")
    path = pathlib.Path(__file__).parent / "fixtures" / "optimizers.json"
    path.write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
