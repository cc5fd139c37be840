"""ONNX mappings of more nn.functional ops (transposed convolution, resizing, padding, group and
instance norm, pixel shuffle, the hard activations) and of the tensor creations a forward makes
from traced sizes (`torch.zeros(1, x.size(0), h)`, `torch.arange(x.size(1))`), which become
ConstantOfShape / Range nodes so that they follow a dynamic axis."""
import numpy as np

from ._functions import _cast, _tuple, as_input, mapping, shape_input
from ._graph import Value, np_dtype


@mapping("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
def _conv_transpose(c):
    weight = c.carg(1, "weight")
    n = weight.dim() - 2
    bias = c.arg(2, "bias")
    pads = _tuple(c.arg(4, "padding", 0), n)
    return Value(c.g.op("ConvTranspose", [c.arg(0, "input").name, c.arg(1, "weight").name]
                        + ([bias.name] if bias is not None else []),
                        kernel_shape=list(weight.shape[2:]), strides=_tuple(c.arg(3, "stride", 1), n), pads=pads * 2,
                        output_padding=_tuple(c.arg(5, "output_padding", 0), n), group=int(c.arg(6, "groups", 1)),
                        dilations=_tuple(c.arg(7, "dilation", 1), n)))


@mapping("interpolate", "upsample")
def _interpolate(c):
    mode = c.kwargs.get("mode", "nearest")
    x, cx = c.arg(0, "input").name, c.carg(0, "input")
    n = cx.dim() - 2
    if mode not in ("nearest", "linear", "bilinear", "trilinear", "bicubic") or c.kwargs.get("antialias"):
        raise c.unsupported()
    align = bool(c.kwargs.get("align_corners"))
    attrs = {"mode": "nearest" if mode == "nearest" else "cubic" if mode == "bicubic" else "linear",
             "coordinate_transformation_mode": "asymmetric" if mode == "nearest" else
             "align_corners" if align else "pytorch_half_pixel"}
    if mode == "nearest":
        attrs["nearest_mode"] = "floor"
    if mode == "bicubic":
        attrs["cubic_coeff_a"] = -0.75
    size, scale = c.kwargs.get("size"), c.kwargs.get("scale_factor")
    if size is None and not c.kwargs.get("recompute_scale_factor"):
        scales = c.g.const([1.0, 1.0] + [float(s) for s in _tuple(scale, n)], np.float32)
        return Value(c.g.op("Resize", [x, None, scales], **attrs))
    # A size (or a recomputed scale) fixes the spatial dims; batch and channels follow the input.
    sizes = list(c.out.shape[2:])
    lead = c.g.op("Slice", [c.g.op("Shape", [x]), c.g.ints([0]), c.g.ints([2])])
    full = c.g.op("Concat", [lead, c.g.ints(sizes)], axis=0)
    return Value(c.g.op("Resize", [x, None, None, full], **attrs))


@mapping("pad")
def _pad(c):
    pad = list(c.arg(1, "pad"))
    mode = c.kwargs.get("mode", "constant")
    rank = c.rank()
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}.get(mode)
    if onnx_mode is None or (mode == "circular" and c.g.opset < 19):
        raise c.unsupported()
    begins, ends = [0] * rank, [0] * rank
    # PyTorch's pad lists (begin, end) pairs from the last dim backwards.
    for i in range(len(pad) // 2):
        begins[rank - 1 - i], ends[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    inputs = [c.arg(0, "input").name, c.g.ints(begins + ends)]
    value = c.kwargs.get("value")
    if mode == "constant" and value:
        inputs.append(c.g.const(value, c.dtype()))
    return Value(c.g.op("Pad", inputs, mode=onnx_mode))


def _affine(c, y, weight, bias, spatial):
    """y * weight + bias with per-channel (dim 1) parameters."""
    axes = list(range(1, spatial + 1))
    if weight is not None:
        y = c.g.op("Mul", [y, c.g.unsqueeze(weight.name, axes)])
    if bias is not None:
        y = c.g.op("Add", [y, c.g.unsqueeze(bias.name, axes)])
    return y


@mapping("group_norm")
def _group_norm(c):
    x, cx = c.arg(0, "input").name, c.carg(0, "input")
    groups, eps, dtype = c.arg(1, "num_groups"), c.arg(4, "eps", 1e-5), c.dtype()
    # Normalize each (sample, group) over its channels and positions, then restore the shape.
    grouped = c.g.op("Reshape", [x, c.g.ints([0, groups, -1])])
    mean = c.g.reduce("ReduceMean", grouped, [2], True)
    centered = c.g.op("Sub", [grouped, mean])
    var = c.g.reduce("ReduceMean", c.g.op("Mul", [centered, centered]), [2], True)
    y = c.g.op("Div", [centered, c.g.op("Sqrt", [c.g.op("Add", [var, c.g.const(eps, dtype)])])])
    y = c.g.op("Reshape", [y, c.g.op("Shape", [x])])
    return Value(_affine(c, y, c.arg(2, "weight"), c.arg(3, "bias"), cx.dim() - 2))


@mapping("instance_norm")
def _instance_norm(c):
    if not c.arg(5, "use_input_stats", True):
        raise c.unsupported()
    cx = c.carg(0, "input")
    channels, dtype = cx.shape[1], c.dtype()
    w, b = c.arg(3, "weight"), c.arg(4, "bias")
    scale = w.name if w is not None else c.g.const(np.ones(channels, dtype=dtype))
    shift = b.name if b is not None else c.g.const(np.zeros(channels, dtype=dtype))
    return Value(c.g.op("InstanceNormalization", [c.arg(0, "input").name, scale, shift],
                        epsilon=float(c.arg(7, "eps", 1e-5))))


@mapping("pixel_shuffle")
def _pixel_shuffle(c):
    if c.rank() != 4:
        raise c.unsupported()
    return Value(c.g.op("DepthToSpace", [c.arg(0, "input").name], blocksize=int(c.arg(1, "upscale_factor")), mode="CRD"))


@mapping("hardswish")
def _hardswish(c):
    return Value(c.g.op("HardSwish", [c.arg(0, "input").name]))


@mapping("hardsigmoid")
def _hardsigmoid(c):
    return Value(c.g.op("HardSigmoid", [c.arg(0, "input").name], alpha=1 / 6, beta=0.5))


@mapping("mish")
def _mish(c):
    x = c.arg(0, "input").name
    return Value(c.g.op("Mul", [x, c.g.op("Tanh", [c.g.op("Softplus", [x])])]))


@mapping("prelu")
def _prelu(c):
    x, cx = c.arg(0, "input").name, c.carg(0, "input")
    slope = c.arg(1, "weight").name
    if c.carg(1, "weight").numel() > 1 and cx.dim() > 2:
        slope = c.g.unsqueeze(slope, list(range(1, cx.dim() - 1)))
    return Value(c.g.op("PRelu", [x, slope]))


@mapping("normalize")
def _normalize(c):
    p, dim, eps = c.arg(1, "p", 2.0), c.arg(2, "dim", 1), c.arg(3, "eps", 1e-12)
    if p not in (1, 2):
        raise c.unsupported()
    x = c.arg(0, "input").name
    norm = c.g.reduce("ReduceL2" if p == 2 else "ReduceL1", x, [dim % c.rank()], True)
    return Value(c.g.op("Div", [x, c.g.op("Max", [norm, c.g.const(eps, c.dtype())])]))


@mapping("max", "min")
def _max(c):
    x = c.arg(0, "input").name
    other = c.arg(1, "dim", c.kwargs.get("other"))
    reduce_op, arg_op = ("ReduceMax", "ArgMax") if c.name == "max" else ("ReduceMin", "ArgMin")
    if other is None:
        return Value(c.g.reduce(reduce_op, x, None, False))
    if isinstance(other, Value):
        dtype = c.dtype()
        names = [_cast(c.g, n, np_dtype(cv), dtype) for n, cv in ((x, c.carg(0, "input")), (other.name, c.carg(1, "other")))]
        return Value(c.g.op("Max" if c.name == "max" else "Min", names))
    dim, keep = other % c.rank(), bool(c.arg(2, "keepdim", False))
    values = c.g.reduce(reduce_op, x, [dim], keep)
    indices = c.g.op(arg_op, [x], axis=dim, keepdims=int(keep), select_last_index=0)
    return type(c.out)(Value(values), Value(indices))


@mapping("tril", "triu")
def _trilu(c):
    k = c.arg(1, "diagonal", 0)
    return Value(c.g.op("Trilu", [c.arg(0, "input").name, c.g.const(int(k), np.int64)], upper=int(c.name == "triu")))


@mapping("repeat")
def _repeat(c):
    repeats = list(c.args[1:]) or [c.kwargs["repeats"]]
    x = c.arg(0, "input").name
    items = repeats[0] if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)) else repeats
    extra = len(items) - c.rank()
    if extra > 0:
        x = c.g.unsqueeze(x, list(range(extra)))
    return Value(c.g.op("Tile", [x, shape_input(c.g, items)]))


