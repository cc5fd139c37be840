"""A small stand-in for torchvision, used by tools/run_examples.py under BOTH PyTorch and rstorch.

The example programs only need torchvision for data sets and transforms. Downloading real data is
not possible (and not the point: the point is the framework), so the data sets here are synthetic,
with the real ones' shapes, dtypes, class counts and attributes, and deterministic (a NumPy RNG seeded
per data set), so the two frameworks train on identical data. Each class is a fixed random pattern
plus noise, so a model can learn it and its loss falls. Images are NumPy uint8 arrays (HxW or HxWxC)
where torchvision hands out PIL images: the reference Python has no Pillow, and every transform
here accepts arrays. This is our own code, not torchvision's.
"""
from . import datasets, transforms, utils  # noqa: F401

__version__ = "0.0-standin"
