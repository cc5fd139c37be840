"""Optimizer: parameter groups, per-parameter state, state_dict round trips and step hooks.
Concrete optimizers subclass it and implement `step`."""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from ..autograd import _profiler_hooks
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


def _tensor_type():
    from .. import Tensor
    return Tensor


def _typename(obj):
    if isinstance(obj, _tensor_type()):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


class _RequiredParameter:
    """Marks a default that every parameter group must supply itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# Hooks that run around every optimizer's step, before each optimizer's own.
_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Registers `hook(optimizer, args, kwargs)` to run before every optimizer's step."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Registers `hook(optimizer, args, kwargs)` to run after every optimizer's step."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _hooked_step(step):
    """Wraps a class's `step` so step pre-hooks and post-hooks run around it."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in chain(_global_step_pre_hooks.values(),
                          self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        # A profiler shows each step as PyTorch's does, a range named after the optimizer's class.
        record = (_profiler_hooks.open_range(f"Optimizer.step#{type(self).__name__}.step", user=True)
                  if _profiler_hooks.recording() else None)
        try:
            out = step(self, *args, **kwargs)
        finally:
            _profiler_hooks.close_range(record)
        for hook in chain(self._optimizer_step_post_hooks.values(),
                          _global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    wrapper._hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers.

    params: an iterable of tensors, or of dicts (parameter groups) each with a "params" entry
    and options overriding `defaults` for that group.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()

        if isinstance(params, _tensor_type()):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def _patch_step_function(self):
        # Patched per class on first use, so subclasses simply define `step`.
        cls = self.__class__
        if not getattr(cls.step, "_hooked", False):
            cls.step = _hooked_step(cls.step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            # Each group opens with a newline, so groups are separated by a blank line.
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group) if key != "params")
        return text + ")"

    def add_param_group(self, param_group):
        """Adds a group of parameters, filling the options it leaves out from `defaults`."""
        Tensor = _tensor_type()
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        # Named parameters: (name, tensor) pairs keep their names in "param_names".
        names = []
        tensors = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Clears every parameter's gradient: drops it (default) or fills it with zeros."""
        record = (_profiler_hooks.open_range(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad", user=True)
                  if _profiler_hooks.recording() else None)
        try:
            self._zero_grad(set_to_none)
        finally:
            _profiler_hooks.close_range(record)

    def _zero_grad(self, set_to_none):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """Performs one optimization step; subclasses implement it."""
        raise NotImplementedError

    # ---- state dicts ------------------------------------------------------------------------

    def state_dict(self):
        """The optimizer's state: per-parameter state keyed by the parameter's position across
        all groups, and the groups with their parameters replaced by those positions."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of = {}
        next_index = 0
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in index_of:
                    index_of[id(p)] = next_index
                    next_index += 1
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            packed_groups.append(packed)
        Tensor = _tensor_type()
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state_value(param, value, param_id, param_groups, key=None):
        """A copy of a loaded state value, as the optimizer will use it: floating state takes
        the parameter's dtype, "step" counters stay as they were (unless fused/capturable)."""
        if isinstance(value, _tensor_type()):
            fused = capturable = False
            for group in param_groups:
                if param_id in group["params"]:
                    fused = group.get("fused", False)
                    capturable = group.get("capturable", False)
                    break
            if key == "step":
                if fused or capturable:
                    from .. import float32
                    return value.to(float32)
                return value
            if param.is_floating_point():
                return value.to(param.dtype)
            return value
        if isinstance(value, dict):
            return {k: Optimizer._cast_state_value(param, v, param_id, param_groups, key=k)
                    for k, v in value.items()}
        if isinstance(value, (str, bytes)):
            return value
        if isinstance(value, (list, tuple, set, frozenset)):
            return type(value)(Optimizer._cast_state_value(param, v, param_id, param_groups)
                               for v in value)
        return value

    def load_state_dict(self, state_dict):
        """Loads a state from `state_dict()`; the groups must hold as many parameters as ours."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state_value(param, v, k, state_dict["param_groups"])
            else:
                state[k] = v

        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ---- hooks ------------------------------------------------------------------------------

    def _register(self, hooks, hook, prepend=False):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs before `step`; it may return new (args, kwargs)."""
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs after `step`."""
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)
