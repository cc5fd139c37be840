"""Pooling: max (Rust kernel with indices), average and adaptive average."""
import rstorch
from ... import _C
from ._padding import pad as _pad
from ._utils import _pair, _single, as_node, check_output_size


def _check_pool_input(name, input, spatial):
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{name}: Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor for input, "
            f"but got: {list(input.shape)}")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    _check_pool_input("max_pool2d", input, 2)
    kernel_size = _pair(kernel_size)
    stride = kernel_size if stride is None or stride == [] or stride == () else _pair(stride)
    return _C._max_pool2d_with_indices(input, kernel_size, stride, _pair(padding), _pair(dilation), ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _check_pool_input("max_pool1d", input, 1)
    kernel_size = _single(kernel_size)
    stride = kernel_size if stride is None or stride == [] or stride == () else _single(stride)
    out, indices = _C._max_pool2d_with_indices(input.unsqueeze(-2), (1, kernel_size[0]), (1, stride[0]),
                                               (0, _single(padding)[0]), (1, _single(dilation)[0]), ceil_mode)
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


def _window_counts(length, k, s, p, ceil_mode, count_include_pad):
    """Output length along one axis and, per window, how many elements it averages over."""
    span = length + 2 * p - k
    if span < 0:
        raise RuntimeError(
            f"Given input size {length} with padding {p} is too small for a kernel of size {k}: "
            "Output size is too small")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= length + p:
        out -= 1
    # Tensor ops (int64, on the CPU): no per-window Python work, whatever the length.
    start = rstorch.arange(out) * s - p
    end = (start + k).clamp(max=length + p)
    if not count_include_pad:
        start, end = start.clamp(min=0), end.clamp(max=length)
    return out, end - start


def _avg_pool(input, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """Average pooling over the last len(kernel) dims: zero padding, then a sum over windows."""
    spatial = len(kernel)
    lengths = input.shape[-spatial:]
    for p, k in zip(padding, kernel):
        if p > k // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} "
                "and dilation=1")
    outs, divisors = [], None
    pads = []
    for a in range(spatial):
        out, counts = _window_counts(lengths[a], kernel[a], stride[a], padding[a], ceil_mode, count_include_pad)
        outs.append(out)
        # Right padding so that every window (also the partial last one in ceil mode) fits.
        right = max(0, (out - 1) * stride[a] + kernel[a] - lengths[a] - padding[a])
        pads.append((padding[a], right))
        axis = counts.to(input.dtype).to(input.device).reshape([-1] + [1] * (spatial - 1 - a))
        divisors = axis if divisors is None else divisors * axis
    x = _pad(input, [v for pr in reversed(pads) for v in pr])
    for a in range(spatial):
        x = x.unfold(input.dim() - spatial + a, kernel[a], stride[a])
    summed = x.sum(tuple(range(-spatial, 0)))
    if divisor_override:
        return summed / divisor_override
    return summed / divisors


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    _check_pool_input("avg_pool2d", input, 2)
    kernel_size = _pair(kernel_size)
    stride = kernel_size if stride is None or stride == [] or stride == () else _pair(stride)
    return as_node("AvgPool2DBackward0", (input,),
                   _avg_pool(input, kernel_size, stride, _pair(padding), ceil_mode, count_include_pad, divisor_override))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    _check_pool_input("avg_pool1d", input, 1)
    kernel_size = _single(kernel_size)
    stride = kernel_size if stride is None or stride == [] or stride == () else _single(stride)
    # PyTorch pools a height-1 image in 2-D and squeezes the height away.
    image = input.unsqueeze(-2)
    out = _avg_pool(image, (1,) + kernel_size, (1,) + stride, (0,) + _single(padding), ceil_mode,
                    count_include_pad, None)
    return as_node("AvgPool2DBackward0", (image,), out).squeeze(-2)


def _averaging_matrix(length, out, dtype, device):
    """The (out, length) matrix averaging PyTorch's adaptive bins: bin i covers
    [floor(i*L/out), ceil((i+1)*L/out)). Built with tensor ops, so no per-element Python work."""
    i = rstorch.arange(out)
    start, end = i * length // out, -(-(i + 1) * length // out)
    j = rstorch.arange(length)
    inside = (j >= start.unsqueeze(1)) & (j < end.unsqueeze(1))
    # Weights 1 / count computed in float64, then rounded once to the input's dtype.
    weights = inside.to(rstorch.float64) / (end - start).to(rstorch.float64).unsqueeze(1)
    return weights.to(dtype).to(device)


def adaptive_avg_pool2d(input, output_size):
    _check_pool_input("adaptive_avg_pool2d", input, 2)
    oh, ow = _pair(output_size)
    h, w = input.shape[-2:]
    oh, ow = (h if oh is None else oh), (w if ow is None else ow)
    if oh < 0 or ow < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{oh}, {ow}}}")
    for d in range(input.dim() - 3, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {d} being empty")
    if oh == 0 or ow == 0:
        # Nothing to average: an empty result, still connected to the input for autograd.
        lead = list(input.shape[:-2])
        out = input.reshape(lead + [h * w])[..., :0].reshape(lead + [oh, ow])
        return as_node("AdaptiveAvgPool2DBackward0", (input,), out)
    check_output_size(input, (oh, ow))
    if (oh, ow) == (1, 1):
        # PyTorch computes this case as a mean too (its node is MeanBackward1).
        return input.mean((-2, -1), keepdim=True)
    if h % oh == 0 and w % ow == 0:
        lead = list(input.shape[:-2])
        out = input.reshape(lead + [oh, h // oh, ow, w // ow]).mean((-3, -1))
    else:
        # Uneven bins: averaging along each axis is a product with a fixed matrix.
        out = (_averaging_matrix(h, oh, input.dtype, input.device).matmul(input)
               .matmul(_averaging_matrix(w, ow, input.dtype, input.device).t()))
    return as_node("AdaptiveAvgPool2DBackward0", (input,), out)


def adaptive_avg_pool1d(input, output_size):
    _check_pool_input("adaptive_avg_pool1d", input, 1)
    (o,) = _single(output_size)
    # As PyTorch: the 2-D op over a height-1 image, the height squeezed away.
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)
