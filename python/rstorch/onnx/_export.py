"""How a model becomes an ONNX ModelProto: rstorch.fx traces the forward (modules with an ONNX
mapping stay whole) while running each recorded op on the example inputs without autograd, so
every node has a concrete value (shapes, dtypes, the folding of Python values, the branches of
Python control flow); then each node the outputs depend on is mapped to ONNX operators."""
import inspect
import re
import warnings

import onnx
from onnx import helper

from rstorch.fx.node import Node, map_arg

from . import _nn_ops, _shape_ops  # noqa: F401  (they register their mappings)
from ._functions import FUNCTIONS, Call, as_input
from ._graph import GraphBuilder, Value, np_dtype, value_info
from ._modules import module_mapping
from ._shape_ops import STATIC_QUERIES
from .errors import OnnxExporterError, OnnxExporterWarning

# Modules traced through: their forward is a call of a mapped function (F.linear, F.relu, ...).
_TRACED_THROUGH = ("Linear", "LayerNorm", "Embedding", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
                   "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Dropout",
                   "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "Flatten", "Unflatten", "ReLU", "ReLU6", "GELU",
                   "Softmax", "LogSoftmax", "Tanh", "Sigmoid", "LeakyReLU", "SiLU", "ELU", "Identity", "Hardtanh", "Softplus",
                   "ModuleList", "ModuleDict", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Upsample",
                   "UpsamplingNearest2d", "UpsamplingBilinear2d", "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
                   "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
                   "CircularPad2d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "PixelShuffle", "PReLU",
                   "TransformerDecoderLayer", "TransformerDecoder", "Transformer")
# Modules whose forward calls a function bound when the class was made (so the call is not seen
# by the trace): kept whole and mapped as that function.
_AS_FUNCTION = {"Hardswish": "hardswish", "Hardsigmoid": "hardsigmoid", "Mish": "mish"}

_PREFIXES = ("torch.nn.functional.", "torch.special.", "torch.linalg.", "torch.", "operator.", "builtins.", "math.")


def _short_name(target):
    from rstorch.fx._dispatch import qualified_name
    name = qualified_name(target)
    for p in _PREFIXES:
        if name.startswith(p):
            return name[len(p):]
    return name.rsplit(".", 1)[-1]


class _Evaluating:
    """While the tracer computes a node's concrete value, module calls and parameter reads are
    the model's own again instead of being recorded."""

    def __init__(self, tracer):
        self.tracer = tracer

    def __enter__(self):
        self.tracer._evaluating += 1

    def __exit__(self, *exc):
        self.tracer._evaluating -= 1


def _tracer(inputs):
    """An fx Tracer that also runs each op it records on the example inputs, as PyTorch's tracing
    exporter does: every node gets its concrete value, and Python control flow on a traced value
    (`if x.dim() == 3`, `range(x.size(0))`, `if x.sum() > 0`) takes the branch the example takes,
    which the exported graph then keeps."""
    from rstorch import fx
    from rstorch.fx.proxy import Attribute, Proxy

    class Concrete:
        """Answers len(), int() and index() from the example run (the trace keeps that value)."""

        def _concrete(self):
            return self.tracer.values[self.node]

        def __len__(self):
            return len(self._concrete())

        def __index__(self):
            return int(self._concrete())

        def __int__(self):
            return int(self._concrete())

        def __float__(self):
            return float(self._concrete())

        def __getattr__(self, k):
            if k.startswith("__") and k.endswith("__"):
                raise AttributeError(k)
            return ConcreteAttribute(self, k)

    class ConcreteProxy(Concrete, Proxy):
        pass

    class ConcreteAttribute(Concrete, Attribute):
        pass

    class ExportTracer(fx.Tracer):
        def __init__(self):
            super().__init__()
            self.values = {}
            self._inputs = list(inputs)
            self._evaluating = 0

        def is_leaf_module(self, m, qualname):
            if module_mapping(m) is not None or type(m).__name__ in _AS_FUNCTION:
                return True
            return super().is_leaf_module(m, qualname) and type(m).__name__ not in _TRACED_THROUGH

        def call_module(self, m, forward, args, kwargs):
            if self._evaluating:
                return forward(*args, **kwargs)
            return super().call_module(m, forward, args, kwargs)

        def getattr(self, attr, attr_val, parameter_proxy_cache):
            if self._evaluating:
                return attr_val
            return super().getattr(attr, attr_val, parameter_proxy_cache)

        def proxy(self, node):
            return ConcreteProxy(node, self)

        def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
            node = super().create_node(kind, target, args, kwargs, name, type_expr)
            if kind != "output":
                with _Evaluating(self):
                    self.values[node] = self._evaluate(node)
            return node

        def _evaluate(self, node):
            if node.op == "placeholder":
                return self._inputs.pop(0)
            if node.op == "get_attr":
                obj = self.root
                for atom in node.target.split("."):
                    obj = getattr(obj, atom)
                return obj
            args = map_arg(node.args, lambda n: self.values[n])
            kwargs = map_arg(node.kwargs, lambda n: self.values[n])
            if node.op == "call_function":
                return node.target(*args, **kwargs)
            if node.op == "call_method":
                return getattr(args[0], node.target)(*args[1:], **kwargs)
            return self.root.get_submodule(node.target)(*args, **kwargs)

        def to_bool(self, obj):
            value = self.values[obj.node]
            if isinstance(value, rstorch.Tensor):
                warnings.warn("Converting a tensor to a Python boolean might cause the trace to be incorrect: the "
                              "exported graph keeps the branch the example inputs take", OnnxExporterWarning, stacklevel=3)
            return bool(value)

        def iter(self, obj):
            return iter([obj[i] for i in range(len(self.values[obj.node]))])

    import rstorch
    return ExportTracer()


