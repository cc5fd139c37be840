"""rstorch.optim: the Optimizer base class and learning-rate schedulers."""
from . import lr_scheduler
from .optimizer import Optimizer

__all__ = ["Optimizer", "lr_scheduler"]
