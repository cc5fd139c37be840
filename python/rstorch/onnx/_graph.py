"""The ONNX graph being built during an export, and the small operator compositions that several
mappings share (a linear layer, layer norm, GELU, attention), so that the functional form and the
module form of an op emit the same nodes."""
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from .errors import UnsupportedOperatorError

# Slice bounds for "to the end": ONNX clamps them to the dimension.
INT64_MAX = np.iinfo(np.int64).max


class Value:
    """A tensor of the ONNX graph, by name. Values of the trace that are not Values stay Python
    values (ints, tuples, None) and are folded into the graph as constants where an op needs them."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Value({self.name!r})"


def to_numpy(tensor):
    return tensor.detach().cpu().numpy()


def np_dtype(concrete):
    """The NumPy dtype of a concrete trace value (a Tensor, or a Python number that ONNX holds as
    a 0-d tensor: sizes are int64)."""
    if isinstance(concrete, bool):
        return np.dtype(np.bool_)
    if isinstance(concrete, int):
        return np.dtype(np.int64)
    if isinstance(concrete, float):
        return np.dtype(np.float32)
    # rstorch's dtypes are named as NumPy's (rstorch.float32, rstorch.bool).
    return np.dtype(str(concrete.dtype).rsplit(".", 1)[-1])


def onnx_dtype(dtype):
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class GraphBuilder:
    """Nodes, initializers and constants of the graph, with unique value names."""

    def __init__(self, opset):
        self.opset = opset
        self.nodes = []
        self.initializers = {}
        self._taken = set()
        self._consts = {}
        self._params = {}

    def fresh(self, hint):
        hint = hint.replace("::", "_") or "v"
        name, i = hint, 0
        while name in self._taken:
            i += 1
            name = f"{hint}_{i}"
        self._taken.add(name)
        return name

    def reserve(self, name):
        self._taken.add(name)
        return name

    def op(self, op_type, inputs, outputs=1, **attrs):
        """Appends a node; returns its output name (or the list of names when outputs > 1)."""
        names = [self.fresh(f"{op_type.lower()}") for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, [("" if i is None else i) for i in inputs], names,
                                           name=self.fresh(f"node_{op_type}"), **attrs))
        return names[0] if outputs == 1 else names

    def const(self, value, dtype=None):
        """A Constant node holding `value` (shared between uses of the same constant)."""
        arr = np.asarray(value, dtype=dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        name = self._consts.get(key)
        if name is None:
            name = self.fresh("const")
            self.nodes.append(helper.make_node("Constant", [], [name], name=self.fresh("node_Constant"),
                                               value=numpy_helper.from_array(arr, name)))
            self._consts[key] = name
        return name

    def ints(self, values):
        return self.const(np.asarray(values, dtype=np.int64).reshape(-1))

    def param(self, name, tensor):
        """An initializer named as the state_dict key it comes from (with a suffix if an input
        already has that name)."""
        stored = self._params.get(name)
        if stored is None:
            stored = self._params[name] = self.fresh(name)
            self.initializers[stored] = numpy_helper.from_array(np.ascontiguousarray(to_numpy(tensor)), stored)
        return stored

    def param_array(self, hint, array):
        """An initializer computed from parameters (LSTM weights in ONNX's gate order)."""
        name = self.fresh(hint)
        self.initializers[name] = numpy_helper.from_array(np.ascontiguousarray(array), name)
        return name

    # ---- compositions several mappings share ----
    def unsqueeze(self, x, axes):
        return self.op("Unsqueeze", [x, self.ints(axes)])

    def squeeze(self, x, axes):
        return self.op("Squeeze", [x, self.ints(axes)])

    def reduce(self, op_type, x, axes, keepdims):
        """ReduceX over `axes` (None: all); ReduceSum takes axes as an input from opset 13, the
        others from opset 18."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.op(op_type, [x], keepdims=keep)
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.op(op_type, [x, self.ints(axes)], keepdims=keep)
        return self.op(op_type, [x], axes=list(axes), keepdims=keep)

    def linear(self, x, weight, bias, rank):
        """x @ weight.T + bias: Gemm for a matrix, MatMul and Add otherwise (as PyTorch exports)."""
        if rank == 2:
            return self.op("Gemm", [x, weight] + ([bias] if bias is not None else []), transB=1)
        y = self.op("MatMul", [x, self.op("Transpose", [weight], perm=[1, 0])])
        return y if bias is None else self.op("Add", [y, bias])

    def layer_norm(self, x, weight, bias, axis, eps, dtype, normalized_shape):
        if weight is None:
            weight = self.const(np.ones(normalized_shape, dtype=dtype))
        if self.opset >= 17:
            return self.op("LayerNormalization", [x, weight, bias], axis=axis, epsilon=float(eps))
        axes = list(range(axis, 0))
        mean = self.reduce("ReduceMean", x, axes, True)
        centered = self.op("Sub", [x, mean])
        var = self.reduce("ReduceMean", self.op("Mul", [centered, centered]), axes, True)
        std = self.op("Sqrt", [self.op("Add", [var, self.const(eps, dtype)])])
        y = self.op("Mul", [self.op("Div", [centered, std]), weight])
        return y if bias is None else self.op("Add", [y, bias])

    def gelu(self, x, approximate, dtype):
        if self.opset >= 20:
            return self.op("Gelu", [x], approximate=approximate)
        half = self.op("Mul", [x, self.const(0.5, dtype)])
        if approximate == "tanh":
            cube = self.op("Mul", [self.op("Mul", [x, x]), x])
            inner = self.op("Add", [x, self.op("Mul", [cube, self.const(0.044715, dtype)])])
            t = self.op("Tanh", [self.op("Mul", [inner, self.const(math.sqrt(2 / math.pi), dtype)])])
        else:
            t = self.op("Erf", [self.op("Mul", [x, self.const(1 / math.sqrt(2), dtype)])])
        return self.op("Mul", [half, self.op("Add", [t, self.const(1.0, dtype)])])

    def attention(self, q, k, v, mask, is_causal, scale, dtype, rank, seq_len=None):
        """softmax(q @ k^T * scale + mask) @ v on (..., L, E) inputs; `mask` is already additive
        (float) or boolean (True keeps, as scaled_dot_product_attention's). Returns (out, weights)."""
        kt = self._swap_last(k, rank)
        scores = self.op("Mul", [self.op("MatMul", [q, kt]), self.const(scale, dtype)])
        if is_causal:
            if seq_len is None:
                raise UnsupportedOperatorError("aten::scaled_dot_product_attention", self.opset, None)
            causal = np.triu(np.full(seq_len, -np.inf, dtype=dtype), 1)
            scores = self.op("Add", [scores, self.const(causal)])
        if mask is not None:
            scores = self.apply_mask(scores, mask, dtype)
        weights = self.op("Softmax", [scores], axis=-1)
        return self.op("MatMul", [weights, v]), weights

    def apply_mask(self, scores, mask, dtype, keep_true=True):
        name, is_bool = mask
        if not is_bool:
            return self.op("Add", [scores, name])
        fill = self.const(-np.inf, dtype)
        zero = self.const(0.0, dtype)
        additive = self.op("Where", [name, zero, fill] if keep_true else [name, fill, zero])
        return self.op("Add", [scores, additive])

    def _swap_last(self, x, rank):
        perm = list(range(rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self.op("Transpose", [x], perm=perm)


def value_info(name, dtype, shape):
    """A graph input/output type; `shape` entries are ints, dim names (str) or None (unknown)."""
    return helper.make_tensor_value_info(name, onnx_dtype(dtype) if dtype is not None else TensorProto.FLOAT, shape)
