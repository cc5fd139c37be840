"""Records PyTorch's results of the calls in tests/realprogs_cases.py into fixtures/realprogs.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_realprogs.py
tests/python/test_realprogs.py replays every case on rstorch and compares.
"""
import json
import pathlib
import sys
import warnings

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from realprogs_cases import cases  # noqa: E402
from tensorfns_cases import capture  # noqa: E402


def main():
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in cases():
            assert name not in out, name
            out[name] = capture(torch, fn)
    path = pathlib.Path(__file__).resolve().parent / "fixtures" / "realprogs.json"
    lines = [f"{json.dumps(name)}: {json.dumps(out[name], sort_keys=True)}" for name in sorted(out)]
    path.write_text('{"torch": ' + json.dumps(torch.__version__) + ', "cases": {\n' + ",\n".join(lines) + "\n}}\n")
    print(f"{len(out)} cases -> {path}")


if __name__ == "__main__":
    main()
