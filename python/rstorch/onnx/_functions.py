"""ONNX mappings of the functions and Tensor methods a traced forward calls (`torch.relu`,
`F.linear`, `x.view`, `operator.add`), keyed by their short name so that the function, method and
operator spellings of one op share a mapping."""
import math

import numpy as np

from ._graph import Value, np_dtype
from .errors import UnsupportedOperatorError

FUNCTIONS = {}


def mapping(*names):
    def register(fn):
        for n in names:
            FUNCTIONS[n] = fn
        return fn
    return register


def _is_tensor(x):
    from rstorch import Tensor
    return isinstance(x, Tensor)


class Call:
    """One traced call: its arguments as emitted (Values or Python values), the same arguments'
    concrete values from running the model on the example inputs, and the concrete result."""

    def __init__(self, g, name, args, kwargs, cargs, ckwargs, out):
        self.g, self.name = g, name
        self.args, self.kwargs, self.cargs, self.ckwargs, self.out = args, kwargs, cargs, ckwargs, out

    def arg(self, i, key, default=None):
        if i is not None and i < len(self.args):
            return self.args[i]
        return self.kwargs.get(key, default)

    def carg(self, i, key, default=None):
        if i is not None and i < len(self.cargs):
            return self.cargs[i]
        return self.ckwargs.get(key, default)

    def rank(self, i=0, key="input"):
        return self.carg(i, key).dim()

    def dtype(self):
        return np_dtype(self.out)

    def unsupported(self):
        return UnsupportedOperatorError(f"aten::{self.name}", self.g.opset, None)


def as_input(g, value, dtype):
    """The graph name of a value: a Value, or a Python number / constant tensor made a Constant."""
    if isinstance(value, Value):
        return value.name
    if _is_tensor(value):
        return g.const(value.detach().cpu().numpy())
    return g.const(value, dtype)


def shape_input(g, items):
    """A 1-D int64 shape from `view(a, b)`, `view((a, b))` or `view(x.size())` arguments whose
    entries may be symbolic sizes (0-d Values), so that a dynamic batch stays dynamic."""
    if len(items) == 1 and isinstance(items[0], (tuple, list, Value)):
        items = items[0]
    if isinstance(items, Value):
        return items.name
    if all(not isinstance(i, Value) for i in items):
        return g.ints([int(i) for i in items])
    pieces = [g.unsqueeze(i.name, [0]) if isinstance(i, Value) else g.ints([int(i)]) for i in items]
    return g.op("Concat", pieces, axis=0)


def _cast(g, name, have, want):
    return name if np.dtype(have) == np.dtype(want) else g.op("Cast", [name], to=_onnx(want))


def _onnx(dtype):
    from ._graph import onnx_dtype
    return onnx_dtype(dtype)


def _common_dtype(values):
    """The dtype the operands of an elementwise op compute in: the tensors' (promoted), Python
    numbers taking the tensors' dtype as PyTorch's promotion does."""
    tensors = [np_dtype(v) for v in values if _is_tensor(v)]
    if tensors:
        return np.result_type(*tensors)
    return np.result_type(*[np_dtype(v) for v in values])


def _operands(c, a, b, dtype):
    ca, cb = c.cargs[0], (c.cargs[1] if len(c.cargs) > 1 else c.ckwargs.get("other"))
    return [_cast(c.g, as_input(c.g, v, dtype), np_dtype(cv), dtype) for v, cv in ((a, ca), (b, cb))]


def _binary(op_type):
    def emit(c):
        a, b = c.arg(0, "input"), c.arg(1, "other")
        dtype = c.dtype() if op_type in ("Add", "Sub", "Mul", "Div", "Pow") else _common_dtype(c.cargs[:2])
        alpha = c.kwargs.get("alpha", 1)
        x, y = _operands(c, a, b, dtype)
        if alpha != 1:
            y = c.g.op("Mul", [y, c.g.const(alpha, dtype)])
        return Value(c.g.op(op_type, [x, y]))
    return emit


for _names, _op in ((("add", "iadd"), "Add"), (("sub", "isub", "subtract"), "Sub"), (("mul", "imul", "multiply"), "Mul"),
                    (("truediv", "itruediv"), "Div"), (("pow",), "Pow"), (("eq",), "Equal"), (("lt",), "Less"),
                    (("gt",), "Greater"), (("le",), "LessOrEqual"), (("ge",), "GreaterOrEqual")):
    mapping(*_names)(_binary(_op))


@mapping("ne")
def _ne(c):
    return Value(c.g.op("Not", [_binary("Equal")(c).name]))


