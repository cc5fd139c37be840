"""Records PyTorch's values and gradients of `torch.nn.utils` (gradient clipping, packed
sequences, RNN layers fed a PackedSequence) into fixtures/nn_utils.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_nn_utils.py
tests/python/test_nn_utils.py replays every case on rstorch. Inputs are float64 so values match
exactly; a gradient is that of (out * w).sum() for a recorded random w of out's shape.
"""
import json
import pathlib

import torch
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)


def arr(t):
    return t.detach().tolist()


def rand(*shape):
    return torch.randn(*shape, dtype=torch.float64)


def clip_cases():
    out = []
    for norm_type in [2.0, 1.0, 3.5, float("inf"), 0.0]:
        for max_norm in [0.5, 100.0]:
            grads = [rand(3, 2), rand(4), None]
            params = [torch.zeros(g.shape if g is not None else (2,), dtype=torch.float64, requires_grad=True)
                      for g in grads]
            for p, g in zip(params, grads):
                p.grad = None if g is None else g.clone()
            total = clip_grad_norm_(params, max_norm, norm_type=norm_type)
            out.append({"grads": [None if g is None else arr(g) for g in grads], "max_norm": max_norm,
                        "norm_type": "inf" if norm_type == float("inf") else norm_type, "total": total.item(),
                        "clipped": [None if p.grad is None else arr(p.grad) for p in params]})
    return out


def value_cases():
    out = []
    for value in [0.3, 1.0]:
        grads = [rand(3, 2), rand(5)]
        params = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
        for p, g in zip(params, grads):
            p.grad = g.clone()
        clip_grad_value_(params, value)
        out.append({"grads": [arr(g) for g in grads], "value": value, "clipped": [arr(p.grad) for p in params]})
    return out


def total_norm_cases():
    tensors = [rand(3), rand(2, 2)]
    return [{"tensors": [arr(t) for t in tensors], "norm_type": p, "total": get_total_norm(tensors, p).item()}
            for p in [2.0, 1.0, 0.0, 4.0]]


def pad_cases():
    out = []
    for batch_first in [False, True]:
        for side in ["right", "left"]:
            seqs = [rand(2, 3), rand(4, 3), rand(1, 3)]
            for s in seqs:
                s.requires_grad_(True)
            y = pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5, padding_side=side)
            w = rand(*y.shape)
            (y * w).sum().backward()
            out.append({"seqs": [arr(s) for s in seqs], "batch_first": batch_first, "side": side, "y": arr(y),
                        "w": arr(w), "grads": [arr(s.grad) for s in seqs]})
    return out


def pack_cases():
    out = []
    for batch_first, enforce_sorted, lengths in [(False, True, [4, 3, 3, 1]), (True, True, [5, 2, 1]),
                                                 (False, False, [2, 4, 1, 4]), (True, False, [1, 3, 2])]:
        batch, steps = len(lengths), max(lengths) + 1
        x = rand(*((batch, steps, 2) if batch_first else (steps, batch, 2))).requires_grad_(True)
        packed = pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        w = rand(*packed.data.shape)
        padded, out_lengths = pad_packed_sequence(packed, batch_first=batch_first, padding_value=0.25,
                                                  total_length=steps + 1)
        w2 = rand(*padded.shape)
        ((packed.data * w).sum() + (padded * w2).sum()).backward()
        out.append({"x": arr(x), "lengths": lengths, "batch_first": batch_first, "enforce_sorted": enforce_sorted,
                    "data": arr(packed.data), "batch_sizes": packed.batch_sizes.tolist(),
                    "sorted_indices": None if packed.sorted_indices is None else packed.sorted_indices.tolist(),
                    "unsorted_indices": None if packed.unsorted_indices is None else packed.unsorted_indices.tolist(),
                    "padded": arr(padded), "out_lengths": out_lengths.tolist(), "w": arr(w), "w2": arr(w2),
                    "grad": arr(x.grad)})
    return out


def rnn_cases():
    out = []
    for kind, kwargs in [("RNN", {}), ("LSTM", {"num_layers": 2}), ("GRU", {"bidirectional": True}),
                         ("LSTM", {"bidirectional": True, "proj_size": 2, "batch_first": True})]:
        layer = getattr(torch.nn, kind)(3, 4, dtype=torch.float64, **kwargs)
        seqs = [rand(2, 3), rand(4, 3), rand(3, 3)]
        packed = pack_sequence(seqs, enforce_sorted=False)
        packed_x = packed.data.detach().requires_grad_(True)
        packed = type(packed)(packed_x, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        directions = 2 if kwargs.get("bidirectional") else 1
        h_size = kwargs.get("proj_size") or 4
        h0 = rand(kwargs.get("num_layers", 1) * directions, 3, h_size)
        hx = (h0, rand(kwargs.get("num_layers", 1) * directions, 3, 4)) if kind == "LSTM" else h0
        output, h_n = layer(packed, hx)
        states = list(h_n) if kind == "LSTM" else [h_n]
        w = rand(*output.data.shape)
        ws = [rand(*s.shape) for s in states]
        ((output.data * w).sum() + sum((s * v).sum() for s, v in zip(states, ws))).backward()
        out.append({"kind": kind, "kwargs": kwargs, "state": {k: arr(v) for k, v in layer.state_dict().items()},
                    "seqs": [arr(s) for s in seqs], "hx": [arr(h) for h in (hx if kind == "LSTM" else [hx])],
                    "output": arr(output.data), "batch_sizes": output.batch_sizes.tolist(),
                    "sorted_indices": output.sorted_indices.tolist(), "states": [arr(s) for s in states],
                    "w": arr(w), "ws": [arr(v) for v in ws], "grad": arr(packed_x.grad),
                    "param_grads": {k: arr(v.grad) for k, v in layer.named_parameters()}})
    return out


def main():
    fixture = {"clip_norm": clip_cases(), "clip_value": value_cases(), "total_norm": total_norm_cases(),
               "pad": pad_cases(), "pack": pack_cases(), "rnn": rnn_cases()}
    path = pathlib.Path(__file__).parent / "fixtures" / "nn_utils.json"
    path.write_text(json.dumps(fixture))


if __name__ == "__main__":
    main()