def _contains_value(x):
    if isinstance(x, Value):
        return True
    if isinstance(x, (tuple, list)):
        return any(_contains_value(i) for i in x)
    if isinstance(x, dict):
        return any(_contains_value(i) for i in x.values())
    return False


def _node_name(node):
    return node.target if node.op == "call_method" else _short_name(node.target)


def _is_in_place(node):
    """`x.add_(y)`, `torch.relu_(x)`, `F.relu(x, inplace=True)`, `x += y`: ops that change their
    first argument."""
    if node.op not in ("call_method", "call_function"):
        return False
    name = _node_name(node)
    return (name not in FUNCTIONS and name.endswith("_") and name[:-1] in FUNCTIONS) or node.kwargs.get("inplace") is True \
        or name in ("iadd", "isub", "imul", "itruediv")


def _live_nodes(graph):
    """The nodes the outputs depend on, with the in-place ops that change them. The rest only
    decided Python control flow during the trace (mask checks, shape tests) and is not exported."""
    live, stack = set(), [n for n in graph.nodes if n.op == "output"]
    while True:
        while stack:
            n = stack.pop()
            if n not in live:
                live.add(n)
                stack.extend(n.all_input_nodes)
        stack = [n for n in graph.nodes if n not in live and _is_in_place(n) and n.args and isinstance(n.args[0], Node)
                 and n.args[0] in live]
        if not stack:
            return live


def _emit_node(g, node, env, values, root):
    def emitted(a):
        return map_arg(a, lambda n: env[n])

    def concrete(a):
        return map_arg(a, lambda n: values[n])

    args, kwargs = emitted(node.args), emitted(node.kwargs)
    out = values[node]
    if node.op == "call_module":
        mod = root.get_submodule(node.target)
        if type(mod).__name__ in _AS_FUNCTION:
            name = _AS_FUNCTION[type(mod).__name__]
            return FUNCTIONS[name](Call(g, name, args, kwargs, concrete(node.args), concrete(node.kwargs), out))
        fn = module_mapping(mod)
        # aten's spelling of the layer (GroupNorm -> group_norm, GRU -> gru) names it in errors.
        op_name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type(mod).__name__).lower()
        call = Call(g, op_name, args, kwargs, concrete(node.args), concrete(node.kwargs), out)
        if fn is None:
            raise call.unsupported()
        # The model itself, when it is one mapped layer: its parameters keep their own names.
        prefix = "" if getattr(root, "_onnx_wrapped", None) is mod else node.target
        return fn(g, mod, prefix, call)
    name = _node_name(node)
    if not _contains_value((args, kwargs)):
        # Only Python values and constants go in: the op is folded into its traced result.
        return out
    if node.op == "call_method" and name in STATIC_QUERIES:
        return out
    in_place = _is_in_place(node)
    call = Call(g, name[:-1] if name.endswith("_") else name, args, kwargs, concrete(node.args), concrete(node.kwargs), out)
    fn = FUNCTIONS.get(call.name)
    if fn is None:
        raise call.unsupported()
    result = fn(call)
    if in_place and isinstance(node.args[0], type(node)):
        # `x.add_(y)` changes x: later reads of x's node see the new value.
        env[node.args[0]] = result
    return result


