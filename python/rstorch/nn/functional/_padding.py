"""Padding: pad (constant, reflect, replicate, circular), shared by pooling, convolution,
attention and the layers."""
import rstorch
from ._utils import as_node


def _pad_constant(input, pads, value):
    out = input
    for i in range(len(pads) // 2):
        dim = input.dim() - 1 - i
        left, right = pads[2 * i], pads[2 * i + 1]
        # Negative padding crops.
        if left < 0 or right < 0:
            size = out.shape[dim]
            start, stop = max(-left, 0), size - max(-right, 0)
            if stop < start:
                raise RuntimeError(
                    f"The input size {size}, plus negative padding {left} and {right} resulted in a negative "
                    f"output size, which is invalid. Check dimension {dim} of your input.")
            out = out.narrow(dim, start, stop - start)
        parts = []
        for amount in (max(left, 0), max(right, 0)):
            shape = list(out.shape)
            shape[dim] = amount
            parts.append(rstorch.full(shape, value, dtype=out.dtype, device=out.device) if amount else None)
        pieces = [p for p in (parts[0], out, parts[1]) if p is not None]
        if len(pieces) > 1:
            out = rstorch.cat(pieces, dim)
    return out


def _source_indices(mode, size, left, right):
    """For each output position along one dim, the input position it copies (int64, on the CPU:
    tensor ops, so a huge padding fails at its allocation instead of building a Python list)."""
    positions = rstorch.arange(-left, size + right)
    if mode == "reflect":
        period = 2 * (size - 1)
        if not period:
            return positions * 0
        folded = positions.abs() % period
        return rstorch.where(folded >= size, period - folded, folded)
    return positions.clamp(0, size - 1)  # replicate


def _pad_circular(input, pad):
    """Circular padding by PyTorch's steps (its graph: CopySlices over slices): the input is
    copied into the middle of a new tensor, then each padded dim's ends are copied from the
    other end of that tensor. Negative padding crops."""
    n = len(pad) // 2
    in_shape = list(input.shape)
    out_shape = list(in_shape)
    for i in range(n):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > in_shape[dim] or right > in_shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[dim] = in_shape[dim] + left + right
        if out_shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = rstorch.empty(out_shape, dtype=input.dtype, device=input.device)
    out_slice, in_slice = out, input
    for i in range(n):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        out_slice = out_slice.narrow(dim, max(left, 0), out_shape[dim] - max(left, 0) - max(right, 0))
        in_slice = in_slice.narrow(dim, max(-left, 0), in_shape[dim] - max(-left, 0) - max(-right, 0))
    out_slice.copy_(in_slice)
    for i in range(n):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > 0:
            out.narrow(dim, 0, left).copy_(out.narrow(dim, out_shape[dim] - left - max(right, 0), left))
        if right > 0:
            out.narrow(dim, out_shape[dim] - right, right).copy_(out.narrow(dim, max(left, 0), right))
    return out


def pad(input, pad, mode="constant", value=None):
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {input.dim()}")
    if mode == "constant":
        return as_node("ConstantPadNdBackward0", (input,), _pad_constant(input, pad, 0.0 if value is None else value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode == "circular":
        return _pad_circular(input, pad)
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        size = out.shape[dim]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({left}, {right}) at dimension {dim} of input {list(input.shape)}")
        index = _source_indices(mode, size, left, right).to(out.device)
        out = out.index_select(dim, index)
    # PyTorch's nodes: ReflectionPad1DBackward0 ... ReplicationPad3DBackward0, by padded dims.
    kind = "Reflection" if mode == "reflect" else "Replication"
    return as_node(f"{kind}Pad{len(pad) // 2}DBackward0", (input,), out)
