"""nn.Module's call path and hooks: forward pre-hooks and hooks (with kwargs, always_call,
global ones, registration hooks) and backward hooks, with PyTorch's semantics and warnings."""
import warnings

import numpy as np
import pytest

import rstorch as torch
import rstorch.nn as nn
from rstorch.nn.modules import module as module_mod

from _nn_module_helpers import MyLinear, close


# ---- calling and forward hooks -------------------------------------------------------------

def test_call_without_hooks_is_forward():
    class Echo(nn.Module):
        def forward(self, *args, **kwargs):
            return args, kwargs

    assert Echo()(1, 2, k=3) == ((1, 2), {"k": 3})


def test_forward_not_implemented():
    with pytest.raises(NotImplementedError) as info:
        nn.Module()(torch.ones(1))
    assert str(info.value) == 'Module [Module] is missing the required "forward" function'


def test_init_rejects_arguments():
    class M(nn.Module):
        def __init__(self):
            super().__init__(3)

    with pytest.raises(TypeError, match=r"M.__init__\(\) takes 1 positional argument but 2 were given"):
        M()
    with pytest.raises(TypeError, match=r"Module.__init__\(\) got an unexpected keyword argument 'a'"):
        nn.Module(a=1)


def test_hook_call_order():
    order = []

    class Rec(nn.Module):
        def forward(self, x):
            order.append("forward")
            return x + 1

    m = Rec()
    m.register_forward_pre_hook(lambda mod, args: order.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: order.append("pre2"))
    m.register_forward_hook(lambda mod, args, out: order.append("hook1"))
    m.register_forward_pre_hook(lambda mod, args: order.append("pre0"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: order.append("hook0"), prepend=True)
    m(torch.zeros(1))
    assert order == ["pre0", "pre1", "pre2", "forward", "hook0", "hook1"]


def test_pre_hook_replaces_input_and_hook_replaces_output():
    class AddOne(nn.Module):
        def forward(self, x):
            return x + 1

    m = AddOne()
    seen = {}

    def pre(mod, args):
        seen["args"] = args
        return args[0] * 10  # not a tuple: wrapped into one

    def hook(mod, args, output):
        seen["hook_args"] = args
        seen["output"] = output
        return output * 2

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(hook)
    out = m(torch.tensor([1.0]))
    assert isinstance(seen["args"], tuple) and seen["args"][0].tolist() == [1.0]
    assert isinstance(seen["hook_args"], tuple) and seen["hook_args"][0].tolist() == [10.0]
    assert seen["output"].tolist() == [11.0]
    assert out.tolist() == [22.0]
    h1.remove()
    h2.remove()
    h2.remove()  # removing twice is harmless
    assert m(torch.tensor([1.0])).tolist() == [2.0]
    assert not m._forward_hooks and not m._forward_pre_hooks


def test_hooks_with_kwargs():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()

    def pre(mod, args, kwargs):
        return args, {"factor": kwargs.get("factor", 1.0) + 1}

    def hook(mod, args, kwargs, output):
        assert kwargs == {"factor": 4.0}
        return output + 1

    m.register_forward_pre_hook(pre, with_kwargs=True)
    m.register_forward_hook(hook, with_kwargs=True)
    assert m(torch.tensor([1.0]), factor=3.0).tolist() == [5.0]
    bad = m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5."):
        m(torch.tensor([1.0]))
    bad.remove()
    assert not any(k == bad.id for k in m._forward_pre_hooks_with_kwargs)


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: calls.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(torch.ones(1))
    assert calls == [("always", None)]


def test_handle_as_context_manager():
    m = nn.Identity()
    calls = []
    with m.register_forward_hook(lambda mod, a, o: calls.append(1)):
        m(torch.ones(1))
    m(torch.ones(1))
    assert calls == [1]


def test_global_forward_hooks():
    calls = []
    h1 = module_mod.register_module_forward_pre_hook(lambda mod, args: calls.append("gpre"))
    h2 = module_mod.register_module_forward_hook(lambda mod, args, out: calls.append("ghook"))
    try:
        m = nn.Identity()
        m.register_forward_hook(lambda mod, args, out: calls.append("hook"))
        m(torch.ones(1))
    finally:
        h1.remove()
        h2.remove()
    assert calls == ["gpre", "ghook", "hook"]
    assert not module_mod._global_forward_hooks and not module_mod._global_forward_pre_hooks


def test_global_registration_hooks_can_replace_values():
    seen = []

    def on_param(mod, name, param):
        seen.append(("param", name))

    def on_buffer(mod, name, buf):
        seen.append(("buffer", name))
        return torch.full((1,), 9.0)

    def on_module(mod, name, sub):
        seen.append(("module", name))

    handles = [module_mod.register_module_parameter_registration_hook(on_param),
               module_mod.register_module_buffer_registration_hook(on_buffer),
               module_mod.register_module_module_registration_hook(on_module)]
    try:
        m = nn.Module()
        m.w = nn.Parameter(torch.ones(1))
        m.register_buffer("b", torch.zeros(1))
        m.sub = nn.ReLU()
    finally:
        for h in handles:
            h.remove()
    assert seen == [("param", "w"), ("buffer", "b"), ("module", "sub")]
    assert m.b.tolist() == [9.0]


def test_global_full_backward_hook():
    seen = []
    handle = module_mod.register_module_full_backward_hook(
        lambda mod, gi, go: seen.append(type(mod).__name__))
    try:
        net = nn.Sequential(MyLinear(3, 2), nn.Tanh())
        net(torch.randn(2, 3, requires_grad=True)).sum().backward()
    finally:
        handle.remove()
    # Inner modules finish their backward first; the Sequential's inputs come last.
    assert seen == ["Tanh", "MyLinear", "Sequential"]


# ---- backward hooks -------------------------------------------------------------------------

def test_full_backward_hook_values():
    torch.manual_seed(0)
    m = MyLinear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    g = torch.randn(4, 2)
    seen = []

    def hook(mod, grad_input, grad_output):
        seen.append((mod, grad_input, grad_output))

    m.register_full_backward_hook(hook)
    y = m(x)
    (y * g).sum().backward()
    assert len(seen) == 1
    mod, grad_input, grad_output = seen[0]
    assert mod is m
    assert isinstance(grad_input, tuple) and len(grad_input) == 1
    assert isinstance(grad_output, tuple) and len(grad_output) == 1
    assert close(grad_output[0], g)
    expected_gx = g.numpy() @ m.weight.detach().numpy()
    assert close(grad_input[0], expected_gx)
    assert close(x.grad, expected_gx)
    # Parameter gradients are unaffected by the hook machinery.
    assert close(m.weight.grad, g.numpy().T @ x.detach().numpy())
    assert close(m.bias.grad, g.numpy().sum(0))


def test_full_backward_hook_can_replace_grad_input():
    m = MyLinear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0 + 5,))
    m(x).sum().backward()
    assert close(x.grad, np.full((4, 3), 5.0))
    m2 = MyLinear(3, 2)
    m2.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of "
                                           "grad_input, got 2, but expected 1"):
        m2(torch.randn(4, 3, requires_grad=True)).sum().backward()