def _flatten_outputs(out):
    if isinstance(out, (tuple, list)):
        return [v for o in out for v in _flatten_outputs(o)]
    if isinstance(out, dict):
        return [v for o in out.values() for v in _flatten_outputs(o)]
    return [out]


def _dims(shape, name, dynamic):
    axes = dynamic.get(name, {})
    if isinstance(axes, (list, tuple)):
        axes = {a: f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
    return [axes.get(i, axes.get(i - len(shape), d)) for i, d in enumerate(shape)]


def _bind(model, args, kwargs):
    """The forward's parameters as (name, value) in order, defaults filled in."""
    fn = model.forward if hasattr(model, "forward") else model
    sig = inspect.signature(fn)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise OnnxExporterError(f"rstorch.onnx.export: forward's *{p.name} parameters are not supported")
    return list(bound.arguments.items())


def _is_tensor_tree(v):
    import rstorch
    if isinstance(v, rstorch.Tensor):
        return True
    return isinstance(v, (tuple, list)) and len(v) > 0 and all(_is_tensor_tree(e) for e in v)


def _leaves(name, v):
    """(name, tensor) of each tensor of an input: `hx` of (h, c) gives hx_0 and hx_1."""
    if not isinstance(v, (tuple, list)):
        return [(name, v)]
    return [leaf for i, e in enumerate(v) for leaf in _leaves(f"{name}_{i}", e)]


def _map_leaves(name, v, fn):
    if not isinstance(v, (tuple, list)):
        return fn(name, v)
    return type(v)(_map_leaves(f"{name}_{i}", e, fn) for i, e in enumerate(v))


def _wrap(layer):
    """A module whose forward calls `layer`, so that a mapped layer exported on its own is traced
    as one call (the tracer follows the root's forward itself)."""
    import rstorch.nn as nn

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer
            self.__dict__["_onnx_wrapped"] = layer

        def forward(self, *args):
            return self.layer(*args)

    sig = inspect.signature(layer.forward)
    Wrapper.forward.__signature__ = sig.replace(parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
                                                + list(sig.parameters.values()))
    return Wrapper()


def build_model(model, args, kwargs, *, opset, input_names, output_names, dynamic_axes, export_params,
                keep_initializers_as_inputs):
    import rstorch

    params = _bind(model, args, kwargs)
    wrapped = model
    if module_mapping(model) is not None:
        model = _wrap(model)
    concrete_args = {n: v for n, v in params if not _is_tensor_tree(v)}
    tracer = _tracer([v for _, v in params])
    try:
        with rstorch.no_grad():
            graph = tracer.trace(model, concrete_args=concrete_args or None)
    except OnnxExporterError:
        raise
    except Exception as e:
        # As PyTorch's exporter does, a failure while capturing the forward is an OnnxExporterError
        # (the original error is its __cause__).
        raise OnnxExporterError(f"Failed to export the model to ONNX: tracing its forward failed: "
                                f"{type(e).__name__}: {e}") from e
    finally:
        # The tracer keeps tensors the forward creates as `_tensor_constant<i>` attributes of the root.
        for name in set((tracer.tensor_attrs or {}).values()):
            if isinstance(wrapped, rstorch.nn.Module) and name in wrapped.__dict__:
                delattr(wrapped, name)
    root = tracer.root
    values = tracer.values

    live = _live_nodes(graph)
    g = GraphBuilder(opset)
    for name in output_names or ():
        g.reserve(name)  # no value made on the way takes a name the outputs will have
    env, inputs = {}, []
    # Tensors in tuples or lists (an LSTM's (h, c)) are graph inputs of their own, in order.
    leaves = [leaf for n, v in params if _is_tensor_tree(v) for leaf in _leaves(n, v)]
    given = list(input_names or [])
    names = {default: given[i] if i < len(given) else default for i, (default, _) in enumerate(leaves)}
    dynamic = dict(dynamic_axes or {})
    output_node = None
    for node in graph.nodes:
        if node.op == "placeholder":
            value = values[node]
            if _is_tensor_tree(value):
                def graph_input(default, tensor):
                    name = g.reserve(names[default])
                    inputs.append(value_info(name, np_dtype(tensor), _dims(list(tensor.shape), name, dynamic)))
                    return Value(name)
                env[node] = _map_leaves(node.target, value, graph_input)
            else:
                env[node] = value
        elif node.op == "get_attr":
            value = values[node]
            env[node] = Value(g.param(node.target, value)) if isinstance(value, rstorch.Tensor) else value
        elif node.op == "output":
            output_node = node
        elif node in live:
            env[node] = _emit_node(g, node, env, values, root)
        else:
            env[node] = values[node]

    emitted = _flatten_outputs(map_arg(output_node.args[0], lambda n: env[n]))
    concrete = _flatten_outputs(map_arg(output_node.args[0], lambda n: values[n]))
    outputs = []
    # Outputs without dynamic_axes of their own have unknown dims when an input dim is dynamic.
    any_dynamic = any(i.name in dynamic for i in inputs)
    given = list(output_names or [])
    for i, (value, cvalue) in enumerate(zip(emitted, concrete)):
        if cvalue is None:
            continue
        name = g.reserve(given[i]) if i < len(given) else g.fresh(f"output_{i}" if len(emitted) > 1 else "output")
        src = as_input(g, value, np_dtype(cvalue))
        g.nodes.append(helper.make_node("Identity", [src], [name], name=g.fresh("node_Identity")))
        shape = list(cvalue.shape) if isinstance(cvalue, rstorch.Tensor) else []
        dims = _dims(shape, name, dynamic)
        if any_dynamic and name not in dynamic:
            dims = [None] * len(shape)
        outputs.append(value_info(name, np_dtype(cvalue), dims))
    initializers = list(g.initializers.values())
    if not export_params or keep_initializers_as_inputs:
        inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in initializers]
    if not export_params:
        initializers = []
    graph_proto = helper.make_graph(_drop_identities(g.nodes, {o.name for o in outputs}), "main_graph", inputs,
                                    outputs, initializer=initializers)
    model_proto = helper.make_model(graph_proto, opset_imports=[helper.make_opsetid("", opset)],
                                    producer_name="rstorch", producer_version=getattr(rstorch, "__version__", ""))
    model_proto.ir_version = min(model_proto.ir_version, _max_ir_version(opset))
    return model_proto


