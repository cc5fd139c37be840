"""swap_in_optimizer_params_and_state: run an optimizer, for a while, on other parameters and
state than its own."""
import contextlib
from collections import defaultdict

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _tensor_type():
    from .. import Tensor
    return Tensor


def _checked_state(state):
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter "
            f"ids to per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(k, _tensor_type()) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed "
                           "parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           "dictionaries.")
    return state


def _checked_group_ids(index, live, swapin):
    """The packed parameter ids of one swap-in group, after checking it mirrors the live one."""
    if not isinstance(swapin, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param_groups[*]"
                           "['params'] entries keyed by packed parameter ids.")
    if len(live["params"]) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {index} has a different number of "
                           "params than the live optimizer param group.")
    only_swapin = [k for k in swapin if k not in live]
    only_live = [k for k in live if k not in swapin]
    if only_swapin or only_live:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match "
            f"the live optimizer group keys for group {index}. Keys only in swap-in: "
            f"{only_swapin}. Keys only in live: {only_live}.")
    return ids


def _plan(optimizer, swapin_parameters, swapin_optim_state):
    """Checks the swap-in values; returns [(live group, swap-in group, its tensors)] and the
    swap-in state by packed id."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(swapin_optim_state.get("state"))
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group "
            f"dicts, got {type(groups).__name__}.")
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than "
                           "the live optimizer.")
    tensors = list(swapin_parameters.values())
    plan, used_ids, start = [], set(), 0
    for index, (live, swapin) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _checked_group_ids(index, live, swapin)
        used_ids.update(ids)
        end = start + len(ids)
        if end > len(tensors):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        plan.append((live, swapin, tensors[start:end]))
        start = end
    extra = [k for k in state if k not in used_ids]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter "
            f"ids from param_groups[*]['params']; got extra keys {extra!r}.")
    return plan, state


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Inside the `with` block, `optimizer` works on `swapin_parameters` (tensors in the order of
    its own parameters) with the state and hyperparameters of `swapin_optim_state` (shaped as
    `optimizer.state_dict()`); on exit its own parameters, state and hyperparameters are back.
    In-place changes to the swap-in tensors (parameters and state) stay; new objects put into the
    state during the block are dropped."""
    plan, state = _plan(optimizer, swapin_parameters, swapin_optim_state)
    saved_state = optimizer.state
    saved_groups = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, swapin, tensors in plan:
            live.update({k: v for k, v in swapin.items() if k != "params"})
            live["params"] = tensors
            for tensor, packed_id in zip(tensors, swapin["params"]):
                # A copy of the entry: the step writes into its tensors, not into the caller's
                # dict.
                swapped[tensor] = dict(state.get(packed_id, {}))
        optimizer.state = swapped
        yield
    finally:
        for live, saved in zip(optimizer.param_groups, saved_groups):
            live.clear()
            live.update(saved)
        optimizer.state = saved_state
