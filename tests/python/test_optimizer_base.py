"""The Optimizer base class: parameter groups, defaults, state, state_dict round trips, hooks,
zero_grad and repr, with PyTorch's rules and messages."""
import copy
import pickle

import pytest

import rstorch as torch
from rstorch.optim import Optimizer
from rstorch.optim.optimizer import required

from _simple_optim import SimpleSGD


def leaf(*shape, dtype=torch.float32):
    return torch.zeros(*shape, dtype=dtype, requires_grad=True)


class NeedsLr(Optimizer):
    def __init__(self, params, lr=required, alpha=0.5):
        super().__init__(params, dict(lr=lr, alpha=alpha))

    def step(self, closure=None):
        return None


def test_params_forms_and_defaults():
    a, b, c = leaf(2), leaf(3), leaf(1)
    opt = SimpleSGD([a, b], lr=0.5)
    assert len(opt.param_groups) == 1 and opt.param_groups[0]["params"] == [a, b]
    assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["momentum"] == 0.0
    assert opt.defaults["lr"] == 0.5
    opt = SimpleSGD(iter([{"params": [a]}, {"params": b, "lr": 0.01}]), lr=0.5)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.01]
    assert opt.param_groups[1]["params"] == [b]  # a lone tensor becomes a list
    opt = SimpleSGD((p for p in [c]))  # any iterable, generators included
    assert opt.param_groups[0]["params"] == [c]
    named = SimpleSGD([("w", a), ("b", b)])
    assert named.param_groups[0]["params"] == [a, b]
    assert named.param_groups[0]["param_names"] == ["w", "b"]


def test_construction_errors():
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an "
                                        "iterable of Tensors or dicts, but got "
                                        "rstorch.FloatTensor"):
        SimpleSGD(leaf(2))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        SimpleSGD([])
    a = leaf(2)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter "
                                         "group"):
        SimpleSGD([{"params": [a]}, {"params": [a]}])
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the "
                                        "params is int"):
        SimpleSGD([1])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        SimpleSGD([a * 2])
    with pytest.raises(TypeError, match="ordering of tensors in sets will change"):
        SimpleSGD([{"params": {a}}])
    with pytest.raises(ValueError, match="parameter group didn't specify a value of required "
                                         "optimization parameter lr"):
        NeedsLr([a])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        SimpleSGD([a, a])
    assert NeedsLr([a], lr=1.0).param_groups[0]["alpha"] == 0.5
    assert repr(required) == "<required parameter>"


def test_add_param_group():
    a, b = leaf(2), leaf(2)
    opt = SimpleSGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.2})
    assert opt.param_groups[1] == {"params": [b], "lr": 0.2, "momentum": 0.9, "dampening": 0.0,
                                   "weight_decay": 0.0, "nesterov": False}
    with pytest.raises(ValueError, match="some parameters appear in more than one"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict, but got list"):
        opt.add_param_group([b])
    with pytest.raises(ValueError, match="all optimizer param groups should be with/without "
                                         "names"):
        opt.add_param_group({"params": [("c", leaf(1))]})


def test_state_is_a_defaultdict_keyed_by_parameter():
    a = leaf(2)
    opt = SimpleSGD([a])
    assert opt.state[a] == {} and a in opt.state
    opt.state[a]["x"] = 1
    assert opt.state[a] == {"x": 1}


def test_step_is_abstract():
    class Bare(Optimizer):
        pass
    with pytest.raises(NotImplementedError):
        Bare([leaf(1)], {}).step()


def train(opt, params, steps=3):
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p - 1.0) ** 2).sum() for p in params)
        loss.backward()
        opt.step()


def test_state_dict_format():
    a, b, c = leaf(2), leaf(3), leaf(1)
    opt = SimpleSGD([{"params": [a, b]}, {"params": [c], "lr": 0.01}], lr=0.1, momentum=0.9)
    train(opt, [a, b, c])
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.01 and "params" in sd["param_groups"][0]
    assert sorted(sd["state"]) == [0, 1, 2]
    assert sd["state"][2]["momentum_buffer"] is opt.state[c]["momentum_buffer"]
    # Group dicts are new (params replaced by indices), the optimizer's are untouched.
    assert opt.param_groups[0]["params"] == [a, b]


def test_load_state_dict_restores_training_exactly():
    def make():
        torch.manual_seed(0)
        params = [torch.randn(3, requires_grad=True), torch.randn(2, requires_grad=True)]
        opt = SimpleSGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.05}], lr=0.1,
                        momentum=0.9)
        return params, opt

    params, opt = make()
    train(opt, params, 2)
    sd = copy.deepcopy(opt.state_dict())
    snapshot = [p.detach().clone() for p in params]
    train(opt, params, 3)
    expected = [p.tolist() for p in params]

    params2, opt2 = make()
    with torch.no_grad():
        for p, s in zip(params2, snapshot):
            p.copy_(s)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[1]["lr"] == 0.05 and opt2.param_groups[0]["params"] == params2[:1]
    assert opt2.state[params2[0]]["momentum_buffer"].tolist() == \
        sd["state"][0]["momentum_buffer"].tolist()
    train(opt2, params2, 3)
    assert [p.tolist() for p in params2] == expected


