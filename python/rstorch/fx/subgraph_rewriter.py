"""`replace_pattern(gm, pattern, replacement)`: finds the non-overlapping places where the graph of
`pattern` occurs in `gm`'s graph and puts a copy of `replacement`'s graph in each."""
from collections import namedtuple

from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Match", "replace_pattern", "replace_pattern_with_filters"]

Match = namedtuple("Match", ["anchor", "nodes_map"])


def _graph_of(fn):
    if isinstance(fn, GraphModule):
        return fn.graph
    if isinstance(fn, Graph):
        return fn
    from ._symbolic_trace import symbolic_trace
    return symbolic_trace(fn).graph


class _Matcher:
    """Matches the pattern's returned node at a graph node, following arguments backwards;
    the pattern's placeholders match any value."""

    def __init__(self, pattern):
        nodes = list(pattern.nodes)
        self.placeholders = [n for n in nodes if n.op == "placeholder"]
        output = next(n for n in nodes if n.op == "output")
        self.returns = [n for n in output.all_input_nodes]
        if len(self.returns) != 1:
            raise NotImplementedError("replace_pattern supports patterns returning one value")
        self.internal = [n for n in nodes if n.op not in ("placeholder", "output")]
        self.taken = set()

    def match_at(self, anchor):
        nodes_map = {}
        if not self._match_node(self.returns[0], anchor, nodes_map):
            return None
        matched = {nodes_map[p] for p in self.internal if p in nodes_map}
        if len(matched) != len(self.internal):
            return None
        # Values made inside the match may not be used outside it (they would vanish).
        for p in self.internal:
            if p is self.returns[0]:
                continue
            if any(user not in matched for user in nodes_map[p].users):
                return None
        return nodes_map

    def _match_node(self, pn, gn, nodes_map):
        if pn in nodes_map:
            return nodes_map[pn] is gn if isinstance(gn, Node) else nodes_map[pn] == gn
        if pn.op == "placeholder":
            nodes_map[pn] = gn
            return True
        if not isinstance(gn, Node) or gn.op != pn.op or gn in self.taken or gn.op in ("placeholder", "output"):
            return False
        if pn.target != gn.target or len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
            return False
        nodes_map[pn] = gn
        return (all(self._match_arg(a, b, nodes_map) for a, b in zip(pn.args, gn.args))
                and all(self._match_arg(pn.kwargs[k], gn.kwargs[k], nodes_map) for k in pn.kwargs))

    def _match_arg(self, pa, ga, nodes_map):
        if isinstance(pa, Node):
            return self._match_node(pa, ga, nodes_map)
        if isinstance(pa, (list, tuple)):
            return (isinstance(ga, (list, tuple)) and len(pa) == len(ga)
                    and all(self._match_arg(a, b, nodes_map) for a, b in zip(pa, ga)))
        if isinstance(pa, dict):
            return (isinstance(ga, dict) and set(pa) == set(ga)
                    and all(self._match_arg(pa[k], ga[k], nodes_map) for k in pa))
        return not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga


def replace_pattern_with_filters(gm, pattern, replacement, match_filters=None, ignore_literals=False):
    graph = gm.graph
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matcher = _Matcher(pattern_graph)
    matches = []
    for anchor in list(graph.nodes):
        nodes_map = matcher.match_at(anchor)
        if nodes_map is None:
            continue
        match = Match(anchor=anchor, nodes_map=nodes_map)
        if match_filters and not all(f(match, graph, pattern_graph) for f in match_filters):
            continue
        matcher.taken.update(nodes_map[p] for p in matcher.internal)
        matches.append(match)

    r_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    if len(r_placeholders) != len(matcher.placeholders):
        raise RuntimeError("replacement must take as many arguments as pattern")
    order = {n: i for i, n in enumerate(graph.nodes)}
    for match in matches:
        val_map = {rp: match.nodes_map[pp] for pp, rp in zip(matcher.placeholders, r_placeholders)}
        # fx puts the replacement just before the first user of the matched value.
        users = sorted(match.anchor.users, key=lambda n: order.get(n, len(order)))
        with graph.inserting_before(users[0] if users else match.anchor._next):
            result = graph.graph_copy(replacement_graph, val_map)
        if isinstance(result, (list, tuple)) and len(result) == 1:
            result = result[0]
        if isinstance(result, Node):
            match.anchor.replace_all_uses_with(result)
        else:
            for user in list(match.anchor.users):
                user.args = tuple(result if a is match.anchor else a for a in user.args)
        internal = sorted({match.nodes_map[p] for p in matcher.internal}, key=lambda n: order[n], reverse=True)
        for gn in internal:
            if not gn.users:
                graph.erase_node(gn)
    gm.recompile()
    return matches


def replace_pattern(gm, pattern, replacement):
    """Replaces each non-overlapping match of `pattern` (a function, GraphModule or Graph) with
    `replacement`; returns the matches (anchor node and pattern-to-graph node map)."""
    return replace_pattern_with_filters(gm, pattern, replacement)
