"""nn.Module, nn.Parameter, containers and simple layers, with PyTorch's semantics and
messages. Rule tests use small modules whose forward uses Tensor methods only."""
import copy
import math
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import rstorch as torch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.nn.modules import module as module_mod


def close(a, b, tol=1e-5):
    a = a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, atol=tol, rtol=tol)


class MyLinear(nn.Module):
    """A Linear built from Tensor methods, so that the rule tests need no functional."""

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in))
        if bias:
            self.bias = nn.Parameter(torch.randn(n_out))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        y = x @ self.weight.t()
        return y + self.bias if self.bias is not None else y


class Net(nn.Module):
    """fc1 -> (bn-like buffers) -> block(fc2) with a persistent and a non-persistent buffer."""

    def __init__(self):
        super().__init__()
        self.fc1 = MyLinear(3, 4)
        self.register_buffer("running_mean", torch.zeros(4))
        self.register_buffer("scratch", torch.ones(4), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))
        self.block = nn.Sequential(MyLinear(4, 2), nn.ReLU())

    def forward(self, x):
        return self.block(self.fc1(x) * self.scale)


# ---- Parameter -----------------------------------------------------------------------------

def test_parameter_is_tensor_and_requires_grad_by_default():
    data = torch.randn(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, torch.Tensor) and isinstance(p, nn.Parameter)
    assert type(p) is nn.Parameter
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    # Shares memory with the data it wraps.
    with torch.no_grad():
        p[0, 0] = 42.0
    assert data[0, 0].item() == 42.0


def test_parameter_from_tensor_with_history_is_a_leaf():
    x = torch.randn(3, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_parameter_none_is_empty():
    p = nn.Parameter()
    assert p.shape == (0,) and p.requires_grad and p.dtype == torch.float32


def test_parameter_repr():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert str(p) == repr(p)
    q = nn.Parameter(torch.tensor([1.0]), requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([1.])"


def test_ops_on_parameter_give_plain_tensors():
    p = nn.Parameter(torch.ones(2))
    assert type(p * 2) is torch.Tensor
    assert type(p.detach()) is torch.Tensor
    assert type(p.data) is torch.Tensor and not p.data.requires_grad


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    p.grad = torch.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q is not p and q.requires_grad
    assert q.tolist() == [1.0, 2.0]
    assert q.grad is None  # as in PyTorch, a copied Parameter starts without a grad
    with torch.no_grad():
        q[0] = 5.0
    assert p[0].item() == 1.0
    r = pickle.loads(pickle.dumps(nn.Parameter(torch.tensor([3.0]), requires_grad=False)))
    assert type(r) is nn.Parameter and r.tolist() == [3.0] and not r.requires_grad


def test_tensor_deepcopy_keeps_grad_and_refuses_non_leaves():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.grad = torch.tensor([0.5, 0.5])
    y = copy.deepcopy(x)
    assert y.requires_grad and y.grad.tolist() == [0.5, 0.5] and y is not x
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)
    z = pickle.loads(pickle.dumps(torch.arange(4, dtype=torch.int64)))
    assert z.dtype == torch.int64 and z.tolist() == [0, 1, 2, 3]


# ---- __setattr__ / __getattr__ / __delattr__ routing ---------------------------------------

def test_parameter_assignment_registers():
    m = MyLinear(3, 2)
    assert list(m._parameters) == ["weight", "bias"]
    assert "weight" not in m.__dict__
    assert m.weight is m._parameters["weight"]


def test_assign_parameter_before_init_raises():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torch.ones(1))
            super().__init__()

    with pytest.raises(AttributeError) as info:
        Bad()
    assert str(info.value) == "cannot assign parameters before Module.__init__() call"


def test_assign_module_or_buffer_before_init_raises():
    class BadModule(nn.Module):
        def __init__(self):
            self.sub = nn.ReLU()

    with pytest.raises(AttributeError) as info:
        BadModule()
    assert str(info.value) == "cannot assign module before Module.__init__() call"

    class BadBuffer(nn.Module):
        def __init__(self):
            self.register_buffer("b", torch.ones(1))

    with pytest.raises(AttributeError) as info:
        BadBuffer()
    assert str(info.value) == "cannot assign buffer before Module.__init__() call"


def test_assign_tensor_where_parameter_lives_raises():
    m = MyLinear(3, 2)
    with pytest.raises(TypeError) as info:
        m.weight = torch.ones(2, 3)
    assert str(info.value) == ("cannot assign 'rstorch.FloatTensor' as parameter 'weight' "
                               "(torch.nn.Parameter or None expected)")
    with pytest.raises(TypeError) as info:
        m.bias = 3
    assert str(info.value) == ("cannot assign 'int' as parameter 'bias' "
                               "(torch.nn.Parameter or None expected)")
    with pytest.raises(TypeError, match="'rstorch.DoubleTensor' as parameter"):
        m.weight = torch.ones(2, 3, dtype=torch.float64)