def test_load_state_dict_copies_and_casts():
    p64, pint = leaf(2, dtype=torch.float64), torch.zeros(2, dtype=torch.int64)
    opt = SimpleSGD([p64, pint])
    state = {0: {"buf": torch.ones(2, dtype=torch.float32), "step": torch.tensor(3.0),
                 "pair": (torch.ones(1), "tag"), "count": 7},
             1: {"buf": torch.ones(2, dtype=torch.float32)}}
    groups = [{"lr": 0.3, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0,
               "nesterov": False, "extra": [1, 2], "params": [0, 1]}]
    sd = {"state": state, "param_groups": groups}
    opt.load_state_dict(sd)
    loaded = opt.state[p64]
    assert loaded["buf"].dtype == torch.float64  # floating state follows the parameter
    assert loaded["step"].dtype == torch.float32  # "step" is left alone
    assert loaded["pair"][0].dtype == torch.float64 and loaded["pair"][1] == "tag"
    assert loaded["count"] == 7
    assert opt.state[pint]["buf"].dtype == torch.float32  # integer params cast nothing
    assert opt.param_groups[0]["lr"] == 0.3
    groups[0]["extra"].append(3)
    assert opt.param_groups[0]["extra"] == [1, 2]  # groups are deep-copied
    assert sd["param_groups"][0]["params"] == [0, 1]  # the input is not modified


def test_load_state_dict_mismatch_errors():
    opt = SimpleSGD([leaf(1), leaf(1)])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0], "lr": 1.0}]})


def test_zero_grad():
    a = leaf(2)
    opt = SimpleSGD([a])
    (a * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert a.grad is not None and a.grad.tolist() == [0.0, 0.0]
    (a * 3).sum().backward()
    opt.zero_grad()
    assert a.grad is None
    opt.zero_grad()  # nothing to clear is fine


def test_step_hooks_and_closure():
    a = leaf(1)
    opt = SimpleSGD([a], lr=1.0)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", args)))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", args)))

    def closure():
        calls.append(("closure",))
        return 5.0
    assert opt.step(closure) == 5.0
    assert calls == [("pre", (closure,)), ("closure",), ("post", (closure,))]
    pre.remove()
    post.remove()
    calls.clear()
    opt.step()
    assert calls == []
    # A pre-hook may replace the arguments.
    opt.register_step_pre_hook(lambda o, args, kwargs: ((), {"closure": lambda: 9.0}))
    assert opt.step() == 9.0
    opt2 = SimpleSGD([leaf(1)])
    opt2.register_step_pre_hook(lambda o, args, kwargs: 3)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        opt2.step()


def test_global_step_hooks():
    from rstorch.optim.optimizer import register_optimizer_step_post_hook
    seen = []
    handle = register_optimizer_step_post_hook(lambda o, a, k: seen.append(type(o).__name__))
    try:
        SimpleSGD([leaf(1)]).step()
    finally:
        handle.remove()
    SimpleSGD([leaf(1)]).step()
    assert seen == ["SimpleSGD"]


def test_state_dict_hooks():
    opt = SimpleSGD([leaf(1)])
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    assert opt.state_dict()["extra"] == 1
    loaded = []
    opt.register_load_state_dict_post_hook(lambda o: loaded.append(True))
    opt.load_state_dict(SimpleSGD([leaf(1)]).state_dict())
    assert loaded == [True]


def test_repr_like_pytorch():
    opt = SimpleSGD([{"params": [leaf(1)]}, {"params": [leaf(1)], "lr": 0.01}], lr=0.1)
    assert repr(opt) == (
        "SimpleSGD (\n"
        "Parameter Group 0\n    dampening: 0.0\n    lr: 0.1\n    momentum: 0.0\n"
        "    nesterov: False\n    weight_decay: 0.0\n\n"
        "Parameter Group 1\n    dampening: 0.0\n    lr: 0.01\n    momentum: 0.0\n"
        "    nesterov: False\n    weight_decay: 0.0\n)")


def test_pickle_round_trip():
    a = leaf(2)
    opt = SimpleSGD([a], momentum=0.9)
    train(opt, [a], 1)
    clone = pickle.loads(pickle.dumps(opt))
    assert clone.param_groups[0]["lr"] == 0.1 and len(clone.state) == 1
    clone.step()  # hooks dicts exist again after unpickling
