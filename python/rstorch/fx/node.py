"""fx's Node: one operation of a Graph (its opcode, target, arguments, users), and the helpers that
map over the nested arguments (`map_arg`, `map_aggregate`)."""
import builtins
import operator

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect", "Argument", "Target"]

Argument = object
Target = object

# Call-function targets that only have effects (codegen keeps them, dead-code elimination too).
_SIDE_EFFECTS = {operator.setitem, builtins.print}


def has_side_effect(fn):
    """Marks `fn` as having effects: its call_function nodes survive dead-code elimination."""
    _SIDE_EFFECTS.add(fn)
    return fn


def map_aggregate(a, fn):
    """Applies `fn` to every leaf of the nested tuples, lists, dicts and slices in `a`."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(e, fn) for e in a)
        # A named tuple is rebuilt as its own type.
        return type(a)(*mapped) if hasattr(a, "_fields") else mapped
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Applies `fn` to every Node in the nested arguments `a`; other leaves stay."""
    assert callable(fn), "torch.fx.map_arg(a, fn): fn must be a callable"
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _nodes_in(a):
    found = {}
    map_arg(a, lambda n: found.setdefault(n))
    return found


def _type_repr(obj):
    """`torch.Tensor`, `int`, `mymodule.Cls`: a type annotation as fx writes it."""
    if isinstance(obj, type):
        import rstorch
        if getattr(rstorch, obj.__name__, None) is obj:
            return f"torch.{obj.__name__}"
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return f"{obj.__module__}.{obj.__qualname__}"
    return repr(obj).replace("rstorch.", "torch.")


def _format_arg(arg, max_list_len=float("inf")):
    """An argument as Graph's text shows it: `%name` for nodes, plain `str` for the rest."""
    if isinstance(arg, Node):
        return "%" + str(arg)
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return str(arg)


class Node:
    """One operation: `op` is placeholder, get_attr, call_function, call_module, call_method or
    output; `args`/`kwargs` hold other Nodes and constants; `users` are the Nodes that use it."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root"):
            raise ValueError(f"Unsupported node op {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("call_method", "call_module", "get_attr", "placeholder", "output") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self.meta = {}
        self.stack_trace = None
        self._prev = self
        self._next = self
        self._erased = False
        self._args = ()
        self._kwargs = {}
        self._update_args_kwargs(args, kwargs)

    # ---- position in the graph ----
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x):
        """Moves node `x` to just before this one."""
        assert self.graph is x.graph, "Attempting to move a Node into a different Graph"
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Moves node `x` to just after this one."""
        self._next.prepend(x)

    # ---- arguments and uses ----
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args = tuple(map_aggregate(tuple(new_args), lambda x: x))
        self._kwargs = dict(map_aggregate(dict(new_kwargs), lambda x: x))
        self._input_nodes = {}
        for n in list(_nodes_in(self._args)) + list(_nodes_in(self._kwargs)):
            self._input_nodes.setdefault(n)
            n.users.setdefault(self)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        """Inserts `arg` at position `idx` of the positional arguments."""
        assert 0 <= idx <= len(self.args), "insert_args index must be between 0 and len(self.args)"
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Makes every user of this node use `replace_with` instead; returns the changed users."""
        if propagate_meta:
            assert not replace_with.meta, "Called node.replace_all_uses_with(replace_with, propagate_meta=True), " \
                "but replace_with already has .meta keys"
            replace_with.meta.update(self.meta)
        to_process = [u for u in self.users if delete_user_cb(u)]
        for user in to_process:
            user._replace_input(self, replace_with)
        return to_process

    def replace_input_with(self, old_input, new_input):
        self._replace_input(old_input, new_input)

    def _replace_input(self, old, new):
        swap = lambda n: new if n is old else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self):
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _SIDE_EFFECTS or getattr(self.target, "_fx_impure", False)
        if self.op == "call_module" and self.graph.owning_module is not None:
            try:
                mod = self.graph.owning_module.get_submodule(self.target)
            except AttributeError:
                return False
            return getattr(mod, "_is_impure", False)
        return False

    # ---- text ----
    def __repr__(self):
        return self.name

    def _pretty_target(self):
        if self.op == "call_function":
            from ._dispatch import qualified_name
            return qualified_name(self.target)
        return str(self.target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The node as one line of Graph's text (`%name : [num_users=N] = op[target=T](...)`)."""
        if self.op == "placeholder":
            assert isinstance(self.target, str)
            default = f"(default={self.args[0]})" if self.args else ""
            if placeholder_names is not None:
                placeholder_names.append(self.target + default)
                return None
            typ = f"{_type_repr(self.type)} " if self.type is not None else ""
            return f"%{self.name} : {typ}[num_users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            typ = f"{_type_repr(self.type)} " if self.type is not None else ""
            return f"%{self.name} : {typ}[num_users={len(self.users)}] = {self.op}[target={self.target}]"
        if self.op == "output":
            if self.type is not None and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        typ = f"{_type_repr(self.type)} " if self.type is not None else ""
        return (f"%{self.name} : {typ}[num_users={len(self.users)}] = {self.op}[target={self._pretty_target()}]("
                f"args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")


# Nodes key dicts and sets by identity (fx compares them the same way).
Node.__hash__ = object.__hash__
