"""Graphs for TensorBoard's graph dashboard: `GraphDef` protos of a model run on example inputs
(add_graph) and of an ONNX model file's graph (add_onnx_graph).

add_graph runs the model once, as PyTorch's trace does (so Python control flow takes the branches
the inputs take), and reads the graph from what autograd recorded: every op node reachable from
the outputs, with its inputs (the nodes of its operands), its parameters and the model's inputs.
Forward hooks on the submodules mark each call's outputs and inputs, so that the op nodes between
them get the call's scope, `Net/Sequential[features]/Conv2d[0]`, innermost first. Ops are named
as PyTorch names them (`aten::addmm` for AddmmBackward0). Only ops that autograd records appear:
the model runs with gradients on, and floating inputs are given `requires_grad` for the trace.
Ops on integers alone (index arithmetic) are not recorded and do not appear."""
import re

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

__all__ = ["model_graph", "onnx_graph_def"]


def _shape_attr(dims):
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in dims])
    return AttrValue(list=AttrValue.ListValue(shape=[shape]))


def _op_name(node):
    # AddmmBackward0 -> aten::addmm, NativeLayerNormBackward0 -> aten::native_layer_norm.
    base = re.sub(r"Backward\d*$", "", node.name())
    return "aten::" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()


def _tensors(value):
    """The tensors in a module's inputs or outputs (nested tuples, lists and dicts)."""
    from ... import _C

    if isinstance(value, _C.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _scopes(model):
    """Module -> its scope name: the root's class, then `Class[attribute]` per level."""
    root = type(model).__name__
    scopes = {}
    for path, module in model.named_modules():
        scopes.setdefault(module, root + "".join(f"/{type(m).__name__}[{part}]" for part, m in _path_modules(model, path)))
    return scopes


def _path_modules(model, path):
    module = model
    for part in path.split(".") if path else []:
        module = getattr(module, part)
        yield part, module


def _run_with_hooks(model, args):
    """Runs `model(*args)` with grad on; returns its output and the submodule calls in the order
    they finished (innermost first): (module, grad_fns of the inputs, {grad_fn of an output: its shape})."""
    from ... import enable_grad

    calls = []

    def record(module, inputs, output):
        bounds = {t.grad_fn for t in _tensors(inputs) if t.grad_fn is not None}
        outs = {t.grad_fn: tuple(t.shape) for t in _tensors(output) if t.grad_fn is not None}
        calls.append((module, bounds, outs))

    handles = [m.register_forward_hook(record) for m in model.modules()]
    try:
        with enable_grad():
            output = model(*args)
    finally:
        for h in handles:
            h.remove()
    return output, calls


def model_graph(model, input_to_model=None, verbose=False):
    """(GraphDef, RunMetadata) of `model` run on `input_to_model` (a tensor or a sequence of them)."""
    from tensorboard.compat.proto.config_pb2 import RunMetadata
    from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats

    from ... import _C

    if input_to_model is None:
        args = ()
    elif isinstance(input_to_model, (tuple, list)):
        args = tuple(input_to_model)
    else:
        args = (input_to_model,)
    # Floating inputs become leaves of the trace, so that the ops reading them are recorded.
    args = tuple(a.detach().requires_grad_(True) if isinstance(a, _C.Tensor) and a.is_floating_point() else a
                 for a in args)
    output, calls = _run_with_hooks(model, args)
    scopes = _scopes(model)
    root = type(model).__name__
    params = {}
    for module, scope in scopes.items():
        for name, p in module.named_parameters(recurse=False):
            params.setdefault(id(p), f"{scope}/{name}")

    nodes, names = [], {}
    for i, a in enumerate(args):
        if isinstance(a, _C.Tensor):
            names[("input", id(a))] = name = f"input/input.{i + 1}"
            nodes.append(NodeDef(name=name, op="IO Node", input=[], attr={"_output_shapes": _shape_attr(a.shape),
                                                                            "attr": AttrValue(s=b"")}))
    outputs = _tensors(output)
    # Every op node reachable from the outputs, in an order where operands come first.
    order, seen, stack = [], set(), [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        node = stack[-1]
        if node in seen:
            stack.pop()
            continue
        pending = [n for n, _ in node.next_functions if n is not None and n not in seen]
        if pending:
            stack.extend(pending)
            continue
        seen.add(node)
        order.append(node)
        stack.pop()
    scope_of = {}
    for module, bounds, outs in calls:
        # The call's nodes: back from its outputs to its inputs; inner calls claimed theirs first.
        work = [n for n in outs if n not in bounds]
        while work:
            node = work.pop()
            if node in scope_of or node in bounds or node not in seen:
                continue
            scope_of[node] = scopes.get(module, root)
            work.extend(n for n, _ in node.next_functions if n is not None)
    shapes = {node: shape for _, _, outs in calls for node, shape in outs.items()}
    counters = {}
    for node in order:
        if node.name() == "AccumulateGrad":
            leaf = node.variable
            key = ("input", id(leaf))
            if key in names:
                names[node] = names[key]
                continue
            name = params.get(id(leaf), f"{root}/constant")
            names[node] = name
            nodes.append(NodeDef(name=name, op="prim::GetAttr", input=[],
                                 attr={"_output_shapes": _shape_attr(leaf.shape), "attr": AttrValue(s=name.rsplit("/", 1)[1].encode())}))
            continue
        scope = scope_of.get(node, root)
        counters[scope] = counters.get(scope, 0) + 1
        names[node] = name = f"{scope}/{_op_name(node)[6:]}.{counters[scope]}"
        attr = {"attr": AttrValue(s=b"{}")}
        if node in shapes:
            attr["_output_shapes"] = _shape_attr(shapes[node])
        nodes.append(NodeDef(name=name, op=_op_name(node), attr=attr,
                             input=[names[n] for n, _ in node.next_functions if n is not None and n in names]))
    for i, t in enumerate(outputs):
        source = names.get(t.grad_fn) if t.grad_fn is not None else None
        nodes.append(NodeDef(name=f"output/output.{i + 1}", op="IO Node", input=[source] if source else [],
                             attr={"_output_shapes": _shape_attr(t.shape), "attr": AttrValue(s=b"")}))
    graph = GraphDef(node=nodes, versions=VersionDef(producer=22))
    if verbose:
        print(graph)
    device = "/device:CPU:0" if all(t.device.type == "cpu" for t in outputs) else "/device:GPU:0"
    return graph, RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device=device)]))


def onnx_graph_def(path):
    """The graph of the ONNX model at `path`: its inputs and outputs as Variable nodes with their
    element type and shape, then one node per operator named after its first output, with the
    operator's attributes as text."""
    import onnx

    graph = onnx.load(path).graph
    nodes = []
    for value in list(graph.input) + list(graph.output):
        tensor_type = value.type.tensor_type
        shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d.dim_value) for d in tensor_type.shape.dim])
        nodes.append(NodeDef(name=value.name, op="Variable", input=[],
                             attr={"dtype": AttrValue(type=tensor_type.elem_type), "shape": AttrValue(shape=shape)}))
    for op in graph.node:
        attributes = ", ".join(" = ".join(str(field[1]) for field in a.ListFields()) for a in op.attribute)
        nodes.append(NodeDef(name=op.output[0], op=op.op_type, input=op.input,
                             attr={"parameters": AttrValue(s=attributes.encode())}))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
