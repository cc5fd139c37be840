"""Records tests/fixtures/models.npz from PyTorch for test_model_parity.py: for each model in
tests/python/_models.py, the initial state_dict, and for each of three momentum-SGD steps the
batch, target, repeat count (DynamicNet), loss, output and state_dict after the step.

Run with a Python that has PyTorch:  /work/torchenv/bin/python tests/record_model_fixtures.py"""
import os
import random
import sys
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "python"))
from _models import FULL_LIMIT, LR, MOMENTUM, PREFIX, SPECS, STEPS, define, draw, loss_fn  # noqa: E402


def record_state(data, key, state, full):
    for k, v in state.items():
        a = v.detach().numpy().copy()
        if full or a.size <= FULL_LIMIT:
            data[f"{key}/{k}"] = a
        else:
            flat = a.ravel().astype(np.float64)
            data[f"{key}/{k}@prefix"] = a.ravel()[:PREFIX].copy()
            data[f"{key}/{k}@moments"] = np.array([flat.sum(), (flat * flat).sum()])


def main():
    warnings.simplefilter("ignore")  # the MNIST net's implicit log_softmax dim warns, by design
    models = define(torch)
    data = {}
    for n, (name, spec) in enumerate(SPECS.items()):
        torch.manual_seed(100 + n)
        random.seed(100 + n)
        rng = np.random.default_rng(100 + n)
        model = models[name]()
        model.train(spec["train"])
        record_state(data, f"{name}/init", model.state_dict(), full=True)
        opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
        for step in range(STEPS):
            x, y = draw(spec["input"], rng), draw(spec["target"], rng)
            data[f"{name}/step{step}/input"] = x
            data[f"{name}/step{step}/target"] = y
            opt.zero_grad()
            if name == "dynamic":
                repeats = random.randint(0, 3)
                data[f"{name}/step{step}/repeats"] = np.array(repeats)
                out = model(torch.from_numpy(x), repeats)
            else:
                out = model(torch.from_numpy(x))
            loss = loss_fn(torch, spec["loss"], out, torch.from_numpy(y))
            loss.backward()
            opt.step()
            data[f"{name}/step{step}/loss"] = np.array(loss.item(), dtype=np.float32)
            data[f"{name}/step{step}/output"] = out.detach().numpy().copy()
            record_state(data, f"{name}/step{step}/state", model.state_dict(), full=step == STEPS - 1)
    path = os.path.join(HERE, "fixtures", "models.npz")
    np.savez_compressed(path, **data)
    print(f"wrote {path}: {len(data)} arrays, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
