"""Pictures of the autograd graph: `make_dot(output, params=dict(model.named_parameters()))`
returns Graphviz DOT source, rendered to SVG or PNG when Graphviz's `dot` program is installed."""
import shutil
import subprocess

from . import _C


def _shape(t):
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


class Dot:
    """DOT source with Graphviz-like helpers (`source`, `pipe`, `render`)."""

    def __init__(self, lines):
        self.source = "\n".join(lines)

    def __str__(self):
        return self.source

    def pipe(self, format="svg"):
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError("rendering needs Graphviz's `dot` program (e.g. apt-get install graphviz)")
        return subprocess.run([dot, f"-T{format}"], input=self.source.encode(), capture_output=True, check=True).stdout

    def render(self, filename="graph", format="svg"):
        path = f"{filename}.{format}"
        with open(path, "wb") as f:
            f.write(self.pipe(format))
        return path

    def _repr_svg_(self):
        return self.pipe("svg").decode()


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """The graph that produced `var` (a tensor or a sequence of tensors): one box per backward
    node, parameters labelled with their names and shapes, outputs in green."""
    names = {p._cdata: n for n, p in (params or {}).items()}
    lines = ["digraph {", '  node [style=filled shape=box align=left fontsize=10 ranksep=0.1 height=0.2 fontname=monospace]',
             '  size="12,12"']
    # Keyed by the node objects themselves (they stay alive in `seen`), walked with a stack of
    # iterators rather than recursion: a graph may be far deeper than Python's recursion limit.
    seen = set()

    def node_id(obj):
        return str(id(obj))

    def describe(fn):
        if fn.name() == "AccumulateGrad":
            v = fn.variable
            label = names.get(v._cdata, "")
            label = (label + "\\n " if label else "") + _shape(v)
            lines.append(f'  {node_id(fn)} [label="{label}" fillcolor=lightblue]')
        else:
            lines.append(f'  {node_id(fn)} [label="{fn.name()}" fillcolor=lightgrey]')

    def add_fn(root):
        if root is None or root in seen:
            return
        seen.add(root)
        describe(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            fn, children = stack[-1]
            for nxt, _ in children:
                if nxt is None:
                    continue
                if nxt not in seen:
                    seen.add(nxt)
                    describe(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    # The edge is written once the child's subgraph is done, as before.
                    break
                lines.append(f"  {node_id(nxt)} -> {node_id(fn)}")
            else:
                stack.pop()
                if stack:
                    lines.append(f"  {node_id(fn)} -> {node_id(stack[-1][0])}")

    outputs = [var] if isinstance(var, _C.Tensor) else list(var)
    for out in outputs:
        lines.append(f'  {node_id(out)} [label="{_shape(out)}" fillcolor=darkolivegreen1]')
        if out.grad_fn is not None:
            add_fn(out.grad_fn)
            lines.append(f"  {node_id(out.grad_fn)} -> {node_id(out)}")
    lines.append("}")
    return Dot(lines)
