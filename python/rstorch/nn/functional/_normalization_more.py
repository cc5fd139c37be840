"""RMS, instance and local-response normalisation, composed from ops the core differentiates
(instance norm reuses the core's batch norm over a (1, N*C, ...) view)."""
import math

import rstorch
from ... import _C
from ._padding import pad

# Machine epsilon per floating dtype: rms_norm's default eps.
_EPS = {"float64": 2.220446049250313e-16, "float32": 1.1920928955078125e-07, "float16": 0.0009765625,
        "bfloat16": 0.0078125}


def rms_norm(input, normalized_shape, weight=None, eps=None):
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    n = len(shape)
    if n == 0 or input.dim() < n or list(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*{', '.join(map(str, shape))}], "
                           f"but got input of size{list(input.shape)}")
    if eps is None:
        eps = _EPS.get(str(input.dtype).rsplit(".", 1)[-1], _EPS["float32"])
    dims = list(range(input.dim() - n, input.dim()))
    out = input * (input * input).mean(dims, keepdim=True).add(eps).rsqrt()
    return out if weight is None else out * weight


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    n, c = input.shape[0], input.shape[1]
    # Every (sample, channel) pair is its own batch-norm channel of a batch of one.
    x = input.reshape(1, n * c, *input.shape[2:])

    def per_pair(t):
        return None if t is None else t.repeat(n)
    mean_rep, var_rep = per_pair(running_mean), per_pair(running_var)
    out = _C._batch_norm(x, mean_rep, var_rep, per_pair(weight), per_pair(bias), use_input_stats, momentum, eps)
    # The running statistics were updated per pair; each channel keeps the mean over the batch.
    with rstorch.no_grad():
        if running_mean is not None and use_input_stats:
            running_mean.copy_(mean_rep.reshape(n, c).mean(0))
        if running_var is not None and use_input_stats:
            running_var.copy_(var_rep.reshape(n, c).mean(0))
    return out.reshape(input.shape)


def _channel_window_sum(sq, before, after):
    """Sum of `sq` over the channel window [c - before, c + after] at each channel c (dim 1), zeros
    beyond the ends."""
    c = sq.shape[1]
    # Constant padding of dim 1: F.pad lists (before, after) from the last dim backwards.
    padded = pad(sq, [0, 0] * (sq.dim() - 2) + [before, after])
    total = padded.narrow(1, 0, c)
    for shift in range(1, before + after + 1):
        total = total + padded.narrow(1, shift, c)
    return total


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    # The window over channels holds size // 2 channels before and (size - 1) // 2 after.
    div = _channel_window_sum(input * input, size // 2, (size - 1) // 2) / size
    return input / (div * alpha + k).pow(beta)


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """CrossMapLRN2d's map: scale = k + alpha / size * (sum of squares over the (size - 1) // 2
    channels either side), out = input * scale^-beta."""
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    half = (size - 1) // 2
    sq = input * input
    total = _channel_window_sum(sq, half, half)
    # PyTorch's running window sum never drops channel 0: every channel whose window has moved
    # past it (c > half) still counts channel 0's square. Its values are the reference.
    channels = input.shape[1]
    past = (rstorch.arange(channels, device=input.device) > half).to(input.dtype).reshape(1, channels, 1, 1)
    total = total + sq.narrow(1, 0, 1) * past
    return input * (total * (alpha / size) + k).pow(-beta)
