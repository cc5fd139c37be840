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
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# Added later, kept as its own block.
from .distributed import DistributedSampler  # noqa: E402

__all__ += ["DistributedSampler"]
