"""`grad_fn` objects keep one Python identity for the life of their node (as PyTorch's do), and
holding them never keeps a graph alive longer than the objects themselves are held."""
import gc

import rstorch as torch
import rstorch.viz


class Probe:
    """A hook whose finalizer records that the node holding it was freed."""

    def __init__(self, log):
        self.log = log

    def __call__(self, grad):
        return None

    def __del__(self):
        self.log.append("freed")


def test_grad_fn_is_one_object_per_node():
    x = torch.ones(2, requires_grad=True)
    y = (x * 2 + 1).sum()
    assert y.grad_fn is y.grad_fn
    first = id(y.grad_fn.next_functions[0][0])
    junk = [type("Junk", (), {})() for _ in range(100)]  # noqa: F841 (reuses freed memory)
    assert id(y.grad_fn.next_functions[0][0]) == first
    assert y.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[0][0]
    y.grad_fn.metadata["k"] = 1
    assert y.grad_fn.metadata == {"k": 1}


def test_id_keyed_walk_sees_every_node():
    # PyTorch: 200 * (Mul, Sin, Add) + the leaf's AccumulateGrad = 601 nodes, walked with a set
    # of ids only (the objects are not kept by the walk).
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(200):
        y = (y * 1.5).sin() + y
    seen, stack = set(), [y.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        stack.extend(n for n, _ in f.next_functions)
    assert len(seen) == 601
    dot = rstorch.viz.make_dot(y).source
    assert dot.count("[label=MulBackward0]") == 200 and dot.count("[label=AddBackward0]") == 200


def test_graph_freed_by_reference_counting_after_its_objects_were_used():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        log = []
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(Probe(log))
        z = y.sum()
        f, g = z.grad_fn, z.grad_fn.next_functions[0][0]
        assert g is y.grad_fn
        del f, g, y
        assert log == []
        del z
        assert log == ["freed"]
    finally:
        if was_enabled:
            gc.enable()


def test_held_grad_fn_keeps_its_graph_until_released():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        log = []
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(Probe(log))
        z = y.sum()
        f = z.grad_fn
        del y, z
        assert log == []
        nxt = f.next_functions[0][0]
        assert type(nxt).__name__ == "MulBackward0"
        del nxt
        assert log == []
        del f
        assert log == ["freed"]
    finally:
        if was_enabled:
            gc.enable()


def test_cycle_through_a_function_ctx_is_collected():
    log = []

    class Keep(torch.autograd.Function):
        @staticmethod
        def forward(a):
            return a * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.out = output  # ctx -> output -> node -> backward -> ctx

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.ones(2, requires_grad=True)
    y = Keep.apply(x)
    y.register_hook(Probe(log))
    assert y.grad_fn is y.grad_fn
    del y
    gc.collect()
    assert log == ["freed"]
