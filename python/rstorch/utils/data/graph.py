"""The graph of a DataPipe pipeline: which pipes each pipe reads from."""
import warnings

__all__ = ["traverse", "traverse_dps"]

# How deep into containers (lists, tuples, dicts, sets) of a pipe's state inputs are looked for.
_MAX_DEPTH = 10


def _datapipe_types():
    from .datapipes.datapipe import IterDataPipe, MapDataPipe
    return IterDataPipe, MapDataPipe


def _state_of(dp):
    """What pickling would save of `dp`: its `__getstate__` (hooks left out) or its `__dict__`."""
    getstate = getattr(type(dp), "__getstate__", None)
    try:
        if getstate is not None:
            return getstate(dp)
    except Exception:  # noqa: BLE001 - a pipe whose state cannot be read has no visible inputs
        return ()
    return getattr(dp, "__dict__", ())


def _inputs(dp, kinds):
    """The pipes `dp`'s state refers to (directly or inside containers), in state order."""
    found, seen = [], set()

    def visit(value, depth):
        if isinstance(value, kinds):
            if value is not dp and id(value) not in seen:
                seen.add(id(value))
                found.append(value)
            return
        if depth >= _MAX_DEPTH:
            return
        if isinstance(value, dict):
            for v in value.values():
                visit(v, depth + 1)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                visit(v, depth + 1)

    visit(_state_of(dp), 0)
    return found


def traverse_dps(datapipe):
    """`{id(datapipe): (datapipe, {id(input): (input, {...}), ...})}`: the pipeline's graph from
    `datapipe` back to its sources. A pipe reachable along two paths appears under both, but a
    cycle is cut."""
    kinds = _datapipe_types()

    def build(dp, on_path):
        if not isinstance(dp, kinds):
            raise RuntimeError(f"Expected `IterDataPipe` or `MapDataPipe`, but {type(dp)} is found")
        if id(dp) in on_path:
            return {}
        on_path = on_path | {id(dp)}
        children = {}
        for child in _inputs(dp, kinds):
            children.update(build(child, on_path))
        return {id(dp): (dp, children)}

    return build(datapipe, frozenset())


def traverse(datapipe, only_datapipe=None):
    """Deprecated form of `traverse_dps`."""
    msg = ("`traverse` function is deprecated and will be removed after 1.13. Please use "
           "`traverse_dps` instead.")
    if not only_datapipe:
        msg += " And, the behavior will be changed to the equivalent of `only_datapipe=True`."
    warnings.warn(msg, FutureWarning, stacklevel=2)
    return traverse_dps(datapipe)
