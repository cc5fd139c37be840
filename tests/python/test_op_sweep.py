"""benches/op_sweep.py stays runnable: every case of the sweep builds and runs on rstorch (forward,
and backward where the case says it is differentiable), so that no row silently turns into an
error when the sweep is run against PyTorch. Times are not checked here (benchmarks measure)."""
import importlib.util
import os

import pytest

import rstorch

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "benches", "op_sweep.py")


def load_sweep():
    spec = importlib.util.spec_from_file_location("op_sweep", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SWEEP = load_sweep()
CASES = SWEEP.all_cases()


def test_the_sweep_lists_the_op_tables():
    names = {case.name for case in CASES}
    unary, _ = rstorch._C._unary_ops()
    assert {n for n in unary if n not in SWEEP.ALIASES} <= names
    assert {n for n in rstorch._C._binary_ops() if n not in SWEEP.ALIASES} <= names


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}/{c.name}" for c in CASES])
def test_every_case_runs_on_rstorch(case):
    for variant in case.variants:
        for backward in [False] + ([True] if case.differentiable else []):
            fn = case.build(rstorch, 8, rstorch.float32, variant, backward)
            fn()
            fn()
