"""What DataLoader does for DataPipes: one shuffle seed per epoch shared by all workers, and
sharding across workers (and distributed ranks) through the pipeline's `sharding_filter`."""
import sys

_DATAPIPE_MODULE = "rstorch.utils.data.datapipes.datapipe"


def is_datapipe(dataset, kind=None):
    """Whether `dataset` is an IterDataPipe ("iter"), a MapDataPipe ("map") or either (None).
    A program that never imported DataPipes has none, so nothing is imported to find out."""
    module = sys.modules.get(_DATAPIPE_MODULE)
    if module is None:
        return False
    kinds = {"iter": module.IterDataPipe, "map": module.MapDataPipe,
             None: (module.IterDataPipe, module.MapDataPipe)}[kind]
    return isinstance(dataset, kinds)


def seed_pipeline(dataset, seed):
    """Seeds every random pipe of an IterDataPipe pipeline from `seed`. Each worker gets the
    same `seed` for an epoch, so all shuffle alike and their shards stay disjoint."""
    if not is_datapipe(dataset, "iter"):
        return
    import rstorch
    from .graph_settings import apply_random_seed
    rng = rstorch.Generator()
    rng.manual_seed(seed)
    apply_random_seed(dataset, rng)


def _distributed_settings():
    dist = sys.modules.get("rstorch.distributed")
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return 1, 0


def shard_pipeline(dataset, num_workers=1, worker_id=0):
    """Shards a pipeline over all loading processes: ranks first, then each rank's workers."""
    if not is_datapipe(dataset):
        return
    from .graph_settings import apply_sharding
    world_size, rank = _distributed_settings()
    apply_sharding(dataset, num_workers * world_size, worker_id * world_size + rank)
