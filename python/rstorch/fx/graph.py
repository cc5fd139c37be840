"""fx's Graph: a doubly linked list of Nodes with unique names, an insertion point, the edits
(erase, copy, dead-code elimination), the checks of `lint` and the text forms."""
import contextlib
import inspect

from ._namespace import PythonCode, _Namespace, _snake_case
from .node import Node, map_arg

__all__ = ["Graph", "PythonCode"]


class _node_list:
    """`graph.nodes`: an ordered view that survives erasing the node being visited."""

    def __init__(self, graph, direction="_next"):
        self._graph = graph
        self._direction = direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = getattr(root, self._direction)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self._direction)

    def __reversed__(self):
        return _node_list(self._graph, "_prev" if self._direction == "_next" else "_next")


class Graph:
    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._co_fields = {}

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        return _node_list(self)

    def output_node(self):
        output = next(iter(reversed(self.nodes)))
        assert output.op == "output", "the last node of the graph must be the output"
        return output

    def process_inputs(self, *args):
        return args

    def process_outputs(self, out):
        return out

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- building ----
    def _target_to_str(self, target):
        if isinstance(target, str):
            if target.startswith("__") and target.endswith("__"):
                target = target[2:-2]
        else:
            from ._dispatch import qualified_name
            target = qualified_name(target).rsplit(".", 1)[-1]
        return _snake_case(target)

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """A new node at the insertion point (the end, unless inserting_before/after say)."""
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        assert isinstance(args, tuple), "args must be a tuple"
        assert isinstance(kwargs, dict), "kwargs must be a dict"
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of `node` (from any graph) here, its Node arguments mapped by `arg_transform`."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = dict(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies the nodes of `g` but its output here; `val_map` maps g's nodes to the copies
        (entries already there are used as given). Returns the copied output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                value = map_arg(node.args[0], lambda n: val_map[n])
                return (value, node) if return_output_node else value
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = {} if memo is None else memo
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        if output_vals is not None:
            value, old_output = output_vals
            new_output = g.output(value, type_expr=old_output.type)
            new_output.meta = dict(old_output.meta)
        return g

    def __reduce__(self):
        # Flat records instead of the linked list (pickle would recurse once per node).
        records = [(n.name, n.op, n.target, map_arg(n.args, lambda a: _NodeRef(a.name)),
                    map_arg(n.kwargs, lambda a: _NodeRef(a.name)), n.type, n.meta) for n in self.nodes]
        return _rebuild_graph, (records,)

    def inserting_before(self, n=None):
        """Within the `with` block, new nodes go before `n` (or at the start of the graph)."""
        return self._insert_point(n.prepend if n is not None else self._root.append)

    def inserting_after(self, n=None):
        """Within the `with` block, new nodes go right after `n` (or at the end of the graph)."""
        return self._insert_point(n.append if n is not None else self._root.prepend)

    @contextlib.contextmanager
    def _insert_point(self, insert):
        orig, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = orig

    def erase_node(self, to_erase):
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs(map_arg(to_erase.args, lambda n: None), map_arg(to_erase.kwargs, lambda n: None))

    def eliminate_dead_code(self, is_impure_node=None):
        """Erases the nodes nothing uses and that have no effects; True when any went."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    # ---- checks ----
    def lint(self):
        """Checks the graph is well formed: each argument defined before use, names unique,
        targets present in the owning module."""
        seen_names, seen = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, "
                                       "but was used as an argument! If you are copying nodes from another "
                                       "graph, make sure to use ``arg_transform`` on node_copy() to remap "
                                       "values\n" + str(self))
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       "Please check that Nodes in the graph are topologically ordered\n"
                                       + str(self))
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            seen.add(node)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                atoms = node.target.split(".")
                obj = mod
                for i, atom in enumerate(atoms):
                    if not hasattr(obj, atom):
                        path = ".".join(atoms[:i])
                        raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                           f"attribute {atom} of {path or 'the root module'}")
                    obj = getattr(obj, atom)
                import rstorch
                if node.op == "call_module" and not isinstance(obj, rstorch.nn.Module):
                    raise RuntimeError(f"Node {node} target {node.target} {atoms[-1]} of "
                                       f"{'.'.join(atoms[:-1]) or 'the root module'} does not reference an "
                                       "nn.Module")

    # ---- text and code ----
    def __str__(self):
        lines = [n.format_node() for n in self.nodes]
        body = "\n".join("    " + line for line in lines if line)
        return f"graph():\n{body}"

    def print_tabular(self):
        """The nodes as a table (opcode, name, target, args, kwargs), printed with `tabulate`."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. "
                  "Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n._pretty_target() if n.op == "call_function" else n.target, n.args, n.kwargs]
                for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def python_code(self, root_module, *, verbose=False, include_stride=False, include_device=False,
                    colored=False):
        from ._codegen import generate
        return generate(self, root_module)


class _NodeRef:
    def __init__(self, name):
        self.name = name


def _rebuild_graph(records):
    g = Graph()
    by_name = {}
    for name, op, target, args, kwargs, type_expr, meta in records:
        look = lambda a: by_name[a.name] if isinstance(a, _NodeRef) else a  # noqa: E731
        from .node import map_aggregate
        node = g.create_node(op, target, map_aggregate(args, look), map_aggregate(kwargs, look), name, type_expr)
        node.meta = meta
        by_name[name] = node
    return g
