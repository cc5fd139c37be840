"""Adaptive max pooling: the max (and its flat index in the input plane) over PyTorch's adaptive
bins, built from recorded gathers so that the gradient reaches the winning elements."""
import rstorch
from ._utils import _pair, _single, as_node


def _bin_table(length, out):
    """Per output position, the input positions of its bin, padded to the widest bin by
    repeating the bin's last position (a repeat never changes a max, nor which index wins)."""
    bins = [(i * length // out, -(-(i + 1) * length // out)) for i in range(out)]
    width = max((end - start for start, end in bins), default=0)
    return [[min(start + j, end - 1) for j in range(width)] for start, end in bins], width


def _check_nonempty(name, input):
    for d in range(1 if input.dim() == 4 else 0, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                f"sizes {list(input.shape)} with dimension {d} being empty")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    if not input.is_floating_point():
        kind = str(input.dtype).rpartition(".")[2]
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
        raise NotImplementedError(f"\"adaptive_max_pool2d\" not implemented for '{names.get(kind, kind)}'")
    h, w = input.shape[-2:]
    oh, ow = _pair(output_size)
    oh, ow = (h if oh is None else oh), (w if ow is None else ow)
    lead = list(input.shape[:-2])
    if oh < 0 or ow < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(oh, ow)}: {lead + [oh, ow]}")
    _check_nonempty("adaptive_max_pool2d", input)
    if oh == 0 or ow == 0:
        # Nothing to pool: empty results, still connected to the input for autograd.
        values = input.reshape(lead + [h * w])[..., :0].reshape(lead + [oh, ow])
        indices = rstorch.zeros(lead + [oh, ow], dtype=rstorch.int64, device=input.device)
        return as_node("AdaptiveMaxPool2DBackward0", (input,), values), indices
    rows, kh = _bin_table(h, oh)
    cols, kw = _bin_table(w, ow)
    dev = input.device
    r = rstorch.tensor(rows, dtype=rstorch.int64, device=dev)
    c = rstorch.tensor(cols, dtype=rstorch.int64, device=dev)
    # [.., oh*kh, w] -> [.., oh, kh, ow, kw] -> [.., oh, ow, kh*kw]
    x = input.index_select(-2, r.reshape(-1)).index_select(-1, c.reshape(-1))
    x = x.reshape(lead + [oh, kh, ow, kw]).movedim(-3, -2).reshape(lead + [oh, ow, kh * kw])
    values, arg = x.max(-1)
    # The flat position (row * w + col) in the input plane of every window element.
    flat = (r.reshape(oh, 1, kh, 1) * w + c.reshape(1, ow, 1, kw)).reshape(oh, ow, kh * kw)
    indices = flat.expand(lead + [oh, ow, kh * kw]).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    return as_node("AdaptiveMaxPool2DBackward0", (input,), values), indices


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_max_pool1d)")
    (o,) = _single(output_size)
    # As PyTorch: the 2-D op over a height-1 image, the height squeezed away.
    out, indices = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, o))
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out