def _fill(c, shape, value):
    dtype = c.dtype()
    filled = c.g.op("ConstantOfShape", [shape], value=_scalar_tensor(0, dtype))
    if value == 0:
        return Value(filled)
    return Value(c.g.op("Add", [filled, as_input(c.g, value, dtype)]))


def _scalar_tensor(value, dtype):
    from onnx import numpy_helper
    return numpy_helper.from_array(np.array([value], dtype=dtype))


@mapping("zeros", "ones", "full", "empty", "new_zeros", "new_ones", "new_full", "new_empty")
def _creation(c):
    name = c.name.replace("new_", "")
    args = c.args[1:] if c.name.startswith("new_") else c.args
    fill = {"zeros": 0, "ones": 1, "empty": 0}.get(name)
    if name == "full":
        size, fill = args[0], args[1] if len(args) > 1 else c.kwargs["fill_value"]
        items = [size]
    else:
        items = list(args) or [c.kwargs["size"]]
    return _fill(c, shape_input(c.g, items), fill)


@mapping("zeros_like", "ones_like", "full_like", "empty_like")
def _creation_like(c):
    fill = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(c.name)
    if fill is None:
        fill = c.arg(1, "fill_value")
    return _fill(c, c.g.op("Shape", [c.arg(0, "input").name]), fill)


@mapping("arange")
def _arange(c):
    dtype = c.dtype()
    bounds = list(c.args)
    if len(bounds) == 1:
        bounds = [0] + bounds
    if len(bounds) == 2:
        bounds.append(1)
    names = [_cast(c.g, b.name, np.int64, dtype) if isinstance(b, Value) else c.g.const(b, dtype) for b in bounds]
    return Value(c.g.op("Range", names))

