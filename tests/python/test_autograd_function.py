"""Custom autograd Functions: forward/backward, setup_context and several outputs, mark_dirty,
materialize_grads, create_graph through them, anomaly detection naming them, and the lifetime
of their ctx."""
import pytest

import rstorch as torch
from rstorch.autograd import Function


class MyReLU(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x.clamp(min=0) * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False)
        return grad * (x > 0).float() * ctx.scale, None


def test_custom_function():
    x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    y = MyReLU.apply(x, 2.0)
    assert type(y.grad_fn).__name__ == "MyReLUBackward"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


class SplitTwo(Function):
    @staticmethod
    def forward(x):
        return x * 2, (x > 0)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, g, g_mask):
        return g * 2


def test_custom_function_setup_context_and_several_outputs():
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    y, mask = SplitTwo.apply(x)
    assert not mask.requires_grad
    (y * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


class DoubleInPlace(Function):
    """Doubles its input in place and returns it, marked dirty."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_mark_dirty_returns_the_input_with_the_function_as_history():
    a = torch.ones(3, requires_grad=True)
    b = a.clone()
    before = b._version
    c = DoubleInPlace.apply(b)
    assert c is b and b.tolist() == [2.0, 2.0, 2.0]
    assert type(b.grad_fn).__name__ == "DoubleInPlaceBackward"
    # The in-place write and mark_dirty each bump the version, as in PyTorch.
    assert b._version == before + 2
    (c * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


def test_mark_dirty_gives_an_input_without_history_one():
    class AddInPlace(Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(y)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g * 3

    x, y = torch.zeros(3), torch.ones(3, requires_grad=True)
    out = AddInPlace.apply(x, y)
    assert out is x and x.requires_grad and not x.is_leaf
    assert type(x.grad_fn).__name__ == "AddInPlaceBackward"
    out.sum().backward()
    assert y.grad.tolist() == [3.0, 3.0, 3.0]
    # Without anything requiring grad (or under no_grad) the input is still modified and bumped.
    for grad_mode in (torch.enable_grad, torch.no_grad):
        with grad_mode():
            b = torch.ones(3)
            before = b._version
            assert DoubleInPlace.apply(b) is b
            assert b.tolist() == [2.0, 2.0, 2.0] and b._version == before + 2 and b.grad_fn is None


def test_mark_dirty_of_a_view_rewrites_the_base_history():
    a = torch.ones(2, 3, requires_grad=True)
    b = a.clone()
    v = b[0]
    assert DoubleInPlace.apply(v) is v
    assert b.tolist() == [[2.0] * 3, [1.0] * 3]
    b.sum().backward()
    assert a.grad.tolist() == [[2.0] * 3, [1.0] * 3]


def test_mark_dirty_errors():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place operation."):
        DoubleInPlace.apply(torch.ones(3, requires_grad=True))
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place operation."):
        DoubleInPlace.apply(torch.ones(2, 3, requires_grad=True)[0])

    class NotReturned(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    message = ("Some elements marked as dirty during the forward method were not returned as output. "
               "The inputs that are modified inplace must all be outputs of the Function.")
    for make in (lambda: torch.ones(3), lambda: torch.ones(3, requires_grad=True).clone()):
        with pytest.raises(RuntimeError, match=message):
            NotReturned.apply(make())
    # A saved tensor of an earlier op sees the write.
    a = torch.ones(3, requires_grad=True)
    b = a.clone()
    d = b * b
    DoubleInPlace.apply(b)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        d.sum().backward()


class TwoOutputs(Function):
    """Returns (2x, 3x) and records which gradients its backward received."""
    received = []

    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        TwoOutputs.received.append((None if g1 is None else g1.tolist(), None if g2 is None else g2.tolist()))
        grad = 0
        if g1 is not None:
            grad = grad + g1 * 2
        if g2 is not None:
            grad = grad + g2 * 3
        return grad, None


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    x = torch.ones(2, requires_grad=True)
    TwoOutputs.received.clear()
    y1, y2 = TwoOutputs.apply(x, materialize)
    y1.sum().backward()
    assert TwoOutputs.received == [([1.0, 1.0], [0.0, 0.0] if materialize else None)]
    assert x.grad.tolist() == [2.0, 2.0]
    x.grad = None
    y1, y2 = TwoOutputs.apply(x, materialize)
    (y2 * 2).sum().backward()
    assert TwoOutputs.received[-1] == ([0.0, 0.0] if materialize else None, [2.0, 2.0])
    assert x.grad.tolist() == [6.0, 6.0]


def test_set_materialize_grads_false_lets_backward_return_none():
    class MaybeNone(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, g1, g2):
            return g1  # None when only the second output was used

    x = torch.ones(2, requires_grad=True)
    _, y2 = MaybeNone.apply(x)
    (y2 * 1).sum().backward()
    assert x.grad is None
    y1, _ = MaybeNone.apply(x)
    y1.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_custom_function_create_graph():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert g.tolist() == [12.0] and gg.tolist() == [12.0]


def test_detect_anomaly_names_the_op():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = torch.ones(2, requires_grad=True)
    with torch.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="BadBackward"):
            Bad.apply(x).sum().backward()


def _ctx_outlives_its_graph(keep_output_on_ctx):
    import gc
    import weakref

    contexts = []

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            contexts.append(weakref.ref(ctx))
            y = x * 2
            ctx.save_for_backward(x, y)
            if keep_output_on_ctx:
                ctx.out = y
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.ones(3, requires_grad=True)
    y = Keep.apply(x)
    y.sum().backward(retain_graph=True)
    del y
    gc.collect()
    return contexts[0]() is not None


def test_function_ctx_does_not_keep_its_graph_alive():
    assert not _ctx_outlives_its_graph(keep_output_on_ctx=False)


def test_function_ctx_holding_its_output_is_collected():
    assert not _ctx_outlives_its_graph(keep_output_on_ctx=True)
