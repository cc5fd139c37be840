"""Audit of the ops issue 22 added, by family: the Tensor and torch functions
(tests/audit_cases_tensor.py), torch.linalg (audit_cases_linalg.py), and the nn modules, losses,
pooling, nn.utils and special functions (audit_cases_nn.py). Each case is replayed against
PyTorch's recorded outputs and gradients (fixtures/audit.json, written by tests/record_audit.py),
gradchecked in float64 on contiguous and non-contiguous inputs, and gradgradchecked where PyTorch
has double backward."""
import pytest

from _audit_replay import KW, RECORDED, compare, gradcheckable, input_sets  # puts tests/ on the path
from audit_cases_linalg import cases as linalg_cases
from audit_cases_nn import cases as nn_cases
from audit_cases_tensor import cases as tensor_cases
from audit_common import differentiable

import rstorch
from rstorch.autograd import gradcheck, gradgradcheck

FAMILIES = {"tensor": tensor_cases, "linalg": linalg_cases, "nn": nn_cases}
CASES = {name: case for family in FAMILIES.values() for name, case in family()}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_case_is_recorded(family):
    cases = dict(FAMILIES[family]())
    assert cases and set(cases) <= set(RECORDED)


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