def _max_ir_version(opset):
    """The IR version that goes with the opset (onnxruntime refuses models newer than it reads)."""
    for entry in helper.VERSION_TABLE:
        if entry[2] == opset:
            return entry[1]
    return onnx.IR_VERSION


def _drop_identities(nodes, outputs):
    """Renames a value produced once and only read by the Identity that names a graph output to
    that output, so the graph does not keep an Identity per output."""
    producer = {}
    for i, n in enumerate(nodes):
        for o in n.output:
            producer[o] = i
    reads = {}
    for n in nodes:
        for i in n.input:
            reads[i] = reads.get(i, 0) + 1
    rename, dropped = {}, set()
    for i, n in enumerate(nodes):
        if n.op_type == "Identity" and n.output[0] in outputs and n.input[0] in producer and reads[n.input[0]] == 1 \
                and nodes[producer[n.input[0]]].op_type != "Constant" and n.input[0] not in outputs:
            rename[n.input[0]] = n.output[0]
            dropped.add(i)
    # Nodes nothing reads (the size comparisons of Python control flow, folded by the trace) go.
    needed, live = set(outputs) | set(rename), set()
    for i in range(len(nodes) - 1, -1, -1):
        if i not in dropped and any(o in needed for o in nodes[i].output):
            live.add(i)
            needed.update(nodes[i].input)
    kept = []
    for i, n in enumerate(nodes):
        if i in dropped or i not in live:
            continue
        for j, name in enumerate(n.output):
            if name in rename:
                n.output[j] = rename[name]
        for j, name in enumerate(n.input):
            if name in rename:
                n.input[j] = rename[name]
        kept.append(n)
    return kept