def test_assign_none_to_parameter_keeps_the_slot():
    m = MyLinear(3, 2)
    m.bias = None
    assert "bias" in m._parameters and m._parameters["bias"] is None
    assert m.bias is None
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    assert list(m.state_dict()) == ["weight"]
    m.bias = nn.Parameter(torch.zeros(2))
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]


def test_parameter_assignment_removes_other_kinds_of_the_same_name():
    m = nn.Module()
    m.thing = 5
    m.thing = nn.Parameter(torch.ones(1))
    assert "thing" not in m.__dict__ and "thing" in m._parameters
    m.register_buffer("buf", torch.ones(1), persistent=False)
    m.buf = nn.Parameter(torch.ones(1))
    assert "buf" not in m._buffers and "buf" not in m._non_persistent_buffers_set
    assert "buf" in m._parameters
    m.sub = nn.ReLU()
    m.sub = nn.Parameter(torch.ones(1))
    assert "sub" not in m._modules and "sub" in m._parameters


def test_module_assignment_registers_and_replaces_other_kinds():
    m = nn.Module()
    m.child = nn.ReLU()
    assert m._modules["child"] is m.child and "child" not in m.__dict__
    m.register_buffer("b", torch.ones(1), persistent=False)
    m.b = nn.Tanh()
    assert "b" not in m._buffers and "b" not in m._non_persistent_buffers_set
    assert isinstance(m._modules["b"], nn.Tanh)
    # A parameter slot only takes a Parameter or None, even when the value is a Module.
    m.p = nn.Parameter(torch.ones(1))
    with pytest.raises(TypeError) as info:
        m.p = nn.Tanh()
    assert str(info.value) == ("cannot assign 'rstorch.nn.modules.activation.Tanh' as parameter "
                               "'p' (torch.nn.Parameter or None expected)")
    with pytest.raises(TypeError) as info:
        m.child = 3
    assert str(info.value) == ("cannot assign 'int' as child module 'child' "
                               "(torch.nn.Module or None expected)")
    m.child = None
    assert m._modules["child"] is None and m.child is None
    assert list(m.named_children()) == [("b", m.b)]


def test_modules_inside_plain_containers_are_not_registered():
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.as_list = [nn.ReLU(), MyLinear(2, 2)]
            self.as_dict = {"a": MyLinear(2, 2)}
            setattr(self, "via_setattr", MyLinear(2, 2))

    h = Holder()
    assert list(h._modules) == ["via_setattr"]
    assert [n for n, _ in h.named_parameters()] == ["via_setattr.weight", "via_setattr.bias"]
    assert "as_list" in h.__dict__ and "as_dict" in h.__dict__


def test_tensor_assigned_to_buffer_name_updates_the_buffer():
    m = nn.Module()
    m.register_buffer("stat", torch.zeros(2), persistent=False)
    new = torch.ones(2)
    m.stat = new
    assert m._buffers["stat"] is new and "stat" not in m.__dict__
    assert "stat" in m._non_persistent_buffers_set  # persistence is kept
    m.stat = None
    assert m._buffers["stat"] is None
    with pytest.raises(TypeError) as info:
        m.stat = 3
    assert str(info.value) == "cannot assign 'int' as buffer 'stat' (torch.Tensor or None expected)"
    # A tensor under a new name is a plain attribute, not a buffer.
    m.plain = torch.ones(1)
    assert "plain" in m.__dict__ and "plain" not in m._buffers


def test_getattr_message():
    class MyNet(nn.Module):
        pass

    with pytest.raises(AttributeError) as info:
        MyNet().x
    assert str(info.value) == "'MyNet' object has no attribute 'x'"
    assert not hasattr(MyNet(), "x")


def test_delattr_for_each_kind():
    m = Net()
    del m.scale
    assert "scale" not in m._parameters
    del m.scratch
    assert "scratch" not in m._buffers and "scratch" not in m._non_persistent_buffers_set
    del m.block
    assert "block" not in m._modules
    m.plain = 1
    del m.plain
    assert not hasattr(m, "plain")
    with pytest.raises(AttributeError):
        del m.nothing


def test_dir_lists_parameters_buffers_and_children():
    names = dir(Net())
    for n in ["fc1", "block", "scale", "running_mean", "scratch", "forward", "training"]:
        assert n in names
    assert names == sorted(names)
    assert "0" not in dir(nn.Sequential(nn.ReLU()))


# ---- register_parameter / register_buffer / add_module -------------------------------------

def test_register_parameter_errors():
    m = MyLinear(2, 2)
    p = nn.Parameter(torch.ones(1))
    with pytest.raises(KeyError) as info:
        m.register_parameter("a.b", p)
    assert info.value.args[0] == 'parameter name can\'t contain "."'
    with pytest.raises(KeyError) as info:
        m.register_parameter("", p)
    assert info.value.args[0] == 'parameter name can\'t be empty string ""'
    m.other = 1
    with pytest.raises(KeyError) as info:
        m.register_parameter("other", p)
    assert info.value.args[0] == "attribute 'other' already exists"
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        m.register_parameter("forward", p)
    with pytest.raises(TypeError) as info:
        m.register_parameter("t", torch.ones(1))
    assert str(info.value) == ("cannot assign 'rstorch.FloatTensor' object to parameter 't' "
                               "(torch.nn.Parameter or None required)")
    with pytest.raises(TypeError, match="parameter name should be a string. Got int"):
        m.register_parameter(1, p)
    # Re-registering an existing parameter name is allowed.
    m.register_parameter("weight", p)
    assert m.weight is p
    m.register_parameter("nothing", None)
    assert m._parameters["nothing"] is None


