"""Settings applied across a DataPipe pipeline: sharding, shuffling, random seeds. DataLoader
applies them; they also serve programs that drive pipelines themselves."""
import inspect
import warnings

from .graph import traverse_dps

__all__ = [
    "apply_random_seed", "apply_sharding", "apply_shuffle_seed", "apply_shuffle_settings",
    "get_all_graph_pipes",
]


def get_all_graph_pipes(graph):
    """Every pipe of a `traverse_dps` graph, once each, parents before their inputs."""
    pipes, seen = [], set()

    def walk(g):
        for dp_id, (dp, sub) in g.items():
            if dp_id in seen:
                continue
            seen.add(dp_id)
            pipes.append(dp)
            walk(sub)

    walk(graph)
    return pipes


def _has_method(dp, *names):
    return all(inspect.ismethod(getattr(dp, name, None)) for name in names)


def _default_group():
    from .datapipes.iter.sharding import SHARDING_PRIORITIES
    return SHARDING_PRIORITIES.DEFAULT


def apply_sharding(datapipe, num_of_instances, instance_id, sharding_group=None):
    """Calls `apply_sharding(num_of_instances, instance_id[, sharding_group])` on each sharding
    pipe of the graph. Two sharding pipes on one path would shard twice: RuntimeError."""
    from .datapipes.iter.sharding import _ShardingIterDataPipe
    if sharding_group is None:
        sharding_group = _default_group()

    def walk(graph, applied_above):
        for dp, sub in graph.values():
            applied = applied_above
            if isinstance(dp, _ShardingIterDataPipe) or _has_method(dp, "apply_sharding"):
                if applied_above is not None:
                    raise RuntimeError(
                        "Sharding twice on a single pipeline is likely unintended and will cause "
                        f"data loss. Sharding already applied to {applied_above} while trying to "
                        f"apply to {dp}")
                if len(inspect.signature(dp.apply_sharding).parameters) < 3:
                    dp.apply_sharding(num_of_instances, instance_id)
                else:
                    dp.apply_sharding(num_of_instances, instance_id, sharding_group=sharding_group)
                applied = dp
            walk(sub, applied)

    walk(traverse_dps(datapipe), None)
    return datapipe


def apply_shuffle_settings(datapipe, shuffle=None):
    """Turns shuffling on or off (`set_shuffle`) in every shuffling pipe of the graph; None
    changes nothing. With `shuffle=True` and no shuffling pipe, returns `datapipe.shuffle()`."""
    if shuffle is None:
        return datapipe
    pipes = get_all_graph_pipes(traverse_dps(datapipe))
    shufflers = [dp for dp in pipes if _has_method(dp, "set_shuffle", "set_seed")]
    if not shufflers and shuffle:
        warnings.warn("`shuffle=True` was set, but the datapipe does not contain a `Shuffler`. "
                      "Adding one at the end. Be aware that the default buffer size might not be "
                      "sufficient for your task.", stacklevel=2)
        datapipe = datapipe.shuffle()
        shufflers = [datapipe]
    for dp in shufflers:
        dp.set_shuffle(shuffle)
    return datapipe


def apply_shuffle_seed(datapipe, rng):
    """Deprecated name of `apply_random_seed`."""
    warnings.warn("`apply_shuffle_seed` is deprecated since 1.12 and will be removed in the "
                  "future releases. Please use `apply_random_seed` instead.", FutureWarning,
                  stacklevel=2)
    return apply_random_seed(datapipe, rng)


def apply_random_seed(datapipe, rng):
    """Gives each random pipe of the graph (one with `set_seed`) a seed drawn from the generator
    `rng`, in graph order, so a seeded `rng` fixes the whole pipeline's randomness."""
    import rstorch
    for dp in get_all_graph_pipes(traverse_dps(datapipe)):
        if _has_method(dp, "set_seed"):
            seed = int(rstorch.empty((), dtype=rstorch.int64).random_(generator=rng).item())
            dp.set_seed(seed)
    return datapipe
