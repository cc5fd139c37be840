"""optim.swap_in_optimizer_params_and_state beyond its recorded parity cases
(tests/datapipes_cases.py): a step inside the block is the step a fresh optimizer would take
on the swapped-in values, the live optimizer comes back whole (also after an error), and hooks
see the swapped-in values."""
import pytest

import rstorch
from rstorch import optim


def _trained(opt_cls, **kw):
    w = rstorch.nn.Parameter(rstorch.tensor([1.0, -1.0, 0.5], dtype=rstorch.float64))
    opt = opt_cls([w], **kw)
    w.grad = rstorch.tensor([0.3, 0.1, -0.2], dtype=rstorch.float64)
    opt.step()
    return w, opt


def _copy_state(sd):
    return {"state": {k: {n: v.clone() for n, v in s.items()} for k, s in sd["state"].items()},
            "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize("opt_cls,kw", [(optim.Adam, {"lr": 0.1}),
                                         (optim.SGD, {"lr": 0.1, "momentum": 0.9}),
                                         (optim.RMSprop, {"lr": 0.01})])
def test_step_inside_equals_a_step_on_the_copies(opt_cls, kw):
    w, opt = _trained(opt_cls, **kw)
    live_w, live_state = w.detach().clone(), _copy_state(opt.state_dict())
    grad = rstorch.tensor([-1.0, 2.0, 0.5], dtype=rstorch.float64)

    swapped = {"w": w.detach().clone()}
    swapped["w"].grad = grad.clone()
    state = _copy_state(opt.state_dict())
    with optim.swap_in_optimizer_params_and_state(opt, swapped, state):
        opt.step()

    # The same step taken by a second optimizer loaded with the same values.
    w2 = rstorch.nn.Parameter(live_w.clone())
    opt2 = opt_cls([w2], **kw)
    opt2.load_state_dict(_copy_state(live_state))
    w2.grad = grad.clone()
    opt2.step()

    assert rstorch.equal(swapped["w"], w2.detach())
    assert rstorch.equal(w.detach(), live_w)  # the live parameter is untouched
    for name, value in opt2.state[w2].items():
        if hasattr(value, "clone"):  # the swapped-in state tensors were stepped in place
            assert rstorch.equal(state["state"][0][name], value), name
    live_after = opt.state_dict()
    for name, value in live_state["state"][0].items():
        assert rstorch.equal(live_after["state"][0][name], value), name


def test_live_optimizer_restored_after_an_error():
    w, opt = _trained(optim.SGD, lr=0.1, momentum=0.9)
    groups_before = [dict(g) for g in opt.param_groups]
    state_before = opt.state
    swapin = _copy_state(opt.state_dict())
    swapin["param_groups"][0]["lr"] = 5.0
    with pytest.raises(KeyError):
        with optim.swap_in_optimizer_params_and_state(opt, {"w": w.detach().clone()}, swapin):
            assert opt.param_groups[0]["lr"] == 5.0
            raise KeyError("inside")
    assert opt.state is state_before
    assert [dict(g) for g in opt.param_groups] == groups_before
    assert opt.param_groups[0]["params"][0] is w


def test_step_hooks_see_the_swapped_in_parameters():
    w, opt = _trained(optim.SGD, lr=0.1, momentum=0.5)  # plain SGD keeps no state to swap
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(o.param_groups[0]["params"][0]))
    other = w.detach().clone()
    other.grad = rstorch.zeros_like(other)
    with optim.swap_in_optimizer_params_and_state(opt, {"w": other}, _copy_state(opt.state_dict())):
        opt.step()
    assert seen == [other]
