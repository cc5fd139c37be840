"""Records PyTorch's warnings and errors of torch.utils.checkpoint for tests/python/test_checkpoint.py.
Run with the reference PyTorch: /work/torchref/bin/python tests/record_checkpoint.py"""
import json
import pathlib

import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

import checkpoint_cases

CASES = checkpoint_cases.cases(torch, checkpoint, checkpoint_sequential)
out = {name: checkpoint_cases.capture(fn) for name, fn in CASES.items()}
path = pathlib.Path(__file__).parent / "fixtures" / "checkpoint.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path}")
