"""Graphs for TensorBoard's graph dashboard: `GraphDef` protos of an ONNX model file's graph
(add_onnx_graph)."""
from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

__all__ = ["onnx_graph_def"]


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
