"""nn.functional's small helpers from PyTorch's API: conv_tbc, boolean_dispatch,
assert_int_or_pair, and the __torch_function__ checks (rstorch._torch_function)."""
from ..._torch_function import (  # noqa: F401 - re-exported
    handle_torch_function, has_torch_function, has_torch_function_unary, has_torch_function_variadic,
)

# boolean_dispatch's registry, as in PyTorch: the dispatching function -> its two branches.
boolean_dispatched = {}


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of (time, batch, in_channels) input with a (kernel_width, in_channels,
    out_channels) weight, zero-padded by `pad` steps at both ends; (time', batch, out) out."""
    from ... import Tensor
    if not isinstance(bias, Tensor):
        raise TypeError(f"conv_tbc(): argument 'bias' (position 3) must be Tensor, not {type(bias).__name__}")
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.size(2) != bias.size(0):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    from ._conv import conv1d
    # The same cross-correlation as conv1d, in conv1d's (batch, channels, time) layout.
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def assert_int_or_pair(arg, arg_name, message):
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function calling if_true or if_false by the boolean argument `arg_name` (found by
    keyword or at position `arg_index`, else `default`); it takes the one docstring they have."""
    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return (if_true if flag else if_false)(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    doc = if_true.__doc__ if if_true.__doc__ is not None else if_false.__doc__
    if_true.__doc__ = if_false.__doc__ = fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index, "default": default,
                              "arg_name": arg_name}
    return fn
