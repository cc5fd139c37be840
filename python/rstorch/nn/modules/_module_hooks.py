"""`Module`'s hooks: the registries that apply to every module (`register_module_*_hook`),
the wrapper that binds a hook to a module held weakly, and the call path of a module that has
hooks (forward pre-hooks, forward hooks, backward hooks set up around forward, and the
always-call forward hooks run when forward raised)."""
import functools
import warnings
import weakref
from collections import OrderedDict

from ... import _C
from ...utils.hooks import BackwardHook, RemovableHandle

Tensor = _C.Tensor

# Hooks that apply to every module (`register_module_*_hook`).
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


def register_module_buffer_registration_hook(hook):
    """`hook(module, name, buffer) -> None or new buffer` runs in every `register_buffer`."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook):
    """`hook(module, name, submodule) -> None or new submodule` runs in every `add_module`."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook):
    """`hook(module, name, param) -> None or new param` runs in every `register_parameter`."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook):
    """A forward pre-hook for all modules; runs before their own ones."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook for all modules; runs before their own ones."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_always_called,
                                         _global_forward_hooks_with_kwargs])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _register_global_backward_hook(hook, full):
    """A global backward hook, full or not: the two kinds cannot be mixed."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    """Deprecated non-full backward hook for all modules."""
    return _register_global_backward_hook(hook, full=False)


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook for all modules."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """A full backward hook for all modules."""
    return _register_global_backward_hook(hook, full=True)


class _WrappedHook:
    """A hook bound to a module held weakly (so a hook never keeps its module alive)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


def _backward_hooks_of(module):
    """`module`'s backward hooks, the global ones first, as (full hooks, non-full hooks)."""
    full_backward_hooks = []
    if _global_is_full_backward_hook is True:
        full_backward_hooks += _global_backward_hooks.values()
    if module._is_full_backward_hook is True:
        full_backward_hooks += module._backward_hooks.values()
    non_full_backward_hooks = []
    if _global_is_full_backward_hook is False:
        non_full_backward_hooks += _global_backward_hooks.values()
    if module._is_full_backward_hook is False:
        non_full_backward_hooks += module._backward_hooks.values()
    return full_backward_hooks, non_full_backward_hooks


def _warn_non_full_backward_hook(inputs, result, grad_fn):
    """The deprecation warnings of a non-full backward hook on a module whose inputs or outputs
    it cannot see whole (warned at the caller of `Module._maybe_warn_non_full_backward_hook`)."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a "
                          "single Tensor or a tuple of Tensors is deprecated and will be "
                          "removed in future versions. This hook will be missing some of the "
                          "grad_output. Please use register_full_backward_hook to get the "
                          "documented behavior.", FutureWarning, stacklevel=3)
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warnings.warn("Using non-full backward hooks on a Module that does not take as "
                          "input a single Tensor or a tuple of Tensors is deprecated and will "
                          "be removed in future versions. This hook will be missing some of "
                          "the grad_input. Please use register_full_backward_hook to get the "
                          "documented behavior.", FutureWarning, stacklevel=3)
            return
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                      "structure is deprecated and will be removed in future versions. This "
                      "hook will be missing some grad_output.", FutureWarning, stacklevel=3)
    elif len(out_grad_fn) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different "
                      "autograd Nodes is deprecated and will be removed in future versions. "
                      "This hook will be missing some grad_output. Please use "
                      "register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=3)
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions if n[0] is not None}
        next_functions = {n for n in next_functions if type(n).__name__ != "AccumulateGrad"}
        if inputs_grad_fn != next_functions:
            warnings.warn("Using a non-full backward hook when the forward contains multiple "
                          "autograd Nodes is deprecated and will be removed in future "
                          "versions. This hook will be missing some grad_input. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=3)


def _call_with_hooks(module, forward_call, args, kwargs):
    """Calls `forward_call(*args, **kwargs)` for `module` with every hook that applies to it."""
    result = None
    called_always_called_hooks = set()

    def inner():
        nonlocal result, args, kwargs
        full_backward_hooks, non_full_backward_hooks = [], []
        backward_pre_hooks = []
        if module._backward_pre_hooks or _global_backward_pre_hooks:
            backward_pre_hooks = module._get_backward_pre_hooks()
        if module._backward_hooks or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = module._get_backward_hooks()

        if _global_forward_pre_hooks or module._forward_pre_hooks:
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *module._forward_pre_hooks.items()):
                if hook_id in module._forward_pre_hooks_with_kwargs:
                    args_kwargs_result = hook(module, args, kwargs)
                    if args_kwargs_result is not None:
                        if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                            args, kwargs = args_kwargs_result
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               "of (new_args, new_kwargs), but got "
                                               f"{args_kwargs_result}.")
                else:
                    args_result = hook(module, args)
                    if args_result is not None:
                        if not isinstance(args_result, tuple):
                            args_result = (args_result,)
                        args = args_result

        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(module, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)

        result = forward_call(*args, **kwargs)
        if _global_forward_hooks or module._forward_hooks:
            for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
                if (hook_id in module._forward_hooks_always_called
                        or hook_id in _global_forward_hooks_always_called):
                    called_always_called_hooks.add(hook_id)
                if (hook_id in module._forward_hooks_with_kwargs
                        or hook_id in _global_forward_hooks_with_kwargs):
                    hook_result = hook(module, args, kwargs, result)
                else:
                    hook_result = hook(module, args, result)
                if hook_result is not None:
                    result = hook_result

        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}")
            result = bw_hook.setup_output_hook(result)

        if non_full_backward_hooks:
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, module))
                module._maybe_warn_non_full_backward_hook(args, result, grad_fn)
        return result

    try:
        return inner()
    except Exception:
        # Forward hooks registered with always_call=True run even when forward raised.
        for hook_id, hook in _global_forward_hooks.items():
            if (hook_id in _global_forward_hooks_always_called
                    and hook_id not in called_always_called_hooks):
                try:
                    hook_result = hook(module, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised "
                                  "an exception that was silenced as another error was raised "
                                  f"in forward: {str(e)}")
        for hook_id, hook in module._forward_hooks.items():
            if (hook_id in module._forward_hooks_always_called
                    and hook_id not in called_always_called_hooks):
                try:
                    if hook_id in module._forward_hooks_with_kwargs:
                        hook_result = hook(module, args, kwargs, result)
                    else:
                        hook_result = hook(module, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised "
                                  f"in forward: {str(e)}")
        raise
