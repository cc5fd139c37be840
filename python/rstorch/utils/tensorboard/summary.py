"""Builds the `Summary` protocol buffers (tensorboard's own proto classes) that SummaryWriter
writes: scalars, histograms, text and the hparams plugin's three records (images, video and audio
are in `media.py`, the other plugins' records in `plugins.py`)."""
import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ... import _C

__all__ = ["scalar", "histogram", "histogram_raw", "text", "hparams"]


def make_np(x):
    """A NumPy array from an rstorch tensor (any device), a NumPy array or a Python number."""
    if isinstance(x, _C.Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name, value, new_style=False, double_precision=False):
    value = make_np(value).squeeze()
    if value.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {value.size} "
                             f"and {value.ndim} dimensions.")
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    # The scalars plugin's tensor form: float32 unless the caller asks for the double.
    proto = TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision else \
        TensorProto(float_val=[value], dtype="DT_FLOAT")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def _tensorflow_bucket_edges():
    # TensorFlow's default histogram buckets: 1e-12 growing by 10% up to 1e20, mirrored for the
    # negatives, with 0 in between.
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    return [-e for e in reversed(positive)] + [0] + positive


def histogram(name, values, bins="tensorflow", max_bins=None):
    values = make_np(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    if isinstance(bins, str) and bins == "tensorflow":
        bins = _tensorflow_bucket_edges()
    counts, edges = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # Merge runs of `group` neighbouring buckets (the last run padded with empty buckets).
        group = len(counts) // max_bins
        padded = np.pad(counts, (0, -len(counts) % group))
        counts = padded.reshape(-1, group).sum(axis=1)
        edges = np.concatenate([edges[:-1:group], edges[-1:]])
    filled = np.flatnonzero(counts)
    if filled.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(filled[0]), int(filled[-1])
    # TensorBoard's bucket i holds the values up to bucket_limit[i]: the buckets from the first to the
    # last non-empty one, behind an empty bucket that ends where the first one starts.
    bucket = np.concatenate([[0], counts[first:last + 1]])
    limits = edges[first:last + 2]
    proto = HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                           sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=bucket.tolist())
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002 - PyTorch's names
    """A histogram whose statistics and buckets the caller computed."""
    proto = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                           bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def text(name, text_string):
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=name + "/text_summary", metadata=metadata, tensor=proto)])


def _hparams_summary(tag, **fields):
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    content = HParamsPluginData(version=PLUGIN_DATA_VERSION, **fields).SerializeToString()
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME, content=content))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the hparams plugin. Numbers
    (bools and one-element tensors included) are FLOAT64 hyperparameters, strings STRING ones."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import metadata as hp
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for key, choices in domains.items():
        if key not in hparam_dict or not isinstance(choices, list) or \
                not all(isinstance(c, type(hparam_dict[key])) for c in choices):
            raise TypeError(f"parameter: hparam_domain_discrete[{key}] should be a list of same type as hparam_dict[{key}].")
    start = SessionStartInfo()
    infos = []
    for key, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, _C.Tensor):
            value = make_np(value).reshape(-1)[0].item()
        if isinstance(value, (int, float)):  # bool is an int here, as in PyTorch's records
            start.hparams[key].number_value = value
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(value, str):
            start.hparams[key].string_value = value
            kind, field = "DATA_TYPE_STRING", "string_value"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: c}) for c in domains[key]]) \
            if key in domains else None
        infos.append(HParamInfo(name=key, type=DataType.Value(kind), domain_discrete=domain))
    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    end = SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))
    return (_hparams_summary(hp.EXPERIMENT_TAG, experiment=experiment),
            _hparams_summary(hp.SESSION_START_INFO_TAG, session_start_info=start),
            _hparams_summary(hp.SESSION_END_INFO_TAG, session_end_info=end))