def test_register_buffer_errors_and_persistence():
    m = nn.Module()
    with pytest.raises(KeyError) as info:
        m.register_buffer("a.b", torch.ones(1))
    assert info.value.args[0] == 'buffer name can\'t contain "."'
    with pytest.raises(KeyError) as info:
        m.register_buffer("", torch.ones(1))
    assert info.value.args[0] == 'buffer name can\'t be empty string ""'
    m.x = 1
    with pytest.raises(KeyError) as info:
        m.register_buffer("x", torch.ones(1))
    assert info.value.args[0] == "attribute 'x' already exists"
    with pytest.raises(TypeError, match="buffer name should be a string. Got int"):
        m.register_buffer(1, torch.ones(1))
    with pytest.raises(TypeError) as info:
        m.register_buffer("b", [1.0])
    assert str(info.value) == ("cannot assign 'list' object to buffer 'b' "
                               "(torch Tensor or None required)")
    m.register_buffer("kept", torch.ones(1))
    m.register_buffer("dropped", torch.zeros(1), persistent=False)
    m.register_buffer("empty", None)
    assert [n for n, _ in m.named_buffers()] == ["kept", "dropped"]
    assert list(m.state_dict()) == ["kept"]
    # Registering again as persistent makes it persistent.
    m.register_buffer("dropped", torch.zeros(1))
    assert list(m.state_dict()) == ["kept", "dropped"]


def test_add_module_errors():
    m = nn.Module()
    with pytest.raises(TypeError) as info:
        m.add_module("x", 3)
    assert str(info.value) == "int is not a Module subclass"
    with pytest.raises(KeyError) as info:
        m.add_module("a.b", nn.ReLU())
    assert info.value.args[0] == 'module name can\'t contain ".", got: a.b'
    with pytest.raises(KeyError) as info:
        m.add_module("", nn.ReLU())
    assert info.value.args[0] == 'module name can\'t be empty string ""'
    with pytest.raises(TypeError, match="module name should be a string. Got int"):
        m.add_module(3, nn.ReLU())
    m.attr = 1
    with pytest.raises(KeyError, match="attribute 'attr' already exists"):
        m.add_module("attr", nn.ReLU())
    m.add_module("r", nn.ReLU())
    m.register_module("t", nn.Tanh())
    m.add_module("none", None)
    assert list(m._modules) == ["r", "t", "none"]


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("") is net
    assert net.get_submodule("block.0") is net.block[0]
    assert net.get_parameter("block.0.weight") is net.block[0].weight
    assert net.get_parameter("scale") is net.scale
    assert net.get_buffer("running_mean") is net.running_mean
    with pytest.raises(AttributeError) as info:
        net.get_submodule("block.7")
    assert str(info.value) == "Sequential has no attribute `7`"
    with pytest.raises(AttributeError) as info:
        net.get_submodule("scale")
    assert str(info.value) == "`scale` is not an nn.Module"
    with pytest.raises(AttributeError) as info:
        net.get_parameter("running_mean")
    assert str(info.value) == "`running_mean` is not an nn.Parameter"
    with pytest.raises(AttributeError) as info:
        net.get_buffer("scale")
    assert str(info.value) == "`scale` is not a buffer"
    with pytest.raises(AttributeError) as info:
        net.get_parameter("fc1.nope")
    assert str(info.value) == "MyLinear has no attribute `nope`"


def test_set_submodule():
    net = Net()
    new = nn.Tanh()
    net.set_submodule("block.1", new)
    assert net.block[1] is new
    with pytest.raises(AttributeError, match="has no attribute `zz`"):
        net.set_submodule("block.zz", nn.ReLU(), strict=True)
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name!"):
        net.set_submodule("", nn.ReLU())


# ---- traversal ----------------------------------------------------------------------------