def test_backward_pre_hook_replaces_grad_output():
    m = MyLinear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    order = []

    def pre(mod, grad_output):
        order.append("pre")
        return (grad_output[0] * 2,)

    def hook(mod, grad_input, grad_output):
        order.append("hook")
        assert close(grad_output[0], np.full((4, 2), 2.0))

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(hook)
    m(x).sum().backward()
    assert order == ["pre", "hook"]
    assert close(x.grad, np.full((4, 2), 2.0) @ m.weight.detach().numpy())
    assert close(m.weight.grad, np.full((4, 2), 2.0).T @ x.detach().numpy())


def test_full_backward_hook_non_tensor_and_no_grad_inputs():
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(3))

        def forward(self, x, scale):
            return x * self.w * scale

    m = Scaled()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    x = torch.ones(3, requires_grad=True)
    m(x, 2.0).sum().backward()
    grad_input, grad_output = seen[-1]
    assert len(grad_input) == 2 and grad_input[1] is None
    assert close(grad_input[0], [2.0, 2.0, 2.0])
    # Input that does not require grad: hook still runs, grad_input is all None.
    m(torch.ones(3), 2.0).sum().backward()
    grad_input, grad_output = seen[-1]
    assert grad_input == (None, None)
    assert close(grad_output[0], [1.0, 1.0, 1.0])
    assert close(m.w.grad, [4.0, 4.0, 4.0])


