"""`torch.testing.assert_close`: PyTorch's default tolerances per dtype, its checks of shape and
dtype, and its messages (the texts below are PyTorch 2.15's for the same calls, with rstorch's
names for its own types)."""
import pytest

import rstorch
from rstorch.testing import assert_close


def fails(actual, expected, **kw):
    with pytest.raises(AssertionError) as e:
        assert_close(actual, expected, **kw)
    return str(e.value)


def test_close_values_pass():
    assert_close(rstorch.tensor([1.0, 2.0]), rstorch.tensor([1.0, 2.0 + 1e-6]))
    assert_close(rstorch.tensor([float("nan")]), rstorch.tensor([float("nan")]), equal_nan=True)
    assert_close(rstorch.tensor([float("inf")]), rstorch.tensor([float("inf")]))
    assert_close(1.0, 1.0 + 1e-9)
    assert_close([rstorch.tensor(1.0), {"a": 2}], [rstorch.tensor(1.0), {"a": 2}])
    assert_close(rstorch.tensor([1.0]), rstorch.tensor([1.1]), rtol=0.2, atol=0.0)
    assert rstorch.testing.assert_close is assert_close


def test_messages_are_pytorchs():
    assert fails(rstorch.tensor([1.0, 2.0, 3.0]), rstorch.tensor([1.0, 2.0, 3.1])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.09999990463256836 at index (2,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.032258033752441406 at index (2,) (up to 1.3e-06 allowed)")
    assert fails(rstorch.tensor([[1.0, 2.0], [3.0, 4.0]]), rstorch.tensor([[1.0, 2.5], [3.0, 4.0]])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
        "Greatest absolute difference: 0.5 at index (0, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (0, 1) (up to 1.3e-06 allowed)")
    assert fails(rstorch.tensor([1, 2]), rstorch.tensor([1, 3])) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 1 at index (1,)\n"
        "Greatest relative difference: 0.3333333432674408 at index (1,)")
    assert fails(rstorch.tensor([float("nan")]), rstorch.tensor([float("nan")])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: nan at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)")
    assert fails(1.0, 1.1) == (
        "Scalars are not close!\n\nExpected 1.1 but got 1.0.\n"
        "Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)\n"
        "Relative difference: 0.09090909090909098 (up to 1e-07 allowed)")
    assert fails(rstorch.tensor(1.0), rstorch.tensor(3.0)) == (
        "Scalars are not close!\n\nExpected 3.0 but got 1.0.\n"
        "Absolute difference: 2.0 (up to 1e-05 allowed)\n"
        "Relative difference: 0.6666666666666666 (up to 1.3e-06 allowed)")
    assert fails([rstorch.tensor(1.0)], [rstorch.tensor(2.0)]).endswith("\n\nThe failure occurred for item [0]")
    assert fails({"a": rstorch.tensor(1.0)}, {"a": rstorch.tensor(2.0)}).endswith("The failure occurred for item ['a']")
    assert fails(rstorch.tensor([1.0]), rstorch.tensor([1.1]), msg="custom") == "custom"


def test_attributes_are_checked_first():
    assert fails(rstorch.tensor([1.0, 2.0]), rstorch.tensor([1.0, 2.0]).double()) == (
        "The values for attribute 'dtype' do not match: rstorch.float32 != rstorch.float64.")
    assert fails(rstorch.tensor([1.0, 2.0]), rstorch.tensor([1.0, 2.0, 3.0])) == (
        "The values for attribute 'shape' do not match: rstorch.Size([2]) != rstorch.Size([3]).")
    assert_close(rstorch.tensor([1.0, 2.0]), rstorch.tensor([1.0, 2.0]).double(), check_dtype=False)


def test_argument_errors():
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."):
        assert_close(rstorch.tensor([1.0]), rstorch.tensor([1.1]), rtol=0.2)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(rstorch.tensor([1.0]), [1.0])
