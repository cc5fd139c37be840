"""torch.fx for rstorch: symbolic tracing of modules into Graphs of Nodes, Python code
generated from the graphs (GraphModule), their interpretation and transformation.

How calls of rstorch's functions on traced values become nodes: see `_dispatch`."""
from . import _symbolic_trace, graph, graph_module, node, proxy  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Node", "Proxy", "Interpreter",
           "Transformer", "replace_pattern", "map_arg", "has_side_effect", "PH"]


def __getattr__(name):
    import importlib
    if name == "passes":
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'rstorch.fx' has no attribute '{name}'")
