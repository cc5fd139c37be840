"""Pictures of the autograd graph, as torchviz draws them: `make_dot(output,
params=dict(model.named_parameters()))` returns a `graphviz.Digraph` (the `graphviz` package),
which renders to SVG or PNG where Graphviz's `dot` program is installed (`.render`, `.pipe`)."""
from . import _C

_SAVED_PREFIX = "_saved_"


def _size(t):
    return "(" + ", ".join("%d" % s for s in t.shape) + ")"


def _attrs_table(fn, name, max_attr_chars):
    """The node's name over a two-column table of its `_saved_*` attributes (tensors shown as
    placeholders), values cut to `max_attr_chars`."""
    attrs = {}
    for attr in dir(fn):
        if not attr.startswith(_SAVED_PREFIX):
            continue
        val = getattr(fn, attr)
        if isinstance(val, _C.Tensor):
            val = "[saved tensor]"
        elif isinstance(val, tuple) and any(isinstance(v, _C.Tensor) for v in val):
            val = "[saved tensors]"
        attrs[attr[len(_SAVED_PREFIX):]] = str(val)
    if not attrs:
        return name
    key_width = max(map(len, attrs))
    val_width = min(max(map(len, attrs.values())), max(max_attr_chars, 3))

    def cut(s):
        return s if len(s) <= val_width else s[:val_width - 3] + "..."
    rows = [f"{k.ljust(key_width)}: {cut(v).rjust(val_width)}" for k, v in attrs.items()]
    return "\n".join([name, "-" * max(key_width + val_width + 2, len(name))] + rows)


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """The graph that produced `var` (a tensor or a tuple of tensors), as torchviz's `make_dot`
    draws it: backward nodes grey (with their saved non-tensor arguments when `show_attrs`),
    leaves that accumulate a gradient light blue (named from `params`, a name -> tensor dict),
    tensors saved for backward orange (built-in nodes' ones when `show_saved`; a Python
    Function's always), the outputs green and the bases of views dark green."""
    from graphviz import Digraph

    names = {}
    if params is not None:
        if not all(isinstance(p, _C.Tensor) for p in params.values()):
            # torchviz asserts it.
            raise AssertionError("make_dot: the values of params must be tensors")
        names = {id(p): n for n, p in params.items()}
    dot = Digraph(node_attr=dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                                 height="0.2", fontname="monospace"), graph_attr=dict(size="12,12"))
    # Identities of the nodes and tensors drawn; `alive` keeps them from being reused meanwhile.
    seen, alive = set(), []

    def mark(obj):
        seen.add(id(obj))
        alive.append(obj)

    def tensor_label(t, name=None):
        return "%s\n %s" % (name or names.get(id(t), ""), _size(t))

    def saved_node(fn, t, name=None):
        mark(t)
        dot.edge(str(id(fn)), str(id(t)), dir="none")
        dot.node(str(id(t)), tensor_label(t, name), fillcolor="orange")

    def enter(fn):
        """Draws `fn` itself (what it saved, its leaf); its inputs are walked by the caller."""
        mark(fn)
        if show_saved:
            for attr in dir(fn):
                if not attr.startswith(_SAVED_PREFIX):
                    continue
                val = getattr(fn, attr)
                short = attr[len(_SAVED_PREFIX):]
                if isinstance(val, _C.Tensor):
                    saved_node(fn, val, short)
                elif isinstance(val, tuple):
                    for i, t in enumerate(val):
                        if isinstance(t, _C.Tensor):
                            saved_node(fn, t, f"{short}[{i}]")
        if hasattr(fn, "variable"):
            leaf = fn.variable
            mark(leaf)
            dot.node(str(id(leaf)), tensor_label(leaf), fillcolor="lightblue")
            dot.edge(str(id(leaf)), str(id(fn)))
        label = _attrs_table(fn, type(fn).__name__, max_attr_chars) if show_attrs else type(fn).__name__
        dot.node(str(id(fn)), label)

    def leave(fn):
        if hasattr(fn, "saved_tensors"):
            for t in fn.saved_tensors:
                mark(t)
                dot.edge(str(id(t)), str(id(fn)), dir="none")
                dot.node(str(id(t)), tensor_label(t), fillcolor="orange")

    def add_nodes(root):
        # Depth first, with a stack of iterators rather than recursion: a graph may be far
        # deeper than Python's recursion limit. Each edge is drawn before the node it comes from.
        if id(root) in seen:
            return
        enter(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            fn, inputs = stack[-1]
            for nxt, _ in inputs:
                if nxt is None:
                    continue
                dot.edge(str(id(nxt)), str(id(fn)))
                if id(nxt) not in seen:
                    enter(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                leave(fn)
                stack.pop()

    def add_output(t, color="darkolivegreen1"):
        if id(t) in seen:
            return
        mark(t)
        dot.node(str(id(t)), tensor_label(t), fillcolor=color)
        if t.grad_fn is not None:
            add_nodes(t.grad_fn)
            dot.edge(str(id(t.grad_fn)), str(id(t)))
        base = t._base if t._is_view() else None
        if base is not None:
            # A view's base is no view itself: this recursion is one level deep.
            add_output(base, "darkolivegreen3")
            dot.edge(str(id(base)), str(id(t)), style="dotted")

    for t in (var if isinstance(var, (tuple, list)) else (var,)):
        add_output(t)
    # Bigger graphs get a bigger drawing: 0.15 inch per statement, 12 inches at least.
    size = max(12, len(dot.body) * 0.15)
    dot.graph_attr.update(size=f"{size},{size}")
    return dot
