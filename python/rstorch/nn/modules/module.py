"""`Module`, the base class of every layer: registration of parameters, buffers and children,
traversal, state dicts, dtype/device conversion, hooks and the call path. The hook registries
and the call path of a module with hooks live in `_module_hooks`, state-dict loading in
`_state_dict`, `to()`'s argument parsing in `_conversion`; their names are importable from here
as before."""
import itertools
import warnings
from collections import OrderedDict

from ... import _C
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from ._conversion import _parse_to, _place  # noqa: F401 (layers import _place from here)
from ._module_hooks import (  # noqa: F401 (the register_module_* functions are public here)
    _WrappedHook, _backward_hooks_of, _call_with_hooks, _global_backward_hooks,
    _global_backward_pre_hooks, _global_buffer_registration_hooks, _global_forward_hooks,
    _global_forward_pre_hooks, _global_module_registration_hooks,
    _global_parameter_registration_hooks, _warn_non_full_backward_hook,
    register_module_backward_hook, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook)
from ._state_dict import (  # noqa: F401 (_IncompatibleKeys stays importable from here)
    _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys, _copy_own_entries, _load_state_dict)

Tensor = _C.Tensor

__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_full_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]


def _typename(obj):
    """The type name PyTorch's messages use: `rstorch.FloatTensor` for tensors, the qualified
    name of a class or function, the qualified class name of any other object (bare for
    builtins)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _addindent(s_, num_spaces):
    """Indents every line but the first of a multi-line repr (a child inside its parent's)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              '"forward" function')


class Module:
    """Base class for all neural-network modules. Subclasses call `super().__init__()` first,
    then assign parameters, buffers and submodules as attributes, and define `forward`."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__ skips our own routing: none of the dicts exist yet.
        set_ = super().__setattr__
        set_("training", True)
        set_("_parameters", {})
        set_("_buffers", {})
        set_("_non_persistent_buffers_set", set())
        set_("_backward_pre_hooks", OrderedDict())
        set_("_backward_hooks", OrderedDict())
        set_("_is_full_backward_hook", None)
        set_("_forward_hooks", OrderedDict())
        set_("_forward_hooks_with_kwargs", OrderedDict())
        set_("_forward_hooks_always_called", OrderedDict())
        set_("_forward_pre_hooks", OrderedDict())
        set_("_forward_pre_hooks_with_kwargs", OrderedDict())
        set_("_state_dict_hooks", OrderedDict())
        set_("_state_dict_pre_hooks", OrderedDict())
        set_("_load_state_dict_pre_hooks", OrderedDict())
        set_("_load_state_dict_post_hooks", OrderedDict())
        set_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ---- registration ---------------------------------------------------------------------

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a tensor that is state but not a parameter (e.g. running statistics).
        Non-persistent buffers are left out of `state_dict`."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter (a `Parameter` or None) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module (or None) under `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at dotted path `target` ('' is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replaces (or, unless `strict`, adds) the submodule at dotted path `target`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            existing = getattr(parent, atoms[-1])
            if not isinstance(existing, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The parameter at dotted path `target`."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at dotted path `target`."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Override (with `set_extra_state`) to save extra, picklable state in `state_dict`."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called.")

    def set_extra_state(self, state):
        """Override (with `get_extra_state`) to load what `get_extra_state` saved."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called.")

    # ---- conversion -----------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        """Applies `fn` to every parameter, gradient and buffer (children first)."""
        if recurse:
            for module in self.children():
                module._apply(fn)

        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            # Same Parameter object, new data: optimizers holding it stay valid.
            if param_applied is not param:
                param.data = param_applied
            param_grad = param.grad
            if param_grad is not None:
                with no_grad():
                    grad_applied = fn(param_grad)
                if grad_applied is not param_grad:
                    param.grad = grad_applied.requires_grad_(param_grad.requires_grad)

        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Calls `fn` on every submodule (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        """Moves and/or casts parameters and buffers: `to(device, dtype, non_blocking)`,
        `to(dtype)`, `to(tensor)`; `memory_format=` lays out the 4-D and 5-D ones (channels_last
        weights for channels_last inputs). Only floating-point tensors change dtype."""
        memory_format = kwargs.get("memory_format")
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        def convert(t):
            t_dtype = dtype if (t.is_floating_point() or t.is_complex()) else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(device=device, dtype=t_dtype, non_blocking=non_blocking, memory_format=memory_format)
            return t.to(device=device, dtype=t_dtype, non_blocking=non_blocking)

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def share_memory(self):
        """Moves parameters, gradients and buffers to shared memory in place (`Tensor.share_memory_`),
        so processes given this module update one set of numbers."""
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device=None):
        """Moves parameters and buffers to the GPU (`Tensor.cuda`'s device and errors)."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        """Casts all parameters and buffers to `dst_type`."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        """Replaces parameters and buffers with uninitialised tensors of the same shape."""
        return self._apply(lambda t: _C.empty(*t.shape, dtype=t.dtype, device=device),
                           recurse=recurse)

    # ---- hooks ----------------------------------------------------------------------------

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output) -> None or new grad_output`, run when the gradients with
        respect to the module's outputs are known."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """Deprecated: a hook on the last autograd node of the output. Prefer
        `register_full_backward_hook`."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output) -> None or new grad_input`, run when the
        gradients with respect to the module's inputs are known."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        return _backward_hooks_of(self)

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        _warn_non_full_backward_hook(inputs, result, grad_fn)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args) -> None or new args` (a non-tuple result is wrapped in a tuple);
        with `with_kwargs=True`, `hook(module, args, kwargs) -> None or (args, kwargs)`."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output) -> None or new output`; with `with_kwargs=True`,
        `hook(module, args, kwargs, output)`. `always_call` runs it even if forward raised."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    # ---- calling --------------------------------------------------------------------------

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        # Fast path: no hooks anywhere, so calling is just forward.
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks or _global_backward_hooks
                or _global_forward_hooks or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        return _call_with_hooks(self, forward_call, args, kwargs)

    __call__ = _call_impl

    # ---- attribute routing ----------------------------------------------------------------

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Objects pickled before an attribute existed get its default.
        defaults = {
            "_forward_pre_hooks": OrderedDict, "_forward_pre_hooks_with_kwargs": OrderedDict,
            "_forward_hooks": OrderedDict, "_forward_hooks_with_kwargs": OrderedDict,
            "_forward_hooks_always_called": OrderedDict, "_state_dict_hooks": OrderedDict,
            "_state_dict_pre_hooks": OrderedDict, "_load_state_dict_pre_hooks": OrderedDict,
            "_load_state_dict_post_hooks": OrderedDict, "_non_persistent_buffers_set": set,
            "_backward_pre_hooks": OrderedDict, "_backward_hooks": OrderedDict,
        }
        for name, factory in defaults.items():
            if name not in self.__dict__:
                object.__setattr__(self, name, factory())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)

    def __getattr__(self, name):
        # Only reached when normal lookup fails: parameters, buffers and children live in
        # their dicts, not in __dict__.
        d = self.__dict__
        if "_parameters" in d:
            _parameters = d["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in d:
            _buffers = d["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer):
                    # `nn.Buffer(t, persistent=...)` registers t as a buffer of that persistence.
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.Tensor or None expected)")
                    for hook in _global_buffer_registration_hooks.values():
                        output = hook(self, name, value)
                        if output is not None:
                            value = output
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        # Names that are not valid identifiers (Sequential's "0", "1", ...) are left out.
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(keys)

    # ---- state dicts ----------------------------------------------------------------------

    def _register_state_dict_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata) -> None or new state_dict`, run
        after the module's entries are saved."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    register_state_dict_post_hook = _register_state_dict_hook

    def register_state_dict_pre_hook(self, hook):
        """`hook(module, prefix, keep_vars)`, run before `state_dict` saves anything."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Saves this module's own parameters and persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer, keyed by dotted path: a
        module's own parameters, then its buffers, then each child's entries in turn."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()

        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata

        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """`hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)` (with the module first if `with_module`), run before loading."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`, run before loading."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """`hook(module, incompatible_keys)`, run after loading; may edit the key lists."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Loads this module's own entries (not its children's) and records missing and
        unexpected keys and error messages."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)

        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
        local_state = {k: v for k, v in local_name_params if v is not None}
        assign_to_params_buffers = local_metadata.get("assign_to_params_buffers", False)

        _copy_own_entries(self, state_dict, prefix, local_state, strict,
                          assign_to_params_buffers, missing_keys, error_msgs)

        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)

        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    # A dotted name must belong to a child module.
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from `state_dict` into this module and its children.
        With `strict`, missing or unexpected keys raise; either way they are returned as
        `(missing_keys, unexpected_keys)`. With `assign`, tensors are assigned, not copied."""
        return _load_state_dict(self, state_dict, strict, assign)

    # ---- traversal ------------------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        """(name, member) pairs over this module (and its descendants if `recurse`); a member
        reachable twice is listed once when `remove_duplicate`."""
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda module: module._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda module: module._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) for self (name `prefix`) and every descendant, depth first."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- training state -------------------------------------------------------------------

    def train(self, mode=True):
        """Sets training mode on self and every descendant; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of all parameters: to None by default, else to zeros in place."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ---- printing -------------------------------------------------------------------------

    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The text between the parentheses of this module's repr; override in layers."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines

        main_str = self._get_name() + "("
        if lines:
            # A single line of extra info and no children fits on one line.
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str