def test_named_parameters_order_prefix_and_recurse():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "block.0.weight", "block.0.bias"]
    assert [n for n, _ in net.named_parameters(prefix="model")] == [
        "model.scale", "model.fc1.weight", "model.fc1.bias", "model.block.0.weight",
        "model.block.0.bias"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [p for p in net.parameters()] == [p for _, p in net.named_parameters()]
    assert len(list(net.parameters(recurse=False))) == 1


def test_shared_parameters_and_modules_listed_once():
    shared = MyLinear(2, 2)

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = shared
            self.b = shared
            self.c = MyLinear(2, 2)
            self.c.weight = self.a.weight

    t = Tied()
    assert [n for n, _ in t.named_parameters()] == ["a.weight", "a.bias", "c.bias"]
    assert len(list(t.parameters())) == 3
    all_names = [n for n, _ in t.named_parameters(remove_duplicate=False)]
    assert all_names == ["a.weight", "a.bias", "b.weight", "b.bias", "c.weight", "c.bias"]
    assert [n for n, _ in t.named_modules()] == ["", "a", "c"]
    assert [n for n, _ in t.named_modules(remove_duplicate=False)] == ["", "a", "b", "c"]
    assert [n for n, _ in t.named_children()] == ["a", "c"]
    # state_dict keeps every name.
    assert list(t.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias", "c.weight",
                                    "c.bias"]


def test_named_buffers_and_modules():
    net = Net()
    assert [n for n, _ in net.named_buffers()] == ["running_mean", "scratch"]
    assert [n for n, _ in net.named_buffers(prefix="p", recurse=False)] == [
        "p.running_mean", "p.scratch"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "block", "block.0", "block.1"]
    assert [n for n, _ in net.named_modules(prefix="root")] == [
        "root", "root.fc1", "root.block", "root.block.0", "root.block.1"]
    assert list(net.modules())[0] is net
    assert list(net.children()) == [net.fc1, net.block]
    memo = {net.fc1}
    assert [n for n, _ in net.named_modules(memo=memo)] == ["", "block", "block.0", "block.1"]


def test_apply_visits_children_first():
    net = Net()
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["MyLinear", "MyLinear", "ReLU", "Sequential", "Net"]


# ---- training state and gradients ---------------------------------------------------------

def test_train_eval():
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    assert net.train() is net and all(m.training for m in net.modules())
    with pytest.raises(ValueError) as info:
        net.train("yes")
    assert str(info.value) == "training mode is expected to be boolean"
    net.block.train(False)
    assert net.training and not net.block[0].training


def test_grad_is_the_same_object_each_time():
    m = MyLinear(3, 2)
    m(torch.randn(4, 3)).sum().backward()
    grad = m.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is grad


def test_requires_grad_():
    net = Net()
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    assert all(p.requires_grad for p in net.parameters())


def test_zero_grad():
    m = MyLinear(3, 2)
    m(torch.randn(4, 3)).sum().backward()
    grad = m.weight.grad
    assert grad is not None
    m.zero_grad(set_to_none=False)
    # Zeroed in place: the tensor fetched before sees the zeros.
    assert grad.tolist() == [[0.0] * 3] * 2
    assert m.weight.grad.tolist() == [[0.0] * 3] * 2
    assert not m.weight.grad.requires_grad
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None


# ---- conversion ---------------------------------------------------------------------------

def test_double_converts_floating_tensors_only():
    net = Net()
    net.register_buffer("steps", torch.tensor([3], dtype=torch.int64))
    values = net.fc1.weight.tolist()
    assert net.double() is net
    assert all(p.dtype == torch.float64 for p in net.parameters())
    assert net.running_mean.dtype == torch.float64
    assert net.steps.dtype == torch.int64
    assert isinstance(net.fc1.weight, nn.Parameter) and net.fc1.weight.requires_grad
    assert close(net.fc1.weight, values)
    out = net(torch.randn(2, 3, dtype=torch.float64))
    assert out.dtype == torch.float64
    net.float()
    assert all(p.dtype == torch.float32 for p in net.parameters())
    net.half()
    assert net.fc1.weight.dtype == torch.float16
    net.bfloat16()
    assert net.fc1.weight.dtype == torch.bfloat16


def test_double_keeps_the_same_parameter_objects():
    net = Net()
    before = list(net.parameters())
    net.double()
    assert all(a is b for a, b in zip(before, net.parameters()))


def test_no_op_conversions_keep_the_parameter_objects():
    net = Net()
    net.fc1(torch.randn(2, 3)).sum().backward()
    before = list(net.parameters())
    buffer = net.running_mean
    net.float()
    net.cpu()
    net.to("cpu")
    net.to(torch.float32)
    assert all(a is b for a, b in zip(before, net.parameters()))
    assert net.running_mean is buffer
    assert net.fc1.weight.grad is not None


def test_conversion_converts_grads():
    m = MyLinear(3, 2)
    m(torch.randn(4, 3)).sum().backward()
    m.double()
    assert m.weight.grad is not None and m.weight.grad.dtype == torch.float64


def test_to_arguments():
    net = Net()
    assert net.to(torch.float64) is net
    assert net.fc1.weight.dtype == torch.float64
    net.to("cpu", torch.float32)
    assert net.fc1.weight.dtype == torch.float32
    net.to(dtype=torch.float64)
    assert net.fc1.bias.dtype == torch.float64
    net.to(torch.zeros(1, dtype=torch.float32))
    assert net.fc1.bias.dtype == torch.float32
    net.to(torch.device("cpu"))
    net.cpu()
    with pytest.raises(TypeError) as info:
        net.to(torch.int64)
    assert str(info.value) == ("nn.Module.to only accepts floating point or complex dtypes, but "
                               "got desired dtype=rstorch.int64")
    assert net.type(torch.float64) is net and net.scale.dtype == torch.float64


# ---- state_dict / load_state_dict ----------------------------------------------------------

def test_state_dict_keys_order_and_values():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    # Own parameters, own persistent buffers, then each child in registration order.
    assert list(sd) == ["scale", "running_mean", "fc1.weight", "fc1.bias", "block.0.weight",
                        "block.0.bias"]
    assert not sd["fc1.weight"].requires_grad and type(sd["fc1.weight"]) is torch.Tensor
    # Values share memory with the module's tensors.
    with torch.no_grad():
        net.fc1.weight[0, 0] = 123.0
    assert sd["fc1.weight"][0, 0].item() == 123.0
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("fc1", {"version": 1}),
                                        ("block", {"version": 1}), ("block.0", {"version": 1}),
                                        ("block.1", {"version": 1})])