def test_backward_hook_input_does_not_start_requiring_grad():
    class Check(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))

        def forward(self, x, y):
            assert not y.requires_grad
            return x * self.w + y

    m = Check()
    m.register_full_backward_hook(lambda mod, gi, go: None)
    m(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward()


def test_backward_hook_removal_and_multiple_outputs():
    class Two(nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    m = Two()
    seen = []
    handle = m.register_full_backward_hook(lambda mod, gi, go: seen.append(go))
    x = torch.ones(2, requires_grad=True)
    a, b = m(x)
    (a.sum() + 10 * b.sum()).backward()
    assert close(seen[0][0], [1.0, 1.0]) and close(seen[0][1], [10.0, 10.0])
    assert close(x.grad, [32.0, 32.0])
    handle.remove()
    a, b = m(x)
    a.sum().backward()
    assert len(seen) == 1


def test_mixing_backward_hook_kinds_raises():
    m = MyLinear(2, 2)
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full "
                                           "backward hooks on a single Module"):
        m.register_backward_hook(lambda *a: None)
    m2 = MyLinear(2, 2)
    m2.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        m2.register_full_backward_hook(lambda *a: None)


def test_deprecated_backward_hook_runs_on_the_output_node():
    m = MyLinear(3, 2)
    seen = []
    m.register_backward_hook(lambda mod, gi, go: seen.append((mod, go)))
    x = torch.randn(4, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(x).sum().backward()
    assert len(seen) == 1 and seen[0][0] is m
    assert close(seen[0][1][0], np.ones((4, 2)))


def test_backward_hooks_on_nested_modules_and_retained_graph():
    inner = MyLinear(3, 3)
    outer = nn.Sequential(inner, nn.Tanh())
    calls = []
    inner.register_full_backward_hook(lambda m, gi, go: calls.append("inner"))
    outer.register_full_backward_hook(lambda m, gi, go: calls.append("outer"))
    x = torch.randn(2, 3, requires_grad=True)
    y = outer(x).sum()
    y.backward(retain_graph=True)
    assert calls == ["inner", "outer"]
    y.backward()
    assert calls == ["inner", "outer", "inner", "outer"]
    # Same gradients as without hooks (two backward passes accumulate).
    x2 = x.detach().requires_grad_()
    (x2 @ inner.weight.t() + inner.bias).tanh().sum().backward()
    assert close(x.grad, x2.grad * 2)


def test_training_step_updates_parameters():
    torch.manual_seed(3)
    net = nn.Sequential(MyLinear(4, 8), nn.ReLU(), MyLinear(8, 1))
    x, target = torch.randn(16, 4), torch.randn(16, 1)

    def loss_value():
        return ((net(x) - target) ** 2).mean()

    first = loss_value().item()
    for _ in range(50):
        net.zero_grad()
        loss = loss_value()
        loss.backward()
        with torch.no_grad():
            for p in net.parameters():
                p.sub_(0.05 * p.grad)
    assert loss_value().item() < first
    assert all(p.is_leaf and p.requires_grad for p in net.parameters())
