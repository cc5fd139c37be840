"""nn.Module and nn.Parameter with PyTorch's semantics and messages: attribute routing,
registration, traversal, training state, conversion, state dicts, printing, copying and
pickling (hooks are in test_nn_module_hooks.py, containers and layers in test_nn_containers.py).
Rule tests use small modules whose forward uses Tensor methods only."""
import copy
import pickle
from collections import OrderedDict

import pytest

import rstorch as torch
import rstorch.nn as nn

from _nn_module_helpers import MyLinear, Net, close


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
            setattr(self, "via_setattr", MyLinear(2, 2))  # noqa: B010 (the builtin's path is the subject)

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
        MyNet().x  # noqa: B018 (the lookup is the subject)
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
