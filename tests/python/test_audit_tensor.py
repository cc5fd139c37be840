"""Audit of the Tensor and torch functions issue 22 added (tests/audit_cases_tensor.py): each case
replayed against PyTorch's recorded outputs and gradients (fixtures/audit.json, written by
tests/record_audit.py), gradchecked in float64 on contiguous and non-contiguous inputs, and
gradgradchecked where PyTorch has double backward."""
import pytest

from _audit_replay import KW, RECORDED, compare, gradcheckable, input_sets
from audit_cases_tensor import cases
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


def test_in_place_view_ops_keep_the_history():
    # PyTorch's in-place view ops rebase the tensor's grad_fn onto the view's; on a leaf that
    # requires grad they are refused like any in-place op
    x = rstorch.arange(6.0, dtype=rstorch.float64).reshape(2, 3).requires_grad_()
    y = x * 2
    ptr = y.data_ptr()
    assert y.t_() is not None and y.shape == (3, 2) and y.data_ptr() == ptr
    y.unsqueeze_(0).squeeze_(0).transpose_(0, 1).as_strided_((6,), (1,))
    (y * rstorch.arange(6.0, dtype=rstorch.float64)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.t_()
    with rstorch.no_grad():
        assert x.detach().t_().shape == (3, 2)