def test_state_dict_keep_vars_prefix_destination():
    net = Net()
    sd = net.state_dict(keep_vars=True)
    assert sd["fc1.weight"] is net.fc1.weight
    assert list(net.fc1.state_dict(prefix="x.")) == ["x.weight", "x.bias"]
    dest = OrderedDict()
    out = net.fc1.state_dict(destination=dest)
    assert out is dest and list(dest) == ["weight", "bias"]


def test_load_state_dict_copies_in_place():
    src, dst = Net(), Net()
    params_before = list(dst.parameters())
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    assert str(result) == "<All keys matched successfully>"
    for a, b in zip(src.parameters(), dst.parameters()):
        assert close(a, b)
    assert all(a is b for a, b in zip(params_before, dst.parameters()))
    assert all(p.requires_grad for p in dst.parameters())
    assert dst.fc1.weight.grad_fn is None


def test_load_state_dict_strict_errors():
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"]
    del sd["scale"]
    sd["extra"] = torch.ones(1)
    sd["block.9.weight"] = torch.ones(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "scale", "fc1.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra", "block.9.weight". ')


def test_load_state_dict_non_strict_returns_the_keys():
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"]
    sd["extra"] = torch.ones(1)
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc1.bias"]
    assert result.unexpected_keys == ["extra"]
    assert result == (["fc1.bias"], ["extra"])
    assert repr(result) == "_IncompatibleKeys(missing_keys=['fc1.bias'], unexpected_keys=['extra'])"


def test_load_state_dict_size_mismatch():
    net = Net()
    sd = net.state_dict()
    sd["fc1.weight"] = torch.zeros(5, 3)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n"
        "\tsize mismatch for fc1.weight: copying a param with shape rstorch.Size([5, 3]) from "
        "checkpoint, the shape in current model is rstorch.Size([4, 3]).")
    # Non-strict still reports size mismatches.
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):
        net.load_state_dict(sd, strict=False)


def test_load_state_dict_assign_and_type_check():
    net = MyLinear(3, 2)
    new_w = torch.ones(2, 3)
    net.load_state_dict({"weight": new_w, "bias": torch.zeros(2)}, assign=True)
    assert isinstance(net.weight, nn.Parameter) and net.weight.requires_grad
    with torch.no_grad():
        new_w[0, 0] = 7.0
    assert net.weight[0, 0].item() == 7.0  # assigned, not copied
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        net.load_state_dict([1, 2])
    with pytest.raises(RuntimeError, match='While copying the parameter named "bias", expected '
                                           "torch.Tensor or Tensor-like object from checkpoint"):
        net.load_state_dict({"weight": torch.ones(2, 3), "bias": [1.0, 2.0]})


def test_load_state_dict_post_hook_and_buffers():
    net = Net()
    calls = []
    net.register_load_state_dict_post_hook(lambda m, keys: calls.append(list(keys.missing_keys)))
    sd = net.state_dict()
    sd["running_mean"] = torch.full((4,), 2.0)
    net.load_state_dict(sd)
    assert net.running_mean.tolist() == [2.0] * 4
    assert calls == [[]]


def test_state_dict_hooks_and_extra_state():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(1))
            self.extra = {"k": 1}

        def get_extra_state(self):
            return self.extra

        def set_extra_state(self, state):
            self.extra = state

    m = WithExtra()
    sd = m.state_dict()
    assert list(sd) == ["w", "_extra_state"] and sd["_extra_state"] == {"k": 1}
    sd["_extra_state"] = {"k": 2}
    m.load_state_dict(sd)
    assert m.extra == {"k": 2}
    seen = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(prefix))
    m.state_dict(prefix="p.")
    assert seen == ["p."]


# ---- printing -----------------------------------------------------------------------------

def test_repr_nested_sequential_exact():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.ReLU(inplace=True), nn.Identity())

        def extra_repr(self):
            return "first=1,\nsecond=2"

    model = nn.Sequential(OrderedDict([
        ("encoder", nn.Sequential(nn.Flatten(), nn.Tanh())),
        ("block", Block()),
        ("act", nn.LeakyReLU(0.2)),
    ]))
    assert repr(model) == (
        "Sequential(\n"
        "  (encoder): Sequential(\n"
        "    (0): Flatten(start_dim=1, end_dim=-1)\n"
        "    (1): Tanh()\n"
        "  )\n"
        "  (block): Block(\n"
        "    first=1,\n"
        "    second=2\n"
        "    (inner): Sequential(\n"
        "      (0): ReLU(inplace=True)\n"
        "      (1): Identity()\n"
        "    )\n"
        "  )\n"
        "  (act): LeakyReLU(negative_slope=0.2)\n"
        ")")
    assert repr(nn.Module()) == "Module()"
    assert nn.Sequential()._get_name() == "Sequential"


