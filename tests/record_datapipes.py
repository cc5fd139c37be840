"""Records PyTorch's results of tests/datapipes_cases.py (DataPipes, DataLoader over them,
optim.swap_in_optimizer_params_and_state) into tests/fixtures/datapipes.json, which
tests/python/test_datapipes.py replays on rstorch. Run with a PyTorch install:

    /work/torchref/bin/python tests/record_datapipes.py
"""
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import datapipes_cases  # noqa: E402 (tests/ is put on the path just above)


def main():
    results = {name: datapipes_cases.capture(fn)
               for name, fn in datapipes_cases.cases(torch).items()}
    out = pathlib.Path(__file__).parent / "fixtures" / "datapipes.json"
    out.write_text(json.dumps({"torch_version": torch.__version__, "cases": results},
                              indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(results)} cases to {out}")


if __name__ == "__main__":
    main()
