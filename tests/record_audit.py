"""Records PyTorch's results of the audit cases (tests/audit_cases_*.py) into fixtures/audit.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_audit.py
tests/python/test_audit_*.py replay every case on rstorch, compare, and gradcheck the same calls.
"""
import json
import pathlib
import sys
import warnings

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import audit_cases_linalg  # noqa: E402
import audit_cases_nn  # noqa: E402
import audit_cases_tensor  # noqa: E402
from audit_common import capture  # noqa: E402

FAMILIES = (audit_cases_tensor, audit_cases_linalg, audit_cases_nn)


def main():
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for family in FAMILIES:
            for name, case in family.cases():
                assert name not in out, name
                torch.manual_seed(0)
                out[name] = capture(torch, case)
    path = HERE / "fixtures" / "audit.json"
    # One case a line: the file reads (and diffs) case by case.
    lines = [f"{json.dumps(name)}: {json.dumps(out[name], sort_keys=True)}" for name in sorted(out)]
    path.write_text('{"torch": ' + json.dumps(torch.__version__) + ', "cases": {\n' + ",\n".join(lines) + "\n}}\n")
    errors = [name for name in out if "error" in out[name]]
    print(f"{len(out)} cases -> {path}; PyTorch raised in {len(errors)}: {errors}")


if __name__ == "__main__":
    main()
