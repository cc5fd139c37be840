"""The binary op table (`src/ops/binary.rs`): every name an entry binds is `torch.X`,
`Tensor.X` and `Tensor.X_`, and gives the op's values; PyTorch's aliases bound there
(greater_equal, less_equal, not_equal, arctan2) are the ops they name, with the same
`grad_fn` and the same refusal of a number where PyTorch has no number overload."""
import pytest

import rstorch


def operands():
    a = rstorch.tensor([[-1.5, 0.0, 2.0], [3.0, -4.0, 0.5]])
    b = rstorch.tensor([2.0, 0.5, -1.0])
    return a, b


def test_every_bound_name_is_a_function_a_method_and_an_in_place_method():
    names = rstorch._C._binary_ops()
    assert len(names) == len(set(names))
    for name in ["mul", "multiply", "true_divide", "floor_divide", "remainder", "fmod", "maximum",
                 "minimum", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
                 "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                 "bitwise_xor", "greater_equal", "less_equal", "not_equal", "arctan2"]:
        assert name in names
    for name in names:
        a, b = operands()
        if name.startswith("bitwise"):
            a, b = a.long(), b.long()
        if name.startswith("igamma"):  # defined for non-negative operands (NaN elsewhere)
            a, b = a.abs(), b.abs()
        want = getattr(a, name)(b)
        assert getattr(rstorch, name)(a, b).tolist() == want.tolist(), name
        x = a.clone()
        getattr(x, name + "_")(b)
        assert x.tolist() == want.to(a.dtype).tolist(), name


@pytest.mark.parametrize("alias, op", [("greater_equal", "ge"), ("less_equal", "le"), ("not_equal", "ne")])
def test_comparison_aliases_are_their_ops(alias, op):
    a, b = operands()
    assert getattr(a, alias)(b).tolist() == getattr(a, op)(b).tolist()
    assert getattr(a, alias)(0.5).tolist() == getattr(a, op)(0.5).tolist()
    x = a.clone()
    getattr(x, alias + "_")(b)
    assert x.tolist() == getattr(a, op)(b).to(a.dtype).tolist()


def test_arctan2_is_atan2_and_takes_tensors_only():
    a, b = operands()
    a.requires_grad_(True)
    y = rstorch.arctan2(a, b)
    assert y.tolist() == rstorch.atan2(a, b).tolist()
    assert type(y.grad_fn).__name__ == "Atan2Backward0"
    with pytest.raises(TypeError, match=r"arctan2\(\): argument 'other' \(position 1\) must be Tensor, not float"):
        a.detach().arctan2(2.0)
    with pytest.raises(TypeError, match=r"arctan2_\(\): argument 'other' \(position 1\) must be Tensor, not int"):
        a.detach().arctan2_(2)
