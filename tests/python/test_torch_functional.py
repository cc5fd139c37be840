"""The functions PyTorch writes in Python over its ops (`rstorch/functional.py`): values, shapes
and messages as PyTorch 2.15 gives them for the same calls, and gradients (gradcheck, float64)
through the differentiable ones."""
import re

import pytest

import rstorch
from rstorch.autograd import gradcheck


def raises(exc, message, f):
    with pytest.raises(exc, match=re.escape(message)):
        f()


def test_broadcasting_helpers():
    assert rstorch.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert rstorch.broadcast_shapes(2, (3, 1)) == (3, 2)
    assert isinstance(rstorch.broadcast_shapes((1,)), rstorch.Size)
    raises(RuntimeError, "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 "
           "had (3,); but expected shape should be broadcastable to [2]", lambda: rstorch.broadcast_shapes((2,), (3,)))
    a, b = rstorch.broadcast_tensors(rstorch.ones(2, 1), rstorch.arange(3.0))
    assert a.shape == b.shape == (2, 3) and b.tolist() == [[0.0, 1.0, 2.0]] * 2
    raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
           lambda: rstorch.broadcast_tensors(rstorch.ones(2), rstorch.ones(3)))


def test_grids():
    x, y = rstorch.tensor([1, 2]), rstorch.tensor([3, 4, 5])
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        ij = rstorch.meshgrid(x, y)
    assert [g.tolist() for g in ij] == [[[1, 1, 1], [2, 2, 2]], [[3, 4, 5], [3, 4, 5]]]
    xy = rstorch.meshgrid(x, y, indexing="xy")
    assert [g.tolist() for g in xy] == [[[1, 2], [1, 2], [1, 2]], [[3, 3], [4, 4], [5, 5]]]
    assert rstorch.cartesian_prod(x, rstorch.tensor([3, 4])).tolist() == [[1, 3], [1, 4], [2, 3], [2, 4]]
    raises(RuntimeError, "meshgrid expects all tensors to have the same dtype",
           lambda: rstorch.meshgrid(x, rstorch.tensor([3.0, 4.0]), indexing="ij"))
    raises(RuntimeError, 'torch.meshgrid: indexing must be one of "xy" or "ij", but received: foo',
           lambda: rstorch.meshgrid(x, indexing="foo"))
    raises(RuntimeError, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list",
           lambda: rstorch.meshgrid(rstorch.ones(2, 2), indexing="ij"))


def test_block_diag_and_contractions():
    m = rstorch.block_diag(rstorch.tensor([[1, 2]]), rstorch.tensor(3.0), rstorch.tensor([4, 5]))
    assert m.tolist() == [[1.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 4.0, 5.0]]
    raises(RuntimeError, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions",
           lambda: rstorch.block_diag(rstorch.ones(2, 2, 2)))
    a, b = rstorch.arange(6.0).reshape(2, 3), rstorch.arange(6.0).reshape(3, 2)
    assert rstorch.tensordot(a, b, dims=1).tolist() == [[10.0, 13.0], [28.0, 40.0]]
    c, d = rstorch.arange(24.0).reshape(2, 3, 4), rstorch.arange(12.0).reshape(3, 4)
    assert rstorch.tensordot(c, d, dims=([1, 2], [0, 1])).tolist() == [506.0, 1298.0]
    raises(RuntimeError, "tensordot expects dims >= 0, but got dims=-1",
           lambda: rstorch.tensordot(rstorch.ones(2, 3), rstorch.ones(2, 3), dims=-1))
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        assert rstorch.chain_matmul(a, b, rstorch.eye(2)).tolist() == [[10.0, 13.0], [28.0, 40.0]]


def test_index_arithmetic_and_equal():
    rows, cols = rstorch.unravel_index(rstorch.tensor([4, 1]), (2, 3))
    assert rows.tolist() == [1, 0] and cols.tolist() == [1, 1]
    assert [t.tolist() for t in rstorch.unravel_index(rstorch.tensor([6]), (2, 3))] == [[0], [0]]
    raises(TypeError, "expected 'indices' to be integer dtype, but got", lambda: rstorch.unravel_index(rstorch.tensor([1.5]), (2, 3)))
    assert rstorch.equal(rstorch.tensor([1]), rstorch.tensor([1.0]))
    assert not rstorch.equal(rstorch.tensor([1.0]), rstorch.tensor([1.0, 1.0]))
    assert not rstorch.equal(rstorch.tensor([float("nan")]), rstorch.tensor([float("nan")]))


def test_gradients_flow_through_the_compositions():
    g = rstorch.Generator().manual_seed(0)
    a = rstorch.rand(2, 3, 4, generator=g, dtype=rstorch.float64, requires_grad=True)
    b = rstorch.rand(4, 3, generator=g, dtype=rstorch.float64, requires_grad=True)
    assert gradcheck(lambda x, y: rstorch.tensordot(x, y, dims=([1, 2], [1, 0])), (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)
    p = rstorch.rand(2, 2, generator=g, dtype=rstorch.float64, requires_grad=True)
    q = rstorch.rand(3, generator=g, dtype=rstorch.float64, requires_grad=True)
    assert gradcheck(lambda x, y: rstorch.block_diag(x, y), (p, q), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradcheck(lambda x, y: rstorch.cartesian_prod(x, y), (q, q.detach().clone().requires_grad_(True)),
                     eps=1e-6, atol=1e-5, rtol=1e-3)
