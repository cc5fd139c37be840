"""The layer classes of `rstorch.nn`, one file per family."""
from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .flatten import Flatten, Unflatten
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, SiLU, Sigmoid,
                         Softmax, Softplus, Tanh)

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
    "ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "ReLU", "ReLU6", "SiLU", "Sigmoid",
    "Softmax", "Softplus", "Tanh",
]
