"""The layer classes of `rstorch.nn`, one file per family."""
from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .flatten import Flatten, Unflatten
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, MultiheadAttention, ReLU, ReLU6, SiLU,
                         Sigmoid, Softmax, Softplus, Tanh)
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d,
)
from .batchnorm import BatchNorm1d, BatchNorm2d
from .normalization import GroupNorm, LayerNorm
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from .sparse import Embedding
from .rnn import GRU, LSTM, RNN, RNNBase
from .transformer import TransformerEncoder, TransformerEncoderLayer
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
    "ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "ReLU", "ReLU6", "SiLU", "Sigmoid",
    "Softmax", "Softplus", "Tanh", "MultiheadAttention",
    "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Embedding",
    "RNNBase", "RNN", "LSTM", "GRU", "TransformerEncoderLayer", "TransformerEncoder",
    "L1Loss", "NLLLoss", "KLDivLoss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss",
    "SmoothL1Loss", "HuberLoss",
]

from .conv3d import Conv3d, ConvTranspose3d
from .pooling3d import (
    AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d,
    MaxUnpool2d, MaxUnpool3d,
)
from .pooling3d import FractionalMaxPool2d, FractionalMaxPool3d
from .fold import Fold, Unfold
from .batchnorm import BatchNorm3d

__all__ += [
    "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "Fold", "Unfold",
    "BatchNorm3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
]
