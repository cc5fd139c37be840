"""Symbolic tracing: `Tracer.trace` runs a module's forward (or a function) on Proxies and
records what it does as a Graph; `symbolic_trace` wraps the result in a GraphModule; `wrap`
keeps a module-level function as one call_function node."""
import builtins
import inspect
import math
import operator
import sys

from . import _dispatch
from .graph import Graph
from .proxy import ParameterProxy, Proxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH"]

# (id of a module's globals, function name) -> those globals: the functions `wrap` registered.
_wrapped_fns_to_patch = {}


def _assert(condition, message):
    """`torch._assert`: an assert that tracing records as a node."""
    assert condition, message


def _assert_is_none(value, msg):
    assert value is None, msg


# The checks are effects: dead-code elimination keeps them; torch._assert is rstorch's.
_assert._fx_impure = _assert_is_none._fx_impure = True
_assert.__module__ = "rstorch"


class _PH:
    def __repr__(self):
        return "PH"


PH = _PH()


def wrap(fn_or_name):
    """Called at a module's top level: tracing then records calls of this global function as
    one call_function node (when an argument is a Proxy) instead of tracing through it."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    fn_name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    frame = sys._getframe(1)
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(frame.f_globals), fn_name)] = frame.f_globals
    return fn_or_name


def _make_wrapped_fn(original):
    def wrapper(*args, **kwargs):
        proxy = _dispatch.find_proxy(args, kwargs)
        if proxy is None:
            return original(*args, **kwargs)
        result = proxy.tracer.create_proxy("call_function", original, args, kwargs)
        result.node.meta["is_wrapped"] = True
        return result
    wrapper._fx_original = original
    return wrapper


class _Patcher:
    """Sets attributes for the length of a trace and puts the old values back."""

    def __init__(self):
        self._undo = []

    def patch(self, owner, name, value):
        is_dict = isinstance(owner, dict)
        had = name in owner if is_dict else name in owner.__dict__
        old = (owner.get(name) if is_dict else owner.__dict__.get(name))
        self._undo.append((owner, name, had, old))
        if is_dict:
            owner[name] = value
        else:
            setattr(owner, name, value)

    def restore(self):
        while self._undo:
            owner, name, had, old = self._undo.pop()
            if isinstance(owner, dict):
                if had:
                    owner[name] = old
                else:
                    owner.pop(name, None)
            elif had:
                setattr(owner, name, old)
            else:
                delattr(owner, name)


class Tracer(TracerBase):
    """Turns a module or function into a Graph. Subclasses change what stays a leaf
    (`is_leaf_module`), how calls are recorded (`create_node`, `create_proxy`) and so on."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {id(v) for m in autowrap_modules for k, v in m.__dict__.items()
                                       if not k.startswith("_") and callable(v)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.proxy_buffer_attributes = True
        self.submodule_paths = None
        self.root = None
        self.graph = None
        self.tensor_attrs = {}
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}

    # ---- what becomes a node ----
    def is_leaf_module(self, m, module_qualified_name):
        """rstorch.nn's own modules (but Sequential) are leaves: one call_module node each."""
        import rstorch.nn as nn
        module = type(m).__module__ or ""
        return (module.startswith("rstorch.nn") or module.startswith("torch.nn")) and not isinstance(m, nn.Sequential)

    def get_fresh_qualname(self, prefix):
        """`prefix` followed by the first number no attribute of the root has yet."""
        i = 0
        while hasattr(self.root, f"{prefix}{i}"):
            i += 1
        return f"{prefix}{i}"

    def path_of_module(self, mod):
        if self.submodule_paths is not None:
            path = self.submodule_paths.get(id(mod))
            if path is not None and path[1] is mod:
                return path[0]
        for name, candidate in self.root.named_modules():
            if candidate is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A parameter (or buffer) read as `self.name` becomes a get_attr node."""
        import rstorch
        from rstorch.nn import Parameter
        if isinstance(attr_val, Parameter):
            table = self._parameter_names
        elif self.proxy_buffer_attributes and isinstance(attr_val, rstorch.Tensor):
            table = self._buffer_names
        else:
            return attr_val
        name = table.get(id(attr_val))
        if name is None:
            return attr_val
        if name not in parameter_proxy_cache:
            if self.param_shapes_constant and isinstance(attr_val, Parameter):
                kwargs = {"proxy_factory_fn": lambda node: ParameterProxy(self, node, name, attr_val)}
            else:
                kwargs = {}
            parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {}, **kwargs)
        return parameter_proxy_cache[name]

    def create_arg(self, a):
        """Tensors of the root become get_attr nodes; other tensors are stored on the root as
        `_tensor_constant<i>` attributes and read back the same way."""
        import rstorch
        import rstorch.nn as nn
        if isinstance(a, (Proxy,)):
            return a.node
        if isinstance(a, rstorch.Tensor):
            name = self._parameter_names.get(id(a)) or self._buffer_names.get(id(a)) or self.tensor_attrs.get(id(a))
            if name is None:
                name = self.get_fresh_qualname("_tensor_constant")
                setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
                self._constants.append(a)  # keeps the id valid while tracing
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, nn.Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        return super().create_arg(a)

    # ---- tracing ----
    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())
        if is_module:
            params = params[1:]
        concrete_args = dict(concrete_args or {})
        args = []
        for p in params:
            if p.kind == p.VAR_KEYWORD:
                raise RuntimeError("symbolically traced functions cannot take **kwargs")
            if p.name in concrete_args:
                args.append(self._concrete_arg(p.name, concrete_args[p.name]))
                continue
            name = "*" + p.name if p.kind == p.VAR_POSITIONAL else p.name
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            type_expr = p.annotation if p.annotation is not inspect.Parameter.empty else None
            proxy = self.create_proxy("placeholder", name, default, {}, type_expr=type_expr)
            if p.kind == p.VAR_POSITIONAL:
                raise NotImplementedError("symbolic tracing of *args is not supported")
            args.append(proxy)
        return args

    def _concrete_arg(self, name, value):
        """A specialized argument keeps its parameter, and the graph checks it has that value."""
        proxy = self.create_proxy("placeholder", f"{name}_1", (), {})
        if value is PH:
            return proxy
        message = f"{name} has been specialized to have value {value} but got another value"
        if value is None:
            self.create_proxy("call_function", _assert_is_none, (proxy, message), {})
        elif type(value) in (bool, int, float, str):
            check = self.create_proxy("call_function", operator.eq, (proxy, value), {})
            self.create_proxy("call_function", _assert, (check, message), {})
        return value

    def trace(self, root, concrete_args=None):
        """Runs `root` on Proxies and returns the recorded Graph."""
        import rstorch.nn as nn
        if isinstance(root, nn.Module):
            self.root = root
            fn = type(root).forward
            is_module = True
        else:
            self.root = nn.Module()
            fn = root
            is_module = False
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self._constants = []
        self._parameter_names = {id(p): n for n, p in self.root.named_parameters()}
        self._buffer_names = {id(b): n for n, b in self.root.named_buffers()}
        self.submodule_paths = {id(m): (n, m) for n, m in self.root.named_modules()}
        fn_globals = getattr(inspect.unwrap(fn), "__globals__", {})

        patcher = _Patcher()
        _dispatch.acquire()
        try:
            self._patch_for_trace(patcher, fn_globals)
            args = self.create_args_for_root(fn, is_module, concrete_args)
            result = fn(root, *args) if is_module else fn(*args)
            return_type = getattr(fn, "__annotations__", {}).get("return")
            self.create_node("output", "output", (self.create_arg(result),), {}, type_expr=return_type)
        finally:
            patcher.restore()
            _dispatch.release()
            self.submodule_paths = None
        return self.graph

    def _patch_for_trace(self, patcher, fn_globals):
        import rstorch.nn as nn
        tracer = self
        orig_call = nn.Module.__call__
        orig_getattr = nn.Module.__getattr__
        parameter_proxy_cache = {}

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)
            return tracer.call_module(mod, forward, args, kwargs)

        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        patcher.patch(nn.Module, "__call__", module_call_wrapper)
        patcher.patch(nn.Module, "__getattr__", module_getattr_wrapper)
        for globals_dict, name in [(g, n) for (_, n), g in _wrapped_fns_to_patch.items()]:
            original = globals_dict.get(name, getattr(builtins, name, None))
            if original is not None:
                patcher.patch(globals_dict, name, _make_wrapped_fn(_dispatch.original_of(original)))
        for name, value in list(fn_globals.items()):
            if id(value) in self._autowrap_function_ids and not name.startswith("_"):
                patcher.patch(fn_globals, name, _make_wrapped_fn(value))


def symbolic_trace(root, concrete_args=None):
    """Traces `root` (a module or a function) into a GraphModule."""
    import rstorch.nn as nn
    from .graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

