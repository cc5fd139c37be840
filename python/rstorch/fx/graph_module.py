"""GraphModule: an nn.Module whose forward is Python generated from a Graph, holding the
submodules, parameters and attributes the graph's nodes refer to."""
import copy
import itertools
import linecache

import rstorch.nn as nn

__all__ = ["GraphModule"]

_REMINDER = "# To see more debug info, please use `graph_module.print_readable()`"
_source_keys = itertools.count()


def _forward_from_src(src, globals_):
    """Runs the generated source; linecache keeps it so tracebacks show the generated lines."""
    key = f"<eval_with_key>.{next(_source_keys)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    scope = dict(globals_)
    exec(compile(src, key, "exec"), scope)
    return scope["forward"]


def _copy_attr(from_module, to_module, target):
    """Gives `to_module` the object at dotted `target` of `from_module`, making plain Modules for
    missing parents (so `seq.0` becomes a Module holding `0`)."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = nn.Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if field in getattr(from_module, "_buffers", {}) and not isinstance(orig, nn.Parameter):
        to_module.register_buffer(field, orig, persistent=field not in from_module._non_persistent_buffers_set)
    else:
        setattr(to_module, field, orig)


def _assign_attr(obj, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = nn.Module()
            setattr(to_module, item, t)
        to_module = t
    import rstorch
    if isinstance(obj, rstorch.Tensor) and not isinstance(obj, nn.Parameter):
        to_module.register_buffer(field, obj)
    else:
        setattr(to_module, field, obj)


def _rebuild(state, graph, class_name):
    gm = GraphModule.__new__(GraphModule)
    gm.__dict__.update(state)
    type(gm).__name__ = type(gm).__qualname__ = class_name
    gm.graph = graph
    return gm


class GraphModule(nn.Module):
    """`GraphModule(root, graph, class_name)`: `root` is the module (or a dict from targets to
    objects) that the graph's get_attr and call_module targets are copied from."""

    def __new__(cls, *args, **kwargs):
        # Each instance has a class of its own, since recompile() sets `forward` on the class.
        while cls.__dict__.get("_fx_per_instance"):
            cls = cls.__bases__[0]
        impl = type("GraphModuleImpl", (cls,), {"_fx_per_instance": True, "__module__": cls.__module__})
        return super().__new__(impl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        type(self).__name__ = type(self).__qualname__ = class_name
        if isinstance(root, nn.Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                           "provided in ``root``!")
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.meta = {}
        self.graph = graph

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerates `code` and `forward` from the graph (after editing it)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def __str__(self):
        return "\n".join([super().__str__(), self._code, _REMINDER])

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False):
        """The module as a class definition, submodules that are GraphModules nested in it."""
        text = self._readable(type(self).__name__)
        if print_output:
            print(text)
        return text

    def _readable(self, name):
        code = self._code.lstrip("\n")
        lines = [ln for ln in code.split("\n") if not ln.startswith("torch.fx._symbolic_trace.wrap(")]
        lines = lines[lines.index(next(ln for ln in lines if ln.startswith("def forward"))):]
        body = [lines[0], "    # No stacktrace found for following nodes"] + lines[1:]
        out = [f"class {name}(torch.nn.Module):"]
        for child_name, child in self.named_children():
            if isinstance(child, GraphModule):
                out += ["    " + ln for ln in child._readable(child_name).split("\n")]
        out += [("    " + ln).rstrip() for ln in body]
        return "\n".join(out)

    # ---- submodules ----
    def add_submodule(self, target, m):
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = nn.Module()
                setattr(mod, item, sub)
            if not isinstance(sub, nn.Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        *path, field = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, nn.Module):
                return False
        if not hasattr(mod, field) or not isinstance(getattr(mod, field), nn.Module):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self):
        used = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                used.update(".".join(atoms[:i]) for i in range(1, len(atoms) + 1))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    used.update(f"{node.target}.{n}" for n, _ in sub.named_modules() if n)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # ---- copies ----
    def _state(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}

    def __reduce__(self):
        return _rebuild, (self._state(), self._graph, type(self).__name__)

    def __deepcopy__(self, memo):
        res = GraphModule.__new__(GraphModule)
        memo[id(self)] = res
        res.__dict__.update(copy.deepcopy(self._state(), memo))
        type(res).__name__ = type(res).__qualname__ = type(self).__name__
        res.graph = copy.deepcopy(self._graph)
        return res

    def __copy__(self):
        res = GraphModule.__new__(GraphModule)
        res.__dict__.update(self._state())
        type(res).__name__ = type(res).__qualname__ = type(self).__name__
        res.graph = self._graph
        return res
