"""Dropout: elementwise and whole-channel, scaled by 1 / (1 - p) in training."""
import rstorch


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply_mask(input, mask_shape, p, inplace):
    if p == 1.0:
        out = input * 0.0
    else:
        keep = rstorch.rand(*mask_shape, dtype=input.dtype, device=input.device) >= p
        # The mask holds 0 or the scale in the input's dtype: one kernel after the comparison.
        scale = rstorch.tensor(1.0 / (1.0 - p), dtype=input.dtype, device=input.device)
        out = input * rstorch.where(keep, scale, 0.0)
    return input._assign_(out) if inplace else out


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _apply_mask(input, input.shape, p, inplace)


def _feature_dropout(input, p, training, inplace, spatial, name):
    _check_p(p)
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a {input.dim()}D input")
    if not training or p == 0.0:
        return input
    # One draw per (sample, channel), broadcast over the spatial dims.
    lead = input.dim() - spatial
    mask_shape = list(input.shape[:lead]) + [1] * spatial
    return _apply_mask(input, mask_shape, p, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() == 3:
        # PyTorch treats 3-D input to dropout2d as batched (N, C, L) with a warning; so do we.
        import warnings
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
            "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
            "will change in a future release to interpret the input as one without a batch dimension, i.e. "
            "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
            "dropout1d instead.")
        return _feature_dropout(input, p, training, inplace, 1, "dropout2d")
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d")
