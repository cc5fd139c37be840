"""Records what PyTorch gives for memory formats into fixtures/memory_format.json: the strides
of `contiguous`/`to(memory_format=)` results, of conv/batch_norm/pooling/elementwise results on
channels-last inputs, and of `.grad` after backward for parameters of several layouts.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_memory_format.py
tests/python/test_memory_format.py replays every case (tests/memory_format_cases.py) on rstorch.
"""
import json
import pathlib

import torch

from memory_format_cases import CASES, run_case


def main():
    out = [{"name": name, "program": program, **run_case(program, torch)} for name, program in CASES]
    path = pathlib.Path(__file__).parent / "fixtures" / "memory_format.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out)} cases -> {path}")


if __name__ == "__main__":
    main()
