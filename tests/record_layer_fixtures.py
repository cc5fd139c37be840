"""Records tests/fixtures/layers.npz from PyTorch for test_nn_layers.py: for each case in
tests/python/_layer_cases.py, the initial state_dict, inputs, outputs, the output cotangents,
parameter and input gradients, and the state_dict after the calls.

Run with a Python that has PyTorch:  /work/torchenv/bin/python tests/record_layer_fixtures.py"""
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "python"))
from _layer_cases import CASES, flatten_outputs, make_inputs, takes_grad  # noqa: E402


def main():
    data = {}
    for n, (name, (ctor, spec, call)) in enumerate(CASES.items()):
        torch.manual_seed(n)
        rng = np.random.default_rng(n)
        m = eval(ctor, {"nn": torch.nn, "torch": torch})
        for k, v in m.state_dict().items():
            data[f"{name}/state/{k}"] = v.numpy().copy()
        arrays = make_inputs(spec, rng)
        xs = []
        for i, (item, a) in enumerate(zip(spec, arrays)):
            data[f"{name}/in{i}"] = a
            t = torch.from_numpy(a.copy())
            xs.append(t.requires_grad_(True) if takes_grad(item) else t)
        env = {"m": m, "torch": torch, "nn": torch.nn, **{f"x{i}": x for i, x in enumerate(xs)}}
        outs = flatten_outputs(eval(call, env))
        total = 0
        for j, o in enumerate(outs):
            data[f"{name}/out{j}"] = o.detach().numpy().copy()
            if o.is_floating_point() and o.requires_grad:
                g = rng.standard_normal(tuple(o.shape)).astype(np.float32)
                data[f"{name}/gout{j}"] = g
                total = total + (o * torch.from_numpy(g)).sum()
        total.backward()
        for k, p in m.named_parameters():
            if p.grad is not None:
                data[f"{name}/grad/{k}"] = p.grad.numpy().copy()
        for i, x in enumerate(xs):
            if x.grad is not None:
                data[f"{name}/ingrad{i}"] = x.grad.numpy().copy()
        for k, v in m.state_dict().items():
            data[f"{name}/after/{k}"] = v.numpy().copy()
    path = os.path.join(HERE, "fixtures", "layers.npz")
    np.savez_compressed(path, **data)
    print(f"wrote {path}: {len(data)} arrays, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
