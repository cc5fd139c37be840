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
from .rnn import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .transformer import Transformer, TransformerDecoder, TransformerDecoderLayer
from .sparse import EmbeddingBag
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)
from .loss_more import (CosineEmbeddingLoss, CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss,
                        MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss2d, PoissonNLLLoss,
                        SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
# Activations, padding, resampling, shuffles, distances, normalisations and lazy layers.
from .activation import (CELU, GLU, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, Mish, PReLU, RReLU, SELU,
                         Softmin, Softmax2d, Softshrink, Softsign, Tanhshrink, Threshold)
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .distance import CosineSimilarity, PairwiseDistance
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .channelshuffle import ChannelShuffle
from .dropout import AlphaDropout, FeatureAlphaDropout
from .normalization import CrossMapLRN2d, LocalResponseNorm, RMSNorm
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .container import Container
from .conv3d import Conv3d, ConvTranspose3d
from .pooling3d import (
    AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d,
    MaxUnpool2d, MaxUnpool3d,
)
from .pooling3d import FractionalMaxPool2d, FractionalMaxPool3d
from .fold import Fold, Unfold
from .batchnorm import BatchNorm3d
from . import _lazy_layers
from ._lazy_layers import *  # noqa: F401,F403

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
    "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
    "EmbeddingBag",
]

__all__ += [
    "CosineEmbeddingLoss", "CTCLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss2d", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "AdaptiveLogSoftmaxWithLoss",
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions",
]

__all__ += [
    "CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "Mish", "PReLU", "RReLU", "SELU",
    "Softmin", "Softmax2d", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "CosineSimilarity", "PairwiseDistance",
    "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "AlphaDropout", "FeatureAlphaDropout",
    "CrossMapLRN2d", "LocalResponseNorm", "RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "Container",
] + _lazy_layers.__all__

__all__ += [
    "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "Fold", "Unfold",
    "BatchNorm3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
]

from .batchnorm import SyncBatchNorm  # noqa: E402

__all__ += ["SyncBatchNorm"]