@mapping("div", "divide", "floordiv", "floor_divide")
def _div(c):
    mode = c.kwargs.get("rounding_mode", "floor" if c.name in ("floordiv", "floor_divide") else None)
    if mode is None:
        return _binary("Div")(c)
    dtype = c.dtype()
    x, y = _operands(c, c.arg(0, "input"), c.arg(1, "other"), dtype)
    q = c.g.op("Div", [x, y])
    if np.issubdtype(dtype, np.floating):
        if mode == "floor":
            return Value(c.g.op("Floor", [q]))
        return Value(c.g.op("Mul", [c.g.op("Sign", [q]), c.g.op("Floor", [c.g.op("Abs", [q])])]))
    if mode == "trunc":
        return Value(q)
    # Integer floor division rounds toward minus infinity: one less where the signs differ and it is inexact.
    fix = c.g.op("And", [c.g.op("Less", [c.g.op("Mul", [x, y]), c.g.const(0, dtype)]),
                         c.g.op("Not", [c.g.op("Equal", [c.g.op("Mul", [q, y]), x])])])
    return Value(c.g.op("Sub", [q, c.g.op("Cast", [fix], to=_onnx(dtype))]))


def _unary(op_type):
    def emit(c):
        # An integer input of a float function (math.sqrt of a size, torch.exp of an int tensor)
        # computes in the result's dtype, as PyTorch's does.
        dtype = c.dtype()
        x = _cast(c.g, as_input(c.g, c.arg(0, "input"), dtype), np_dtype(c.carg(0, "input")), dtype)
        return Value(c.g.op(op_type, [x]))
    return emit


for _names, _op in ((("relu",), "Relu"), (("sigmoid",), "Sigmoid"), (("tanh",), "Tanh"), (("exp",), "Exp"),
                    (("log",), "Log"), (("sqrt",), "Sqrt"), (("abs",), "Abs"), (("neg", "negative"), "Neg"),
                    (("sin",), "Sin"), (("cos",), "Cos"), (("erf",), "Erf"), (("reciprocal",), "Reciprocal"),
                    (("floor",), "Floor"), (("ceil",), "Ceil"), (("sign",), "Sign"), (("logical_not", "not_"), "Not"),
                    (("contiguous", "clone", "detach"), "Identity")):
    mapping(*_names)(_unary(_op))


@mapping("rsqrt")
def _rsqrt(c):
    return Value(c.g.op("Reciprocal", [c.g.op("Sqrt", [c.arg(0, "input").name])]))


@mapping("silu")
def _silu(c):
    x = c.arg(0, "input").name
    return Value(c.g.op("Mul", [x, c.g.op("Sigmoid", [x])]))


@mapping("gelu")
def _gelu(c):
    return Value(c.g.gelu(c.arg(0, "input").name, c.kwargs.get("approximate", "none"), c.dtype()))


@mapping("leaky_relu")
def _leaky_relu(c):
    return Value(c.g.op("LeakyRelu", [c.arg(0, "input").name], alpha=float(c.arg(1, "negative_slope", 0.01))))


@mapping("elu")
def _elu(c):
    return Value(c.g.op("Elu", [c.arg(0, "input").name], alpha=float(c.arg(1, "alpha", 1.0))))


@mapping("softplus")
def _softplus(c):
    if c.arg(1, "beta", 1) != 1:
        raise c.unsupported()
    return Value(c.g.op("Softplus", [c.arg(0, "input").name]))


@mapping("hardtanh", "relu6", "clamp", "clip")
def _clamp(c):
    dtype = c.dtype()
    if c.name == "relu6":
        lo, hi = 0.0, 6.0
    elif c.name == "hardtanh":
        lo, hi = c.arg(1, "min_val", -1.0), c.arg(2, "max_val", 1.0)
    else:
        lo, hi = c.arg(1, "min"), c.arg(2, "max")
    bounds = [None if b is None else as_input(c.g, b, dtype) for b in (lo, hi)]
    return Value(c.g.op("Clip", [c.arg(0, "input").name] + bounds))


def _dim(c, i, key, rank, default=None):
    d = c.arg(i, key, default)
    return d + rank if d is not None and d < 0 else d


@mapping("softmax", "log_softmax")
def _softmax(c):
    dim = c.arg(1, "dim")
    if dim is None:
        raise c.unsupported()
    x = c.arg(0, "input").name
    dtype = c.kwargs.get("dtype")
    if dtype is not None:
        x = c.g.op("Cast", [x], to=_onnx(c.dtype()))
    return Value(c.g.op("Softmax" if c.name == "softmax" else "LogSoftmax", [x], axis=int(dim)))


