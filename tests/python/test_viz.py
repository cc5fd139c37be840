"""rstorch.viz.make_dot draws what torchviz draws: the graphs of tests/viz_cases.py compared with
torchviz's drawings of the same graphs in PyTorch (fixtures/viz.json, tests/record_viz.py), and the
`_saved_*` attributes of the nodes and `Tensor._base` it reads, as PyTorch gives them."""
import json
import pathlib
import sys

import pytest

import rstorch as torch
from rstorch.viz import make_dot

graphviz = pytest.importorskip("graphviz")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import viz_cases  # noqa: E402 (tests/ is put on the path just above)

FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "viz.json").read_text())
DRAWN = viz_cases.cases(torch, make_dot)


@pytest.mark.parametrize("name", sorted(FIXTURE))
def test_drawing_matches_torchviz(name):
    assert DRAWN[name] == FIXTURE[name]


def test_returns_a_graphviz_digraph():
    w = torch.randn(3, 2, requires_grad=True)
    dot = make_dot((torch.randn(4, 3) @ w).sum(), params={"weight": w})
    assert isinstance(dot, graphviz.Digraph)
    assert 'label="weight\n (3, 2)" fillcolor=lightblue' in dot.source
    with pytest.raises(AssertionError):
        make_dot(w.sum(), params={"weight": 1.0})


def test_saved_attributes_as_pytorch():
    x = torch.randn(2, 3, requires_grad=True)
    w = torch.randn(2, 3, requires_grad=True)
    m = x * w
    y = m.exp()
    f = y.grad_fn
    assert m.grad_fn._saved_self is x and m.grad_fn._saved_other is w
    r = f._saved_result
    assert r.grad_fn is f and r.requires_grad and torch.equal(r, y)
    assert "_saved_result" in dir(f) and "_saved_self" not in dir(f)
    s = x.sum(1)
    assert (s.grad_fn._saved_dim, s.grad_fn._saved_keepdim, s.grad_fn._saved_self_sym_sizes) == ((1,), False, (2, 3))
    mm = x @ w.t()
    assert mm.grad_fn._saved_self is x and mm.grad_fn._saved_mat2.shape == (3, 2)
    with pytest.raises(AttributeError):
        _ = f._saved_other
    with pytest.raises(AttributeError):
        _ = x.sum().grad_fn.saved_tensors
    y.sum().backward()
    s.sum().backward()
    # Freed by backward: the tensors raise PyTorch's error, the other arguments stay.
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = f._saved_result
    with pytest.raises(RuntimeError, match="directly access saved tensors after they have already been freed"):
        _ = m.grad_fn._saved_self
    assert s.grad_fn._saved_dim == (1,)


def test_saved_tensors_of_a_python_function():
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return 2 * t

        @staticmethod
        def backward(ctx, g):
            return 2 * g
    x = torch.randn(3, requires_grad=True)
    (saved,) = Twice.apply(x).grad_fn.saved_tensors
    assert saved is x


def test_view_base():
    x = torch.randn(2, 3, requires_grad=True)
    y = x * 2
    assert x.view(-1)._base is x and x[0].view(3)._base is x
    # A non-leaf's Python object is not kept by its tensor: the base is the same tensor (storage,
    # shape, node), not always the same object as PyTorch gives.
    for view in (y.view(-1), y[0], y.view(-1).view(3, 2)):
        base = view._base
        assert base.grad_fn is y.grad_fn and base.data_ptr() == y.data_ptr() and base.shape == y.shape
    assert x._base is None and y._base is None
