"""3-d pooling, max unpooling, power-average pooling and fold/unfold, composed from the core's
kernels: sliding windows are strided views (`Tensor.unfold`) reduced by the parallel reduction
kernels, adaptive 3-d pools are the 2-d adaptive kernels over each depth slice followed by the
1-d ones along the depth, and fold/unfold are convolutions with a one-hot weight (the col2im and
im2col of the convolution kernels). Every gradient follows from the ops composed."""
import math

from ... import _C
from ._pooling import _stride, adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d
from ._adaptive_max import adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices
from ._padding import pad
from ._utils import _ntuple, _pair, _single

_triple = _ntuple(3, "argument")


def _sizes(value, n, what, name):
    """`value` as `n` ints (one int stands for all), with PyTorch's error for another length."""
    if isinstance(value, int):
        return (value,) * n
    t = tuple(value)
    if len(t) == 1:
        return t * n
    if len(t) != n:
        count = {1: "one int", 2: "two ints", 3: "three ints"}[n]
        raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of {count}")
    return t


def _pooled_len(size, k, s, p, d, ceil_mode):
    """Windows along an axis, with the checks of PyTorch's pooling_output_shape."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > ((k - 1) * d + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and dilation={d}")
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    # In ceil mode a last window that would start in the right padding is dropped.
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_pool_input(input, n):
    if input.dim() not in (n + 1, n + 2) or 0 in input.shape[-(n + 1):]:
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")


def _windows(input, kernel, stride, padding, dilation, ceil_mode, fill):
    """The pooling windows over the last len(kernel) dims: a tensor (..., *out, taps) whose last
    dim holds each window's taps in row-major kernel order, padded with `fill`, and `out`."""
    n = len(kernel)
    sizes = input.shape[-n:]
    out = [_pooled_len(sizes[a], kernel[a], stride[a], padding[a], dilation[a], ceil_mode) for a in range(n)]
    if min(out) < 1:
        c = "x".join(str(v) for v in input.shape[-(n + 1):])
        o = "x".join(str(v) for v in (input.shape[-(n + 1)], *out))
        raise RuntimeError(f"Given input size: ({c}). Calculated output size: ({o}). Output size is too small")
    pads = []
    for a in reversed(range(n)):
        span = dilation[a] * (kernel[a] - 1) + 1
        # Ceil mode's last window may reach past the right padding: pad that far.
        extra = max(0, (out[a] - 1) * stride[a] + span - (sizes[a] + 2 * padding[a]))
        pads += [padding[a], padding[a] + extra]
    x = pad(input, pads, "constant", fill) if any(pads) else input
    first = x.dim() - n
    for a in range(n):
        x = x.unfold(first + a, dilation[a] * (kernel[a] - 1) + 1, stride[a])
    if any(d != 1 for d in dilation):
        x = x[(Ellipsis, *(slice(None, None, d) for d in dilation))]
    return x.reshape(*x.shape[:first + n], -1), out


def _window_origin(a, out, stride, padding, device):
    """The input coordinate of each window's first tap along axis `a` of `len(out)`, shaped to
    broadcast against (..., *out)."""
    n = len(out)
    shape = [1] * n
    shape[a] = out[a]
    return (_C.arange(out[a], device=device) * stride[a] - padding[a]).reshape(shape)


