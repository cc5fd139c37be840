"""Changing spatial size: interpolate (nearest, nearest-exact, area, linear modes) and upsample.
The op, its checks and nodes are the core's (`ops::nn::resize`)."""
import warnings

from ... import _C


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    def per_axis(v):
        # One number stands for every spatial dim.
        return v if v is None or isinstance(v, (list, tuple)) else [v] * max(input.dim() - 2, 0)
    return _C._interpolate(input, per_axis(size), per_axis(scale_factor), mode, align_corners,
                           recompute_scale_factor, antialias)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