def test_repr_with_none_child():
    m = nn.Module()
    m.add_module("gone", None)
    assert repr(m) == "Module(\n  (gone): None\n)"


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


# ---- copying and pickling -----------------------------------------------------------------

def test_deepcopy_model():
    net = Net()
    net.fc1.weight.grad = torch.ones(4, 3)
    clone = copy.deepcopy(net)
    assert type(clone) is Net and clone is not net
    assert list(clone.state_dict()) == list(net.state_dict())
    for (n1, a), (n2, b) in zip(net.named_parameters(), clone.named_parameters()):
        assert n1 == n2 and a is not b and close(a, b) and isinstance(b, nn.Parameter)
    with torch.no_grad():
        clone.fc1.weight.fill_(0.0)
    assert not (net.fc1.weight == 0).all().item()
    x = torch.randn(2, 3)
    net.fc1.weight.grad = None
    assert close(copy.deepcopy(net)(x), net(x))
    assert "scratch" in clone._non_persistent_buffers_set


def test_deepcopy_keeps_sharing():
    shared = MyLinear(2, 2)
    seq = nn.Sequential(shared, shared)
    clone = copy.deepcopy(seq)
    assert clone[0] is clone[1] and clone[0] is not shared


def test_pickle_model_roundtrip():
    net = Net()
    net.eval()
    back = pickle.loads(pickle.dumps(net))
    assert not back.training
    sd_a, sd_b = net.state_dict(), back.state_dict()
    assert list(sd_a) == list(sd_b)
    assert all(close(sd_a[k], sd_b[k]) for k in sd_a)
    x = torch.randn(2, 3)
    assert close(net(x), back(x))


def test_setstate_fills_missing_attributes():
    m = nn.Module()
    state = m.__getstate__()
    del state["_forward_hooks_always_called"]
    del state["_backward_pre_hooks"]
    fresh = nn.Module.__new__(nn.Module)
    fresh.__setstate__(state)
    assert fresh._forward_hooks_always_called == OrderedDict()
    assert fresh._backward_pre_hooks == OrderedDict()


# ---- containers ---------------------------------------------------------------------------

def test_sequential_indexing_and_slicing():
    a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    seq = nn.Sequential(a, b, c)
    assert list(seq._modules) == ["0", "1", "2"]
    assert seq[0] is a and seq[-1] is c and seq[-3] is a
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    with pytest.raises(IndexError, match="index -4 is out of range"):
        seq[-4]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c]
    assert list(sub._modules) == ["1", "2"]  # slicing keeps the names
    assert len(seq) == 3 and list(iter(seq)) == [a, b, c]


def test_sequential_ordered_dict_and_forward():
    seq = nn.Sequential(OrderedDict([("lin", MyLinear(3, 2)), ("act", nn.ReLU())]))
    assert list(seq._modules) == ["lin", "act"]
    assert seq.lin is seq[0]
    x = torch.randn(5, 3)
    expected = (x @ seq.lin.weight.t() + seq.lin.bias).relu()
    assert close(seq(x), expected)
    assert nn.Sequential()(x) is x


def test_sequential_mutation():
    a, b, c, d = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity()
    seq = nn.Sequential(a, b)
    assert seq.append(c) is seq and list(seq) == [a, b, c]
    seq.insert(1, d)
    assert list(seq) == [a, d, b, c] and list(seq._modules) == ["0", "1", "2", "3"]
    seq.insert(-1, nn.ELU())
    assert isinstance(seq[3], nn.ELU) and seq[4] is c
    with pytest.raises(IndexError, match="Index out of range: 9"):
        seq.insert(9, nn.ReLU())
    del seq[3]
    assert list(seq) == [a, d, b, c] and list(seq._modules) == ["0", "1", "2", "3"]
    assert seq.pop(1) is d and list(seq) == [a, b, c]
    seq[0] = d
    assert seq[0] is d
    del seq[0:2]
    assert list(seq) == [c] and list(seq._modules) == ["0"]
    seq.extend([a, b])
    assert list(seq) == [c, a, b]


def test_sequential_add_mul():
    a, b = nn.ReLU(), nn.Tanh()
    s1, s2 = nn.Sequential(a), nn.Sequential(b)
    s3 = s1 + s2
    assert list(s3) == [a, b] and list(s1) == [a]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        s1 + nn.ReLU()
    s1 += s2
    assert list(s1) == [a, b]
    assert list(s2 * 3) == [b, b, b]
    assert list(2 * s2) == [b, b]
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        s2 * 0


