"""Fractional max pooling (2-d and 3-d): windows of a fixed size at pseudo-random, increasing
starts drawn once per plane, as PyTorch lays them out from its `_random_samples`; the maxima are
gathered and reduced by tensor ops, so the gradient reaches each window's maximum."""
from ... import _C
from ._utils import _ntuple

_AXES = ("time", "height", "width")


def _starts(sample, size, out, k):
    """Window starts along an axis of `size` for one uniform `sample` per plane (B, 1): PyTorch's
    intervals, `floor((i + u) * alpha) - floor(u * alpha)` with alpha = (size - k) / (out - 1),
    the last window flush with the end."""
    last = _C.full((sample.shape[0], 1), size - k, dtype=_C.int64, device=sample.device)
    if out == 1:
        return last
    alpha = (size - k) / (out - 1)
    i = _C.arange(out - 1, dtype=sample.dtype, device=sample.device).reshape(1, -1)
    starts = ((i + sample) * alpha).trunc().long() - (sample * alpha).trunc().long()
    return _C.cat([starts, last], 1)


def _fractional_max_pool(input, n, kernel_size, output_size, output_ratio, samples):
    name = f"fractional_max_pool{n}d"
    parse = _ntuple(n, "argument")
    kernel = parse(kernel_size)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    sizes = input.shape[-n:]
    if output_size is None:
        ratio = parse(output_ratio)
        output_size = [int(sizes[a] * ratio[a]) for a in range(n)]
    out = parse(output_size)
    for a in range(n):
        if out[a] + kernel[a] - 1 > sizes[a]:
            # PyTorch names its 3-d kernel here.
            raise RuntimeError(f"{name}{'_out' if n == 3 else ''}(): pool {_AXES[3 - n + a]} {kernel[a]} too large relative to input "
                               f"{_AXES[3 - n + a]} {sizes[a]}")
    batched = input.dim() == n + 2
    planes = input.shape[-(n + 1)]
    if samples is None:
        samples = _C.rand(input.shape[0] if batched else 1, planes, n, dtype=input.dtype, device=input.device)
    samples = samples.reshape(-1, n)
    x = input.reshape(-1, *sizes)
    b = x.shape[0]
    # PyTorch's samples run from the last axis (width) to the first.
    starts = [_starts(samples[:, n - 1 - a].reshape(b, 1), sizes[a], out[a], kernel[a]) for a in range(n)]
    for a in range(n):
        taps = (starts[a].unsqueeze(2) + _C.arange(kernel[a], device=x.device)).reshape(b, -1)
        shape = [b] + [1] * n
        shape[1 + a] = taps.shape[1]
        target = list(x.shape)
        target[1 + a] = taps.shape[1]
        x = x.gather(1 + a, taps.reshape(shape).expand(*target))
    # (B, O1 * k1, ..., On * kn) -> (B, O1, ..., On, k1 * ... * kn)
    split = [b] + [v for a in range(n) for v in (out[a], kernel[a])]
    x = x.reshape(split).permute(0, *[1 + 2 * a for a in range(n)], *[2 + 2 * a for a in range(n)])
    values, tap = x.reshape(b, *out, -1).max(-1)
    # Flat positions within each plane, row-major over the input's sizes.
    index, inner, stride = None, 1, 1
    for a in reversed(range(n)):
        shape = [b] + [1] * n
        shape[1 + a] = out[a]
        coord = starts[a].reshape(shape) + (tap // inner) % kernel[a]
        index = coord * stride if index is None else index + coord * stride
        inner *= kernel[a]
        stride *= sizes[a]
    lead = input.shape[:-n]
    return values.reshape(*lead, *out), index.reshape(*lead, *out)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out, indices = _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, _random_samples)
    return (out, indices) if return_indices else out


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out, indices = _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, _random_samples)
    return (out, indices) if return_indices else out
