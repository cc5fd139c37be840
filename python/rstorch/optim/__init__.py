"""rstorch.optim: optimizers and LR schedulers. SGD, Adam(W), RMSprop and Adagrad update in Rust
over whole parameter lists; the others are written in tensor ops."""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "ASGD", "Rprop", "LBFGS", "lr_scheduler"]

# Optimizers added later, kept as their own block.
from .adafactor import Adafactor  # noqa: E402
from .muon import Muon  # noqa: E402
from .sparse_adam import SparseAdam  # noqa: E402

__all__ += ["SparseAdam", "Adafactor", "Muon"]

# Added later, kept as its own block.
from ._stateless import swap_in_optimizer_params_and_state  # noqa: E402

__all__ += ["swap_in_optimizer_params_and_state"]
