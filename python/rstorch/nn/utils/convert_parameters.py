"""Flattening parameters into one vector and writing a vector back into them."""
import rstorch

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _typename(obj):
    kind = type(obj)
    module = kind.__module__
    return kind.__qualname__ if module in (None, "builtins") else f"{module}.{kind.__qualname__}"


def _check_same_device(param, device):
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    device = None
    parts = []
    for param in parameters:
        device = _check_same_device(param, device)
        parts.append(param.view(-1))
    if not parts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return rstorch.cat(parts)


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of `vec` into the parameters' data, in order."""
    if not isinstance(vec, rstorch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device = None
    offset = 0
    for param in parameters:
        device = _check_same_device(param, device)
        n = param.numel()
        param.data = vec[offset:offset + n].view_as(param).data
        offset += n
