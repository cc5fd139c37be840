"""Dropout: elementwise and whole-channel, scaled by 1 / (1 - p) in training. The checks and the
mask are the core's (`ops::nn::dropout`)."""
import warnings

import rstorch
from ... import _C


def dropout(input, p=0.5, training=True, inplace=False):
    return _C._dropout(input, p, training, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _C._feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (3, 4):
        # PyTorch accepts other ranks with a deprecation warning (mnist_rnn's Dropout2d after a
        # Linear layer relies on it): 2-D (N, C) input gets elementwise dropout, which is what
        # dropping each (n, c) "channel" amounts to, and 5-D or more drops whole (n, c) slices.
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).")
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        if input.dim() == 2:
            return _C._dropout(input, p, training, inplace)
        return _C._feature_dropout(input, p, training, inplace, input.dim() - 2, "dropout2d")
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


# SELU's saturation value: alpha dropout sets dropped units to -alpha * scale = -1.7581, the
# value SELU tends to for large negative input, then rescales so that mean and variance are kept.
_SELU_ALPHA_SCALED = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, feature):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        out = input * 0
        return input._assign_(out) if inplace else out
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    # One draw per element, or per (sample, channel) for the feature form.
    shape = list(input.shape[:2]) + [1] * (input.dim() - 2) if feature else list(input.shape)
    keep = rstorch.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    a = ((_SELU_ALPHA_SCALED ** 2 * p + 1) * (1 - p)) ** -0.5
    # Kept units: a * x + a * alpha * p; dropped units: a * alpha * p - alpha * a.
    shift = (keep - 1) * (_SELU_ALPHA_SCALED * a) + _SELU_ALPHA_SCALED * a * p
    out = input * (keep * a) + shift
    return input._assign_(out) if inplace else out


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, feature=True)
