"""The __torch_function__ entry points PyTorch-written code calls (nn.functional and autograd
re-export them). rstorch's operators never defer to __torch_function__ overrides, so the
has_torch_function checks are always False and code guarded by them takes its plain path;
handle_torch_function still dispatches to the overrides when called directly."""

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like"]


def has_torch_function(relevant_args):
    return False


def has_torch_function_unary(input):
    return False


def has_torch_function_variadic(*args):
    return False


def _overloaded_args(relevant_args):
    """The arguments whose types define __torch_function__, one per type, subclasses first."""
    found = []
    for arg in relevant_args:
        cls = type(arg)
        if not hasattr(cls, "__torch_function__") or any(type(a) is cls for a in found):
            continue
        position = next((i for i, a in enumerate(found) if issubclass(cls, type(a))), len(found))
        found.insert(position, arg)
    return found


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __torch_function__ of each overloading argument until one does not return
    NotImplemented."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                    f"{[type(a) for a in overloaded]}")


def is_tensor_like(inp):
    """A Tensor, or anything whose type defines __torch_function__."""
    from . import Tensor
    return isinstance(inp, Tensor) or hasattr(inp, "__torch_function__")