@mapping("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
def _dropout(c):
    # The exported model is for inference: dropout in eval mode is the identity.
    # A dropout that draws (training=True) would give other numbers than the traced run.
    if c.kwargs.get("training", c.kwargs.get("train", c.args[2] if len(c.args) > 2 else True)):
        raise c.unsupported()
    return c.arg(0, "input")


@mapping("linear")
def _linear(c):
    bias = c.arg(2, "bias")
    return Value(c.g.linear(c.arg(0, "input").name, c.arg(1, "weight").name,
                            bias.name if isinstance(bias, Value) else None, c.rank()))


@mapping("matmul", "mm", "bmm")
def _matmul(c):
    return Value(c.g.op("MatMul", [c.arg(0, "input").name, c.arg(1, "other").name]))


@mapping("layer_norm")
def _layer_norm(c):
    shape = list(c.arg(1, "normalized_shape"))
    w, b = c.arg(2, "weight"), c.arg(3, "bias")
    return Value(c.g.layer_norm(c.arg(0, "input").name, w.name if w is not None else None,
                                b.name if b is not None else None, -len(shape), c.arg(4, "eps", 1e-5), c.dtype(), shape))


@mapping("embedding")
def _embedding(c):
    if c.arg(3, "max_norm") is not None:
        raise c.unsupported()
    return Value(c.g.op("Gather", [c.arg(1, "weight").name, c.arg(0, "input").name], axis=0))


@mapping("batch_norm")
def _batch_norm(c):
    if c.arg(5, "training", False):
        raise c.unsupported()
    mean, var, w, b = (c.arg(i, k) for i, k in ((1, "running_mean"), (2, "running_var"), (3, "weight"), (4, "bias")))
    channels = c.carg(1, "running_mean").shape[0]
    return Value(batch_norm(c.g, c.arg(0, "input").name, mean.name, var.name, w and w.name, b and b.name,
                            c.arg(7, "eps", 1e-5), channels, c.dtype()))


def batch_norm(g, x, mean, var, weight, bias, eps, channels, dtype):
    weight = weight or g.const(np.ones(channels, dtype=dtype))
    bias = bias or g.const(np.zeros(channels, dtype=dtype))
    return g.op("BatchNormalization", [x, weight, bias, mean, var], epsilon=float(eps))


def _tuple(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


def conv(g, x, weight, bias, stride, padding, dilation, groups, kernel):
    n = len(kernel)
    dilation = _tuple(dilation, n)
    if padding == "valid":
        pads = [0] * (2 * n)
    elif padding == "same":
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        pads = [t // 2 for t in total] + [t - t // 2 for t in total]
    else:
        pads = _tuple(padding, n) * 2
    return g.op("Conv", [x, weight] + ([bias] if bias is not None else []), kernel_shape=list(kernel),
                strides=_tuple(stride, n), pads=pads, dilations=dilation, group=int(groups))


@mapping("conv1d", "conv2d", "conv3d")
def _conv(c):
    bias = c.arg(2, "bias")
    kernel = list(c.carg(1, "weight").shape[2:])
    return Value(conv(c.g, c.arg(0, "input").name, c.arg(1, "weight").name, bias.name if bias is not None else None,
                      c.arg(3, "stride", 1), c.arg(4, "padding", 0), c.arg(5, "dilation", 1), c.arg(6, "groups", 1), kernel))


@mapping("max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d")
def _pool(c):
    n = int(c.name[-2])
    is_max = c.name.startswith("max")
    if (is_max and c.kwargs.get("return_indices")) or (not is_max and c.kwargs.get("divisor_override") is not None):
        raise c.unsupported()
    kernel = _tuple(c.arg(1, "kernel_size"), n)
    stride = c.arg(2, "stride")
    stride = kernel if stride in (None, [], ()) else _tuple(stride, n)
    attrs = dict(kernel_shape=kernel, strides=stride, pads=_tuple(c.arg(3, "padding", 0), n) * 2,
                 ceil_mode=int(bool(c.kwargs.get("ceil_mode", False))))
    if is_max:
        attrs["dilations"] = _tuple(c.kwargs.get("dilation", 1), n)
    else:
        attrs["count_include_pad"] = int(bool(c.kwargs.get("count_include_pad", True)))
    return Value(c.g.op("MaxPool" if is_max else "AveragePool", [c.arg(0, "input").name], **attrs))


@mapping("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d")
def _adaptive_pool(c):
    is_max = "max" in c.name
    n = int(c.name[-2])
    in_size = list(c.carg(0, "input").shape[-n:])
    out_size = [i if o is None else o for o, i in zip(_tuple(c.arg(1, "output_size"), n), in_size)]
    x = c.arg(0, "input").name
    if all(o == 1 for o in out_size):
        return Value(c.g.op("GlobalMaxPool" if is_max else "GlobalAveragePool", [x]))
    if any(i % o for i, o in zip(in_size, out_size)) or c.kwargs.get("return_indices"):
        raise c.unsupported()
    kernel = [i // o for i, o in zip(in_size, out_size)]
    return Value(c.g.op("MaxPool" if is_max else "AveragePool", [x], kernel_shape=kernel, strides=kernel))


@mapping("scaled_dot_product_attention")
def _sdpa(c):
    q, k, v = (c.arg(i, key).name for i, key in ((0, "query"), (1, "key"), (2, "value")))
    cq = c.carg(0, "query")
    mask = c.arg(3, "attn_mask")
    cmask = c.carg(3, "attn_mask")
    if c.arg(4, "dropout_p", 0.0) or c.kwargs.get("enable_gqa"):
        raise c.unsupported()
    scale = c.kwargs.get("scale") or 1.0 / math.sqrt(cq.shape[-1])
    mask = None if mask is None else (as_input(c.g, mask, c.dtype()), np_dtype(cmask) == np.bool_)
    seq = (cq.shape[-2], c.carg(1, "key").shape[-2])
    out, _ = c.g.attention(q, k, v, mask, c.arg(5, "is_causal", False), scale, c.dtype(), cq.dim(), seq)
    return Value(out)
