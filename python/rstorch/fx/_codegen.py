"""Python source for a Graph, in fx's shape: one statement per node, `name = expr;  a = b = None`
freeing values after their last use, operators written as operators, and the globals (`torch`,
wrapped functions) the source needs."""
import builtins
import keyword
import math
import operator
import re

from ._namespace import PythonCode, _Namespace
from .node import Node

_BINARY_SYMBOLS = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/", operator.floordiv: "//",
    operator.mod: "%", operator.pow: "**", operator.matmul: "@", operator.lshift: "<<", operator.rshift: ">>",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.eq: "==", operator.ne: "!=",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
}
_UNARY_SYMBOLS = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _is_identifier(s):
    return bool(_IDENT.match(s)) and not keyword.iskeyword(s)


def _format_target(base, target):
    """`self.a.b`, with `getattr(self.seq, "0")` for parts that are not identifiers."""
    expr = base
    for atom in target.split("."):
        expr = f"{expr}.{atom}" if _is_identifier(atom) else f'getattr({expr}, "{atom}")'
    return expr


class _Emitter:
    def __init__(self, graph):
        import rstorch
        self.namespace = _Namespace()
        for node in graph.nodes:
            self.namespace.create_name(node.name, node)
        self.globals = {"torch": rstorch, "operator": operator, "math": math, "device": rstorch.device,
                        "inf": math.inf, "nan": math.nan, "NoneType": type(None)}
        self.wrapped = []

    def add_global(self, obj):
        """The name under which the generated code reaches `obj`."""
        from ._dispatch import qualified_name
        qualified = qualified_name(obj)
        root = qualified.split(".", 1)[0]
        if root in ("torch", "math") and self._resolves(qualified, obj):
            return qualified
        if qualified.startswith("builtins.") and getattr(builtins, qualified[9:], None) is obj:
            return qualified[9:]
        if qualified.startswith("operator."):
            qualified = "_" + qualified  # fx names operator's functions by their module, _operator
        name = re.sub(r"[^0-9a-zA-Z_]+", "_", qualified)
        if name in self.globals and self.globals[name] is obj:
            return name
        name = self.namespace.create_name(name, obj)
        self.globals[name] = obj
        return name

    def _resolves(self, qualified, obj):
        from ._dispatch import original_of
        value = self.globals.get(qualified.split(".", 1)[0])
        for atom in qualified.split(".")[1:]:
            value = getattr(value, atom, None)
        return original_of(value) is obj

    def annotation(self, typ):
        """` : torch.Tensor` for a placeholder's type (classes only; others are left out)."""
        if not isinstance(typ, type):
            return ""
        import rstorch
        if getattr(rstorch, typ.__name__, None) is typ:
            return f" : torch.{typ.__name__}"
        if typ.__module__ == "builtins":
            return f" : {typ.__qualname__}"
        return f" : {self.add_global(typ)}"

    def repr_arg(self, a):
        import rstorch
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                cls = self.add_global(type(a))
                return f"{cls}({', '.join(self.repr_arg(e) for e in a)})"
            inner = ", ".join(self.repr_arg(e) for e in a)
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        if isinstance(a, list):
            return "[" + ", ".join(self.repr_arg(e) for e in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{self.repr_arg(k)}: {self.repr_arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self.repr_arg(a.start)}, {self.repr_arg(a.stop)}, {self.repr_arg(a.step)})"
        if isinstance(a, rstorch.dtype):
            return f"torch.{str(a).split('.')[-1]}"
        if isinstance(a, float) and (math.isinf(a) or math.isnan(a)):
            return repr(a)  # `inf`, `nan`: globals of the generated code
        if isinstance(a, type) or callable(a) and not isinstance(a, (int, float, str)):
            return self.add_global(a)
        import enum
        if isinstance(a, enum.Enum):
            return f"{self.add_global(type(a))}.{a.name}"
        return repr(a)

    def call_args(self, args, kwargs):
        parts = [self.repr_arg(a) for a in args] + [f"{k} = {self.repr_arg(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def expression(self, node, root_module):
        op, target, args, kwargs = node.op, node.target, node.args, node.kwargs
        if op == "call_method":
            return f"{self.repr_arg(args[0])}.{target}({self.call_args(args[1:], kwargs)})"
        if op == "call_module":
            return f"{_format_target(root_module, target)}({self.call_args(args, kwargs)})"
        if op == "get_attr":
            return _format_target(root_module, target)
        # call_function
        if not kwargs and len(args) == 2 and target in _BINARY_SYMBOLS:
            return f"{self.repr_arg(args[0])} {_BINARY_SYMBOLS[target]} {self.repr_arg(args[1])}"
        if not kwargs and len(args) == 1 and target in _UNARY_SYMBOLS:
            return f"{_UNARY_SYMBOLS[target]}{self.repr_arg(args[0])}"
        if target is operator.getitem and not kwargs and len(args) == 2:
            return f"{self.repr_arg(args[0])}[{self.repr_arg(args[1])}]"
        if (target is builtins.getattr and not kwargs and len(args) == 2 and isinstance(args[1], str)
                and _is_identifier(args[1])):
            return f"{self.repr_arg(args[0])}.{args[1]}"
        name = self.add_global(target)
        if node.meta.get("is_wrapped") and name not in self.wrapped:
            self.wrapped.append(name)
        return f"{name}({self.call_args(args, kwargs)})"


def generate(graph, root_module):
    emitter = _Emitter(graph)
    nodes = list(graph.nodes)
    # The values each node is the last user of (a value no one uses is freed where it is made).
    seen = set()
    last_uses = {}
    for node in reversed(nodes):
        frees = []
        for arg in node._input_nodes:
            if arg not in seen:
                seen.add(arg)
                frees.append(arg)
        last_uses[node] = frees
    params, body, returns = [], [], ""
    for node in nodes:
        if node.op == "placeholder":
            param = node.target + emitter.annotation(node.type)
            if node.args:
                param += f" = {emitter.repr_arg(node.args[0])}"
            params.append(param)
            # A placeholder renamed (`input` is a builtin: node `input_1`) takes the parameter's value.
            if node.target.lstrip("*") != node.name:
                body.append(f"{node.name} = {node.target.lstrip('*')}")
            continue
        if node.op == "output":
            returns = emitter.annotation(node.type).replace(" : ", " -> ")
            body.append(f"return {emitter.repr_arg(node.args[0])}")
            continue
        stmt = f"{node.name} = {emitter.expression(node, root_module)}"
        frees = list(last_uses[node])
        if not node.users:
            frees = frees + [node]
        if frees:
            stmt += ";  " + " = ".join(n.name for n in frees) + " = None"
        body.append(stmt)
    if not any(n.op == "output" for n in nodes):
        body.append("pass")
    wrap_stmts = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in emitter.wrapped)
    signature = ", ".join([root_module] + params)
    src = f"\n{wrap_stmts}\n\ndef forward({signature}){returns}:\n" + "".join(f"    {line}\n" for line in body) + "    "
    return PythonCode(src, emitter.globals)
