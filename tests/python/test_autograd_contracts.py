"""What hooks and custom Functions may return in backward, checked as PyTorch checks it.

The messages are those the reference PyTorch (/work/torchref, torch 2.15) raises for the same
programs."""
import pytest
import rstorch as torch
from rstorch import nn


def backward_through_leaf_hook(hook):
    x = torch.ones(3, requires_grad=True)
    x.register_hook(hook)
    (x * 2).sum().backward()
    return x


def backward_through_hook(hook):
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    return x


@pytest.mark.parametrize("run", [backward_through_leaf_hook, backward_through_hook], ids=["leaf", "non-leaf"])
def test_tensor_hook_changing_shape_or_dtype_raises(run):
    with pytest.raises(RuntimeError, match=r"^hook '<lambda>' has changed the size of value$"):
        run(lambda g: torch.ones(4))
    with pytest.raises(RuntimeError, match=r"^hook '<lambda>' has changed the size of value$"):
        run(lambda g: torch.ones(1))  # broadcastable is not enough
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has changed the type of value "
                                           r"\(was torch\.FloatTensor got torch\.LongTensor\)"):
        run(lambda g: torch.ones(3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"was torch\.FloatTensor got torch\.DoubleTensor"):
        run(lambda g: torch.ones(4, dtype=torch.float64))  # the type is checked first

    def myhook(g):
        return g.view(3, 1)
    with pytest.raises(RuntimeError, match="hook 'myhook' has changed the size of value"):
        run(myhook)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        run(lambda g: 5)
    # Returning None or a gradient of the same shape and dtype is fine.
    assert run(lambda g: None).grad.tolist() == [2.0, 2.0, 2.0]
    assert run(lambda g: g * 3).grad.tolist() == [6.0, 6.0, 6.0]


def test_node_hooks_changing_shape_raise():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (torch.ones(5), None))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        y.sum().backward()
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (torch.ones(5),))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        y.sum().backward()


def run_linear(register):
    m = nn.Linear(3, 2)
    register(m)
    x = torch.ones(4, 3, requires_grad=True)
    m(x).sum().backward()
    return x


def test_module_full_backward_hooks_check_what_they_return():
    with pytest.raises(RuntimeError, match=r"^hook 'hook' has changed the size of value$"):
        run_linear(lambda m: m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(5),)))
    with pytest.raises(RuntimeError, match=r"hook 'hook' has changed the type of value "
                                           r"\(was torch\.FloatTensor got torch\.DoubleTensor\)"):
        run_linear(lambda m: m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(4, 3, dtype=torch.float64),)))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input, got 2, but expected 1"):
        run_linear(lambda m: m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(4, 3), torch.ones(1))))
    with pytest.raises(RuntimeError, match=r"^hook 'hook' has changed the size of value$"):
        run_linear(lambda m: m.register_full_backward_pre_hook(lambda mod, go: (torch.ones(5),)))
    with pytest.raises(RuntimeError, match=r"was torch\.FloatTensor got torch\.LongTensor"):
        run_linear(lambda m: m.register_full_backward_pre_hook(lambda mod, go: (torch.ones(4, 2, dtype=torch.int64),)))
    x = run_linear(lambda m: m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,)))
    assert x.grad.tolist() == [[0.0] * 3] * 4


def function_returning(result_of, n_inputs=2):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            return args[0] * 2

        @staticmethod
        def backward(ctx, g):
            return result_of(g)

    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    F.apply(*(a, b)[:n_inputs]).sum().backward()
    return a


def test_function_backward_gradient_count():
    with pytest.raises(RuntimeError, match=r"^function FBackward returned an incorrect number of gradients \(expected 2, got 1\)$"):
        function_returning(lambda g: g)
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 1\)"):
        function_returning(lambda g: (g,))
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 3\)"):
        function_returning(lambda g: (g, g, g))
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 3\)"):
        function_returning(lambda g: (g, None, g))
    # Extra trailing Nones are allowed.
    assert function_returning(lambda g: (g * 2, g, None)).grad.tolist() == [2.0, 2.0]
    assert function_returning(lambda g: (g * 2, g, None, None)).grad.tolist() == [2.0, 2.0]


def test_function_backward_gradient_shape_and_type():
    with pytest.raises(RuntimeError, match=r"Function FBackward returned an invalid gradient at index 0 - "
                                           r"got \[5\] but expected shape compatible with \[2\]"):
        function_returning(lambda g: (torch.ones(5), None))
    with pytest.raises(RuntimeError, match=r"got \[1\] but expected shape compatible with \[2\]"):
        function_returning(lambda g: (torch.ones(1), None))
    # A gradient the input broadcasts to is summed back to the input's shape.
    assert function_returning(lambda g: (torch.ones(3, 2), None)).grad.tolist() == [3.0, 3.0]
    # Another dtype is cast to the input's.
    a = function_returning(lambda g: (torch.ones(2, dtype=torch.float64) * 3, None))
    assert a.grad.dtype == torch.float32 and a.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got int\)"):
        function_returning(lambda g: (3, None))


def test_function_gradient_for_a_non_tensor_argument():
    class G(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    a = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="function GBackward returned a gradient different than None at position 2, "
                                           "but the corresponding forward input was not a Variable"):
        G.apply(a, 3.0).sum().backward()

    class H(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(RuntimeError, match=r"function HBackward returned an incorrect number of gradients \(expected 2, got 1\)"):
        H.apply(a, 3.0).sum().backward()
