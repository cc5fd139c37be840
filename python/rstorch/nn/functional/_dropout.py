"""Dropout: elementwise and whole-channel, scaled by 1 / (1 - p) in training. The checks and the
mask are the core's (`ops::nn::dropout`)."""
import warnings

from ... import _C


def dropout(input, p=0.5, training=True, inplace=False):
    return _C._dropout(input, p, training, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _C._feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() == 3:
        # PyTorch treats 3-D input to dropout2d as batched (N, C, L) with a warning; so do we.
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
            "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
            "will change in a future release to interpret the input as one without a batch dimension, i.e. "
            "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
            "dropout1d instead.")
        return _C._feature_dropout(input, p, training, inplace, 1, "dropout2d")
    return _C._feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _C._feature_dropout(input, p, training, inplace, 3, "dropout3d")
