"""Proxy: the stand-in value that records what is done to it as Nodes of a Graph, and the tracers
that own the graph being built (TracerBase, GraphAppendingTracer)."""
import builtins
import dis
import operator
import sys

from . import _dispatch
from .node import Node

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy"]


class TraceError(ValueError):
    pass


def _is_base_constant(a):
    import rstorch
    return a is None or a is Ellipsis or isinstance(a, (str, int, float, bool, complex, range,
                                                       rstorch.dtype, rstorch.device))


class TracerBase:
    """What Proxies need of a tracer: a graph to add nodes to and the argument conversion."""
    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None
    module_stack = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Turns the arguments into graph values and returns a Proxy of the new node."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        assert isinstance(args_, tuple)
        assert isinstance(kwargs_, dict)
        node = self.create_node(kind, _dispatch.original_of(target), args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """An argument as the graph stores it: Proxies become their Nodes, containers recurse."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*(self.create_arg(e) for e in a))
            return tuple(self.create_arg(e) for e in a)
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if _is_base_constant(a) or callable(a):
            return a
        import enum
        if isinstance(a, enum.Enum):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or"
                         " as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the"
                         " Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        return Attribute(obj, "keys")()

    def path_of_module(self, mod):
        raise NotImplementedError


class GraphAppendingTracer(TracerBase):
    """A tracer for Proxies made by hand: their operations go into `graph`."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


class Proxy:
    """A value being traced: operators, method calls, attribute reads and calls of rstorch's
    functions on it add Nodes to its tracer's graph and give back new Proxies."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        _dispatch.acquire()
        self.__dict__["_fx_counted"] = True

    def __del__(self):
        if self.__dict__.get("_fx_counted"):
            try:
                _dispatch.release()
            except Exception:  # interpreter shutdown
                pass

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            # Python's protocols (copy, pickle, numpy) probe these; they are not tensor attributes.
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy` unpacks a known number of values: give that many getitem Proxies.
        frame = sys._getframe(1)
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return iter([self[i] for i in range(inst.argval)])
                break
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def keys(self):
        return self.tracer.keys(self)

    def __index__(self):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def __contains__(self, item):
        return self.tracer.to_bool(self)

    def __deepcopy__(self, memo):
        raise RuntimeError("'deepcopy' is not supported for a Proxy")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        """The entry rstorch's handle_torch_function uses: record `orig_method` as a node."""
        kwargs = kwargs or {}
        proxy = _dispatch.find_proxy(args, kwargs)
        if isinstance(orig_method, str):
            return proxy.tracer.create_proxy("call_method", orig_method, args, kwargs)
        return proxy.tracer.create_proxy("call_function", orig_method, args, kwargs)


Proxy.__hash__ = object.__hash__
_dispatch.set_proxy_class(Proxy)


class Attribute(Proxy):
    """`proxy.name`: a method call when called, else a getattr node made on first use."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None
        _dispatch.acquire()
        self.__dict__["_fx_counted"] = True

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", builtins.getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A get_attr Proxy of a parameter: its shape and size are known while tracing."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


_BINARY = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "truediv": "/", "div": "/", "mod": "%",
           "pow": "**", "lshift": "<<", "rshift": ">>", "and_": "&", "or_": "|", "xor": "^",
           "getitem": None, "matmul": "@"}
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_UNARY = {"neg": "-", "pos": "+", "invert": "~"}


def _add_magic(method, reflected):
    target = getattr(operator, method)
    dunder = method.rstrip("_")
    if dunder == "div":
        target = operator.truediv

    def impl(self, *args):
        operands = (args[0], self) if reflected else (self,) + args
        return self.tracer.create_proxy("call_function", target, operands, {})
    impl.__name__ = f"__r{dunder}__" if reflected else f"__{dunder}__"
    setattr(Proxy, impl.__name__, impl)


for _m in list(_BINARY) + list(_COMPARE) + list(_UNARY):
    if _m == "div":
        continue
    _add_magic(_m, False)
for _m in _BINARY:
    if _m not in ("getitem", "div"):
        _add_magic(_m, True)
# Comparisons keep identity hashing (Proxies are dict keys in user code and fx's own tables).
Proxy.__hash__ = object.__hash__
