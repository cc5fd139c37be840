"""Records PyTorch's warnings and errors of torch.utils.checkpoint for tests/python/test_checkpoint.py.
Run with the reference PyTorch: /work/torchref/bin/python tests/record_checkpoint.py"""
import json
import pathlib
import warnings

import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def _sin(a):
    return a.sin()


def _ctx():
    return torch.no_grad(), torch.no_grad()


def capture(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out, err = fn(), None
        except Exception as e:  # noqa: BLE001 (recording whatever PyTorch raises)
            out, err = None, [type(e).__name__, str(e)]
    return {"warnings": [[type(w.message).__name__, str(w.message)] for w in caught], "error": err,
            "requires_grad": None if out is None else bool(out.requires_grad)}


x = torch.randn(3, requires_grad=True)
CASES = {
    "no_use_reentrant": lambda: checkpoint(_sin, x),
    "sequential_no_use_reentrant": lambda: checkpoint_sequential([_sin, _sin], 2, x),
    "reentrant_kwargs": lambda: checkpoint(_sin, x, use_reentrant=True, foo=1),
    "reentrant_debug": lambda: checkpoint(_sin, x, use_reentrant=True, debug=True),
    "reentrant_context_fn": lambda: checkpoint(_sin, x, use_reentrant=True, context_fn=_ctx),
    "bad_determinism_check": lambda: checkpoint(_sin, x, use_reentrant=False, determinism_check="x"),
    "debug_and_context_fn": lambda: checkpoint(_sin, x, use_reentrant=False, debug=True, context_fn=_ctx),
    "sequential_kwargs": lambda: checkpoint_sequential([_sin, _sin], 2, x, use_reentrant=True, foo=1),
    "reentrant_no_grad_input": lambda: checkpoint(_sin, torch.randn(3), use_reentrant=True),
    "nonreentrant_no_grad_input": lambda: checkpoint(_sin, torch.randn(3), use_reentrant=False),
    "decorator_kwargs": lambda: checkpoint(None, foo=1),
}
out = {name: capture(fn) for name, fn in CASES.items()}
path = pathlib.Path(__file__).parent / "fixtures" / "checkpoint.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path}")
