"""Audit of the nn modules, losses, pooling, nn.utils and special functions issue 22 added (tests/audit_cases_nn.py): each case
replayed against PyTorch's recorded outputs and gradients (fixtures/audit.json, written by
tests/record_audit.py), gradchecked in float64 on contiguous and non-contiguous inputs, and
gradgradchecked where PyTorch has double backward."""
import pytest

from _audit_replay import KW, RECORDED, compare, gradcheckable, input_sets
from audit_cases_nn import cases
from audit_common import differentiable

import rstorch
from rstorch.autograd import gradcheck, gradgradcheck

CASES = dict(cases())


def test_every_case_is_recorded():
    assert set(CASES) <= set(RECORDED)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    compare(name, CASES[name])


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", gradcheckable(CASES))
def test_gradcheck(name):
    case = CASES[name]
    for xs in input_sets(case):
        assert gradcheck(differentiable(rstorch, case), xs, **KW)
        if case.gg:
            assert gradgradcheck(differentiable(rstorch, case), xs, **KW)
