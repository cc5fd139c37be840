"""Changing spatial size: interpolate (nearest, nearest-exact, area, linear modes) and upsample."""
import math

import rstorch
from ._pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from ._utils import as_node, check_output_size


def _output_sizes(input, size, scale_factor, spatial):
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * spatial
        if len(sizes) != spatial:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(input.shape[2:])} and output size of {sizes}. Please provide input tensor "
                f"in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        return sizes, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    factors = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * spatial
    if not all(math.isfinite(n * f) for n, f in zip(input.shape[2:], factors)):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    sizes = [int(math.floor(n * f)) for n, f in zip(input.shape[2:], factors)]
    return sizes, factors


def _check_sizes(in_sizes, out_sizes):
    """PyTorch's error for an empty input or an output size below 1 (a negative scale)."""
    if all(n > 0 for n in in_sizes) and all(n > 0 for n in out_sizes):
        return
    names = "DHW"[3 - len(in_sizes):]

    def fmt(sizes):
        return ", ".join(f"{a}: {n}" for a, n in zip(names, sizes))
    sep = " and" if len(in_sizes) == 1 else ""
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({fmt(in_sizes)}){sep} "
                       f"output ({fmt(out_sizes)})")


def _positions(out_size):
    """Output positions 0..out_size-1 along one axis, as float64 (exact below 2**53), for the index
    arithmetic below: tensor ops, so no per-element Python work whatever the size."""
    return rstorch.arange(out_size, dtype=rstorch.float64)


def _nearest_index(in_size, out_size, factor, exact, device):
    """For each output position along one axis, the input position it copies."""
    scale = 1.0 / factor if factor else in_size / out_size
    offset = 0.5 if exact else 0.0
    index = ((_positions(out_size) + offset) * scale).floor().clamp(max=in_size - 1)
    return index.to(rstorch.int64).to(device)


def _linear_sources(in_size, out_size, factor, align_corners):
    """For each output position along one axis: the two input positions it reads (float64) and
    the weight of the second."""
    o = _positions(out_size)
    if align_corners:
        src = o * (in_size - 1) / (out_size - 1) if out_size > 1 else o * 0.0
    else:
        scale = 1.0 / factor if factor else in_size / out_size
        src = ((o + 0.5) * scale - 0.5).clamp(min=0.0)
    i0 = src.floor().clamp(max=in_size - 1)
    i1 = (i0 + 1).clamp(max=in_size - 1)
    return i0, i1, src - i0


def _linear_matrix(in_size, i0, i1, w1, dtype, device):
    """The (out, in) matrix of linear interpolation weights along one axis (each row holds
    1 - w at the first input position it reads and w at the next)."""
    w1 = w1.unsqueeze(1)
    j = rstorch.arange(in_size, dtype=rstorch.float64)
    rows = (1.0 - w1) * (j == i0.unsqueeze(1)) + w1 * (j == i1.unsqueeze(1))
    return rows.to(dtype).to(device)


def _linear_along(x, axis, in_size, out_size, factor, align_corners):
    """Linear interpolation of `x` along `axis`. A product with the weight matrix is the fast way,
    but it multiplies every input by a weight, zero or not, so one inf or NaN would spread over
    the whole line; inputs that are not all finite take the two reads each output makes instead,
    which keeps them where PyTorch keeps them. (On a GPU the reads are always taken: asking
    whether all are finite would wait for the device.)"""
    i0, i1, w1 = _linear_sources(in_size, out_size, factor, align_corners)
    if x.device.type == "cpu" and bool(x.isfinite().all()):
        m = _linear_matrix(in_size, i0, i1, w1, x.dtype, x.device)
        # Move the axis last, multiply by the weights, move it back.
        return x.movedim(axis, -1).matmul(m.t()).movedim(-1, axis)
    shape = [1] * x.dim()
    shape[axis] = out_size
    w1 = w1.to(x.dtype).to(x.device).reshape(shape)
    first = x.index_select(axis, i0.to(rstorch.int64).to(x.device))
    second = x.index_select(axis, i1.to(rstorch.int64).to(x.device))
    return first * (1.0 - w1) + second * w1


_LINEAR_MODES = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    spatial = input.dim() - 2
    if spatial < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D)")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
            "trilinear")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    sizes, factors = _output_sizes(input, size, scale_factor, spatial)
    check_output_size(input, sizes)
    if recompute_scale_factor:
        factors = None
    factors = factors or [None] * spatial
    if mode != "area":
        _check_sizes(list(input.shape[2:]), sizes)
    out = input
    if mode in ("nearest", "nearest-exact"):
        for a in range(spatial):
            idx = _nearest_index(input.shape[2 + a], sizes[a], factors[a], mode == "nearest-exact", out.device)
            out = out.index_select(2 + a, idx)
        kind = "NearestExact" if mode == "nearest-exact" else "Nearest"
        return as_node(f"Upsample{kind}{spatial}DBackward0", (input,), out)
    if mode == "area":
        return adaptive_avg_pool1d(input, sizes) if spatial == 1 else adaptive_avg_pool2d(input, sizes)
    if mode in _LINEAR_MODES:
        if _LINEAR_MODES[mode] != spatial:
            raise NotImplementedError(
                f"Got {input.dim()}D input, but {mode} mode needs {_LINEAR_MODES[mode] + 2}D input")
        for a in range(spatial):
            out = _linear_along(out, 2 + a, input.shape[2 + a], sizes[a], factors[a], bool(align_corners))
        return as_node(f"Upsample{mode.capitalize()}{spatial}DBackward0", (input,), out)
    raise NotImplementedError(f"Input Error: interpolation mode {mode!r} is not supported")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)
