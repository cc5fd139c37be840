"""The summaries of TensorBoard's other plugins, as PyTorch's SummaryWriter writes them: whole
tensors, precision-recall curves, the custom-scalars layout and meshes (point clouds)."""
import json
import struct

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ... import _C
from .summary import make_np

__all__ = ["tensor_proto", "pr_curve", "pr_curve_raw", "custom_scalars", "mesh"]


def _shape(dims):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in dims])


def _half_bits(values):
    # TensorBoard's half_val field holds the float32 bit patterns of the values, as PyTorch writes them.
    return [struct.unpack("i", struct.pack("f", v))[0] for v in values]


# rstorch dtype name -> (the proto's dtype, its value field, how a flat list of values is stored).
_FIELDS = {
    "float16": ("DT_HALF", "half_val", _half_bits), "bfloat16": ("DT_BFLOAT16", "half_val", _half_bits),
    "float32": ("DT_FLOAT", "float_val", list), "float64": ("DT_DOUBLE", "double_val", list),
    "int8": ("DT_INT8", "int_val", list), "uint8": ("DT_UINT8", "uint32_val", list),
    "int16": ("DT_INT16", "int_val", list), "int32": ("DT_INT32", "int_val", list),
    "int64": ("DT_INT64", "int64_val", list), "bool": ("DT_BOOL", "bool_val", list),
}


def tensor_proto(name, tensor):
    """The whole tensor under the 'tensor' plugin (PyTorch's add_tensor takes tensors only)."""
    if tensor.numel() * tensor.element_size() >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    kind = str(tensor.dtype).rpartition(".")[2]
    if kind not in _FIELDS:
        raise ValueError(f"{name} has unsupported tensor dtype {tensor.dtype}")
    dtype, field, convert = _FIELDS[kind]
    values = tensor.detach().cpu().flatten().tolist()
    proto = TensorProto(dtype=dtype, tensor_shape=_shape(tensor.shape), **{field: convert(values)})
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=name, metadata=metadata, tensor=proto)])


def _pr_summary(name, table, num_thresholds):
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="pr_curves", content=content))
    proto = TensorProto(dtype="DT_FLOAT", float_val=table.reshape(-1).tolist(), tensor_shape=_shape(table.shape))
    return Summary(value=[Summary.Value(tag=name, metadata=metadata, tensor=proto)])


def pr_curve_raw(name, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    # More than 127 thresholds is what PyTorch caps (its proto would be refused above it).
    rows = [make_np(r) if isinstance(r, _C.Tensor) else np.asarray(r) for r in (tp, fp, tn, fn, precision, recall)]
    return _pr_summary(name, np.stack(rows), min(num_thresholds, 127))


def pr_curve(name, labels, predictions, num_thresholds=127, weights=None):
    """The six rows TensorBoard plots (true/false positive/negative counts, precision, recall) at
    `num_thresholds` evenly spaced thresholds: prediction p falls in bucket floor(p * (n - 1)), and
    threshold i counts the buckets i and above as positive."""
    num_thresholds = min(num_thresholds, 127)
    labels, predictions = make_np(labels), make_np(predictions)
    weights = 1.0 if weights is None else weights
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_per_bucket, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=positive * weights)
    fp_per_bucket, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=(1.0 - positive) * weights)
    tp = np.cumsum(tp_per_bucket[::-1])[::-1]
    fp = np.cumsum(fp_per_bucket[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    tiny = 1e-7  # keeps the ratios finite where nothing was predicted positive
    precision = tp / np.maximum(tiny, tp + fp)
    recall = tp / np.maximum(tiny, tp + fn)
    return _pr_summary(name, np.stack((tp, fp, tn, fn, precision, recall)), num_thresholds)


def custom_scalars(layout):
    """`layout`: {category: {chart title: ["Multiline", [tags]] or ["Margin", [value, lower, upper]]}}."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        protos = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                protos.append(layout_pb2.Chart(title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                protos.append(layout_pb2.Chart(title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=protos))
    proto = TensorProto(dtype="DT_STRING", string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
                        tensor_shape=TensorShapeProto())
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=proto, metadata=metadata)])


def mesh(name, vertices, colors, faces, config_dict):
    """One summary value per part given (vertices, faces, colors), each (B, N, 3), as the mesh
    plugin reads them; `config_dict` is the three.js configuration, stored as sorted JSON."""
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

    config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(p, kind) for p, kind in ((vertices, MeshPluginData.VERTEX), (faces, MeshPluginData.FACE),
                                       (colors, MeshPluginData.COLOR)) if p is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    values = []
    for part, kind in parts:
        array = make_np(part) if isinstance(part, (_C.Tensor, np.ndarray)) else np.asarray(part)
        info = metadata.create_summary_metadata(name, None, kind, components, array.shape, None, json_config=config)
        proto = TensorProto(dtype="DT_FLOAT", float_val=array.reshape(-1).tolist(), tensor_shape=_shape(array.shape[:3]))
        values.append(Summary.Value(tag=metadata.get_instance_name(name, kind), tensor=proto, metadata=info))
    return Summary(value=values)