def _max_pool_nd(input, n, name, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _sizes(kernel_size, n, "kernel_size", name)
    stride = _stride(stride, lambda v: _sizes(v, n, "stride", name)) or kernel
    padding, dilation = _sizes(padding, n, "padding", name), _sizes(dilation, n, "dilation", name)
    _check_pool_input(input, n)
    windows, out = _windows(input, kernel, stride, padding, dilation, ceil_mode, float("-inf"))
    values, taps = windows.max(-1)
    # The flat input position of each maximum: its window's origin plus its tap's offset.
    index = None
    for a in range(n):
        inner = math.prod(kernel[a + 1:])
        tap = (taps // inner) % kernel[a]
        coord = _window_origin(a, out, stride, padding, input.device) + tap * dilation[a]
        index = coord if index is None else index * input.shape[input.dim() - n + a] + coord
    return values, index


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _max_pool_nd(input, 3, "max_pool3d", kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _C._max_pool_with_indices(input, 1, _single(kernel_size), _stride(stride, _single), _single(padding),
                                     _single(dilation), ceil_mode)


def _window_counts(size, out, k, s, p, count_include_pad):
    """Divisor of each window along one axis: its taps inside the input, or inside the input and
    its padding."""
    counts = []
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        counts.append(end - start if count_include_pad else min(end, size) - max(start, 0))
    return counts


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    kernel = _sizes(kernel_size, 3, "kernel_size", "avg_pool3d")
    stride = _stride(stride, lambda v: _sizes(v, 3, "stride", "avg_pool3d")) or kernel
    padding = _sizes(padding, 3, "padding", "avg_pool3d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool_input(input, 3)
    sizes = input.shape[-3:]
    if any(sizes[a] + 2 * padding[a] < kernel[a] for a in range(3)):
        raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
                           f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    windows, out = _windows(input, kernel, stride, padding, (1, 1, 1), ceil_mode, 0.0)
    total = windows.sum(-1)
    if divisor_override is not None:
        return total / divisor_override
    divisor = None
    for a in range(3):
        counts = _window_counts(sizes[a], out[a], kernel[a], stride[a], padding[a], count_include_pad)
        shape = [1, 1, 1]
        shape[a] = out[a]
        axis = _C.tensor(counts, dtype=input.dtype, device=input.device).reshape(shape)
        divisor = axis if divisor is None else divisor * axis
    return total / divisor


def _adaptive_size(output_size, shape, name, length_error):
    """`output_size` with None standing for the input's size, as PyTorch's functional layer
    reads it (a sequence longer than the input's dims is a ValueError); the core's checks."""
    if isinstance(output_size, int):
        sizes = [output_size] * 3
    else:
        sizes = list(output_size)
        if len(shape) <= len(sizes):
            raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
        sizes = [shape[len(shape) - len(sizes) + i] if v is None else v for i, v in enumerate(sizes)]
    if len(sizes) != 3:
        raise RuntimeError(length_error)
    if len(shape) not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got {list(shape)}")
    return sizes


def adaptive_avg_pool3d(input, output_size):
    od, oh, ow = _adaptive_size(output_size, input.shape, "adaptive_avg_pool3d",
                                "adaptive_avg_pool3d: output_size must be 3")
    d, h, w = input.shape[-3:]
    lead = input.shape[:-3]
    # A box mean is the mean along the depth of the means over each depth slice.
    planes = adaptive_avg_pool2d(input.reshape(-1, h, w), (oh, ow)).reshape(-1, d, oh * ow)
    pooled = adaptive_avg_pool1d(planes.transpose(1, 2), od)
    return pooled.transpose(1, 2).reshape(*lead, od, oh, ow)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    od, oh, ow = _adaptive_size(output_size, input.shape, "adaptive_max_pool3d",
                                "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    d, h, w = input.shape[-3:]
    lead = input.shape[:-3]
    # The maximum of a box is the maximum along the depth of each slice's maximum; the first
    # slice wins a tie, as the first tap in the box's row-major order does.
    planes, plane_index = adaptive_max_pool2d_with_indices(input.reshape(-1, h, w), (oh, ow))
    planes = planes.reshape(-1, d, oh * ow).transpose(1, 2)
    values, depth = adaptive_max_pool1d_with_indices(planes, od)
    within = plane_index.reshape(-1, d, oh * ow).transpose(1, 2).gather(2, depth)
    index = depth * (h * w) + within
    shape = (*lead, od, oh, ow)
    return values.transpose(1, 2).reshape(shape), index.transpose(1, 2).reshape(shape)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def _unpool_size(input, n, kernel, stride, padding, output_size):
    default = [(input.shape[input.dim() - n + a] - 1) * stride[a] - 2 * padding[a] + kernel[a] for a in range(n)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == n + 2 or (len(size) == n + 1 and input.dim() == n + 1):
        size = size[-n:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                         f"length of '{len(size)}'")
    for a in range(n):
        low, high = default[a] - stride[a], default[a] + stride[a]
        if not low < size[a] < high:
            raise ValueError(f'invalid output_size "{size}" (dim {a} must be between {low} and {high})')
    return size


def _max_unpool_nd(input, indices, n, kernel_size, stride, padding, output_size):
    parse = _ntuple(n, "argument")
    kernel = parse(kernel_size)
    stride = kernel if stride is None else parse(stride)
    padding = parse(padding)
    size = _unpool_size(input, n, kernel, stride, padding, output_size)
    lead = input.shape[:input.dim() - n]
    numel = math.prod(size)
    flat_index = indices.reshape(*lead, -1)
    if flat_index.numel() and (int(flat_index.min()) < 0 or int(flat_index.max()) >= numel):
        bad = int(flat_index.max()) if int(flat_index.max()) >= numel else int(flat_index.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(s) for s in size)})")
    zeros = _C.zeros((*lead, numel), dtype=input.dtype, device=input.device)
    return zeros.scatter(-1, flat_index, input.reshape(*lead, -1)).reshape(*lead, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool_nd(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool_nd(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool_nd(input, indices, 3, kernel_size, stride, padding, output_size)


def _lp_pool(input, norm_type, kernel, average):
    """The p-norm of each window: the window mean of x**p times the taps, to the power 1/p (a
    negative mean, from odd powers, gives 0 as in PyTorch)."""
    mean = average(input.pow(norm_type))
    return (mean.sign() * mean.abs().relu()).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, _single(kernel_size),
                    lambda x: avg_pool1d(x, kernel_size, stride, 0, ceil_mode))


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, _pair(kernel_size),
                    lambda x: avg_pool2d(x, kernel_size, stride, 0, ceil_mode))


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, _triple(kernel_size),
                    lambda x: avg_pool3d(x, kernel_size, stride, 0, ceil_mode))


def _one_hot_weight(channels, kernel, like):
    """(channels * kh * kw, 1, kh, kw): output channel c * taps + t copies tap t of channel c."""
    taps = kernel[0] * kernel[1]
    eye = _C.eye(taps, dtype=like.dtype, device=like.device).reshape(taps, 1, *kernel)
    return eye.repeat(channels, 1, 1, 1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    kernel, dilation, padding, stride = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    h, w = x.shape[-2:]
    blocks = [(s + 2 * p - (d * (k - 1) + 1)) // st + 1
              for s, p, d, k, st in zip((h, w), padding, dilation, kernel, stride)]
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), calculated shape of "
            f"the array of sliding blocks as ({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    c = x.shape[1]
    cols = _C._convolution(x, _one_hot_weight(c, kernel, x), None, 2, stride, padding, dilation, c)
    cols = cols.reshape(x.shape[0], c * kernel[0] * kernel[1], -1)
    return cols if batched else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    size, kernel = _pair(output_size), _pair(kernel_size)
    dilation, padding, stride = _pair(dilation), _pair(padding), _pair(stride)
    if input.dim() not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.dim()}D)")
    batched = input.dim() == 3
    cols = input if batched else input.unsqueeze(0)
    taps = kernel[0] * kernel[1]
    if cols.shape[1] % taps:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={cols.shape[1]} and kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = [(s + 2 * p - (d * (k - 1) + 1)) // st + 1
              for s, p, d, k, st in zip(size, padding, dilation, kernel, stride)]
    if cols.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
            f"stride=({stride[0]}, {stride[1]}), expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={cols.shape[2]}.")
    c = cols.shape[1] // taps
    # The blocks summed back onto the image: the transposed convolution of the one-hot weight,
    # its output padding reaching the rows and columns no block starts in.
    reach = [(b - 1) * st - 2 * p + d * (k - 1) + 1 for b, st, p, d, k in zip(blocks, stride, padding, dilation, kernel)]
    extra = [s - r for s, r in zip(size, reach)]
    images = cols.reshape(cols.shape[0], c * taps, blocks[0], blocks[1])
    out = _C._conv_transpose(images, _one_hot_weight(c, kernel, cols), None, 2, stride, padding, extra, c, dilation)
    return out if batched else out.squeeze(0)
