"""Records PyTorch's optimizer trajectories into tests/fixtures/optim.npz (run once, with torch):

    /work/torchenv/bin/python tests/record_optim_fixtures.py

Each case runs a few steps from fixed parameters and gradients; half-way it rebuilds the
optimizer from its state_dict, so the fixture also pins state_dict round trips."""
import json
import pathlib

import numpy as np
import torch

CASES = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum": ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    "sgd_nesterov_maximize": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_amsgrad_wd": ("Adam", dict(lr=0.02, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True, eps=1e-6)),
    "adam_maximize": ("Adam", dict(lr=0.01, maximize=True)),
    "adamw": ("AdamW", dict(lr=0.01)),
    "adamw_amsgrad": ("AdamW", dict(lr=0.03, weight_decay=0.2, amsgrad=True)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop_centered_momentum": ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True,
                                                  weight_decay=0.05)),
    "rmsprop_momentum": ("RMSprop", dict(lr=0.02, momentum=0.7)),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_decay": ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2,
                                      maximize=True)),
}
SHAPES = [(3, 4), (5,), (2, 3, 2)]
STEPS, RELOAD_AFTER = 6, 3


def main():
    rng = np.random.default_rng(0)
    out = {"cases": np.array(json.dumps({k: [c, kw] for k, (c, kw) in CASES.items()}))}
    for name, (cls_name, kwargs) in CASES.items():
        init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
        grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(STEPS)]
        params = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
        # Two groups, so per-group settings and state indexing across groups are exercised.
        groups = [{"params": params[:2]}, {"params": params[2:], "lr": kwargs.get("lr", 0.01) * 0.5}]
        cls = getattr(torch.optim, cls_name)
        opt = cls(groups, **kwargs)
        for i, a in enumerate(init):
            out[f"{name}/init{i}"] = a
        for step in range(STEPS):
            if step == RELOAD_AFTER:
                saved = opt.state_dict()
                opt = cls([{"params": params[:2]}, {"params": params[2:]}], **kwargs)
                opt.load_state_dict(saved)
            for p, g in zip(params, grads[step]):
                p.grad = torch.from_numpy(g.copy())
            opt.step()
            for i, p in enumerate(params):
                out[f"{name}/grad{step}_{i}"] = grads[step][i]
                out[f"{name}/step{step}_{i}"] = p.detach().numpy().copy()
    path = pathlib.Path(__file__).parent / "fixtures" / "optim.npz"
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