def test_module_list():
    layers = nn.ModuleList([MyLinear(2, 2) for _ in range(3)])
    assert len(layers) == 3
    assert [n for n, _ in layers.named_parameters()][:2] == ["0.weight", "0.bias"]
    extra = nn.ReLU()
    layers.append(extra)
    assert layers[-1] is extra and layers[3] is extra
    with pytest.raises(IndexError, match="index 4 is out of range"):
        layers[4]
    sub = layers[1:3]
    assert isinstance(sub, nn.ModuleList) and list(sub) == [layers[1], layers[2]]
    assert list(sub._modules) == ["0", "1"]
    layers.insert(0, nn.Tanh())
    assert isinstance(layers[0], nn.Tanh) and len(layers) == 5
    del layers[0]
    assert list(layers._modules) == ["0", "1", "2", "3"]
    layers.extend([nn.Sigmoid()])
    assert isinstance(layers[-1], nn.Sigmoid)
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, "
                                        "but got ReLU"):
        layers.extend(nn.ReLU())
    combined = layers + nn.ModuleList([nn.ELU()])
    assert len(combined) == 6 and isinstance(combined[5], nn.ELU)
    assert layers.pop(-1) is not None and len(layers) == 4
    layers[0] = nn.GELU()
    assert isinstance(layers[0], nn.GELU)
    with pytest.raises(NotImplementedError):
        layers(torch.ones(1))


def test_module_list_repr_groups_repeats():
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU()])
    assert repr(ml) == ("ModuleList(\n"
                        "  (0-2): 3 x ReLU()\n"
                        "  (3): Tanh()\n"
                        "  (4): ReLU()\n"
                        ")")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict():
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    assert list(md.keys()) == ["b", "a"]  # a plain dict's insertion order is kept
    md["c"] = nn.Sigmoid()
    assert "c" in md and len(md) == 3 and list(md) == ["b", "a", "c"]
    assert isinstance(md.pop("a"), nn.Tanh) and "a" not in md
    md.update([("d", nn.ELU()), ("e", nn.GELU())])
    assert list(md) == ["b", "c", "d", "e"]
    assert [type(v).__name__ for v in md.values()] == ["ReLU", "Sigmoid", "ELU", "GELU"]
    assert [k for k, _ in md.items()] == ["b", "c", "d", "e"]
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 3; "
                                         "2 is required"):
        md.update([("x", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match="ModuleDict.update should be called with an iterable"):
        md.update(3)
    del md["b"]
    assert "b" not in md
    md.clear()
    assert len(md) == 0


def test_parameter_list():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4)])
    assert len(pl) == 2
    assert all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pl.append(torch.ones(1))
    assert isinstance(pl[-1], nn.Parameter) and len(pl) == 3
    sub = pl[0:2]
    assert isinstance(sub, nn.ParameterList) and len(sub) == 2 and sub[0] is pl[0]
    pl.extend([torch.ones(5)])
    assert len(pl) == 4
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable"):
        pl.extend(torch.ones(2))
    pl[0] = torch.zeros(1)
    assert isinstance(pl[0], nn.Parameter) and pl[0].tolist() == [0.0]
    assert repr(nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4, dtype=torch.float64)])) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [rstorch.float32 of size 2x3]\n"
        "    (1): Parameter containing: [rstorch.float64 of size 4]\n"
        ")")
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl(1)


def test_parameter_dict():
    pd = nn.ParameterDict(OrderedDict([("z", torch.ones(2)), ("a", nn.Parameter(torch.zeros(3)))]))
    assert list(pd.keys()) == ["z", "a"]  # an OrderedDict keeps its order
    assert all(isinstance(v, nn.Parameter) for v in pd.values())
    assert [n for n, _ in pd.named_parameters()] == ["z", "a"]
    pd["m"] = torch.ones(1)
    assert "m" in pd and len(pd) == 3 and isinstance(pd["m"], nn.Parameter)
    assert isinstance(pd.pop("m"), nn.Parameter) and "m" not in pd
    assert pd.get("nope") is None and pd.get("z") is pd["z"]
    assert pd.setdefault("n", torch.ones(1)) is pd["n"]
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key as "
                                        "it is not a string \\(type is 'int'\\)"):
        nn.ParameterDict()[1] = torch.ones(1)
    assert repr(nn.ParameterDict(OrderedDict([("w", torch.ones(2, 2))]))) == (
        "ParameterDict(  (w): Parameter containing: [rstorch.FloatTensor of size 2x2])")
    copy_ = pd.copy()
    assert list(copy_.keys()) == list(pd.keys()) and copy_["z"] is pd["z"]
    k, v = pd.popitem()
    assert k == "n" and "n" not in pd
    pd.clear()
    assert len(pd) == 0 and list(pd.named_parameters()) == []
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pd(1)


# ---- layers -------------------------------------------------------------------------------

