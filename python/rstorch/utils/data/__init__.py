"""rstorch.utils.data: datasets, samplers and the DataLoader."""
from .dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
)
from ._collate import default_collate, default_convert
from ._worker import get_worker_info
from .dataloader import DataLoader

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
    "default_convert", "get_worker_info", "random_split",
]


def __getattr__(name):
    # `rstorch.utils.data.datasets` (file readers) loads on first use.
    if name == "datasets":
        import importlib
        return importlib.import_module(".datasets", __name__)
    if name in _DATAPIPE_NAMES:
        # DataPipes load on first use (which also registers their functional forms).
        import importlib
        return getattr(importlib.import_module(_DATAPIPE_NAMES[name], __name__), name)
    if name in ("datapipes", "graph", "graph_settings"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# Added later, kept as its own block.
from .distributed import DistributedSampler  # noqa: E402

__all__ += ["DistributedSampler"]

# DataPipes and their decorators, loaded on first use (see __getattr__).
_DATAPIPE_NAMES = {
    "DataChunk": ".datapipes.datapipe", "DFIterDataPipe": ".datapipes.datapipe",
    "IterDataPipe": ".datapipes.datapipe", "MapDataPipe": ".datapipes.datapipe",
    "argument_validation": ".datapipes._decorator", "functional_datapipe": ".datapipes._decorator",
    "guaranteed_datapipes_determinism": ".datapipes._decorator",
    "non_deterministic": ".datapipes._decorator", "runtime_validation": ".datapipes._decorator",
    "runtime_validation_disabled": ".datapipes._decorator",
}
__all__ += list(_DATAPIPE_NAMES)