def test_linear_parameters_init_and_repr():
    torch.manual_seed(1)
    lin = nn.Linear(20, 30)
    assert lin.weight.shape == (30, 20) and lin.bias.shape == (30,)
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    bound = 1 / math.sqrt(20)
    w = lin.weight.detach().numpy()
    b = lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    # U(-bound, bound) has std bound/sqrt(3).
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert repr(lin) == "Linear(in_features=20, out_features=30, bias=True)"
    no_bias = nn.Linear(2, 3, bias=False)
    assert no_bias.bias is None and "bias" in no_bias._parameters
    assert repr(no_bias) == "Linear(in_features=2, out_features=3, bias=False)"
    assert nn.Linear(2, 3, dtype=torch.float64).weight.dtype == torch.float64
    x = torch.randn(4, 20)
    assert close(lin(x), x.numpy() @ w.T + b, tol=1e-4)


def test_bilinear_shapes_and_repr():
    bl = nn.Bilinear(3, 4, 5)
    assert bl.weight.shape == (5, 3, 4) and bl.bias.shape == (5,)
    bound = 1 / math.sqrt(3)
    assert np.abs(bl.weight.detach().numpy()).max() <= bound
    assert repr(bl) == "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)"


def test_identity_flatten_unflatten():
    x = torch.randn(2, 3, 4)
    assert nn.Identity(54, unused="x")(x) is x
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert repr(nn.Flatten(0, 1)) == "Flatten(start_dim=0, end_dim=1)"
    u = nn.Unflatten(1, (3, 1))
    assert u(torch.randn(2, 3)).shape == (2, 3, 1)
    assert repr(u) == "Unflatten(dim=1, unflattened_size=(3, 1))"
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints, but found element "
                                        "of type float at pos 1"):
        nn.Unflatten(1, (3, 1.0))
    with pytest.raises(TypeError, match="invalid argument type for dim parameter"):
        nn.Unflatten(1.0, (3,))


def test_activation_reprs():
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.ReLU6()) == "ReLU6()"
    assert repr(nn.ReLU6(True)) == "ReLU6(inplace=True)"
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.LeakyReLU(0.2, True)) == "LeakyReLU(negative_slope=0.2, inplace=True)"
    assert repr(nn.ELU()) == "ELU(alpha=1.0)"
    assert repr(nn.ELU(0.5, inplace=True)) == "ELU(alpha=0.5, inplace=True)"
    assert repr(nn.GELU()) == "GELU(approximate='none')"
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.SiLU()) == "SiLU()"
    assert repr(nn.Sigmoid()) == "Sigmoid()"
    assert repr(nn.Tanh()) == "Tanh()"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"
    assert repr(nn.Softmax()) == "Softmax(dim=None)"
    assert repr(nn.LogSoftmax(-1)) == "LogSoftmax(dim=-1)"
    assert repr(nn.Softplus()) == "Softplus(beta=1.0, threshold=20.0)"
    assert repr(nn.Softplus(2, 10)) == "Softplus(beta=2, threshold=10)"
    assert repr(nn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(nn.Hardtanh(-2, 2, True)) == "Hardtanh(min_val=-2, max_val=2, inplace=True)"
    assert nn.ReLU6().min_val == 0.0 and nn.ReLU6().max_val == 6.0


def test_activation_forward_values():
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 3.0])
    xs = x.numpy()
    assert close(nn.ReLU()(x), np.maximum(xs, 0))
    assert close(nn.LeakyReLU(0.1)(x), np.where(xs >= 0, xs, 0.1 * xs))
    assert close(nn.ELU(0.5)(x), np.where(xs > 0, xs, 0.5 * (np.exp(xs) - 1)))
    assert close(nn.SiLU()(x), xs / (1 + np.exp(-xs)))
    assert close(nn.Sigmoid()(x), 1 / (1 + np.exp(-xs)))
    assert close(nn.Tanh()(x), np.tanh(xs))
    assert close(nn.Softplus()(x), np.log1p(np.exp(xs)))
    assert close(nn.GELU()(x), [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in xs])
    m = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    e = np.exp(m.numpy())
    soft = e / e.sum(1, keepdims=True)
    assert close(nn.Softmax(dim=1)(m), soft)
    assert close(nn.LogSoftmax(dim=1)(m), np.log(soft))
    y = x.clone()
    out = nn.ReLU(inplace=True)(y)
    assert close(y, np.maximum(xs, 0)) and close(out, np.maximum(xs, 0))


def test_hardtanh_and_relu6_forward():
    x = torch.tensor([-8.0, -0.5, 0.5, 8.0])
    assert close(nn.Hardtanh()(x), [-1.0, -0.5, 0.5, 1.0])
    assert close(nn.ReLU6()(x), [0.0, 0.0, 0.5, 6.0])


def test_exports():
    for name in ["Module", "Parameter", "Linear", "Bilinear", "Identity", "Sequential",
                 "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Flatten",
                 "Unflatten", "ReLU", "ReLU6", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid",
                 "Tanh", "Softmax", "LogSoftmax", "Softplus", "Hardtanh"]:
        assert hasattr(nn, name), name
    assert nn.modules.Linear is nn.Linear
    assert nn.parameter.Parameter is nn.Parameter
    assert nn.init.xavier_uniform_ is not None and nn.functional is F
    assert torch.nn is nn
