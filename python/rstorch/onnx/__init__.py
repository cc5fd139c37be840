"""`rstorch.onnx`: `export` writes a model as an ONNX file with the `onnx` package (imported on
the first export, so `import rstorch.onnx` works without it). How a forward becomes ONNX
operators: see `_export`."""
import enum
import os

from . import errors
from .errors import OnnxExporterError

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram", "TrainingMode", "OperatorExportTypes",
           "errors"]

# PyTorch's default opset (torch.onnx._constants.ONNX_DEFAULT_OPSET) and the range the mappings cover.
_DEFAULT_OPSET = 20
_MIN_OPSET, _MAX_OPSET = 13, 23

_in_export = False


class TrainingMode(enum.IntEnum):
    """The mode a model is exported in: EVAL (the default), PRESERVE (as it is) or TRAINING."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class ONNXProgram:
    """What `export` returns (with dynamo=True, PyTorch's default): the ModelProto, `save`, and a
    call that runs it in onnxruntime."""

    def __init__(self, model_proto):
        self.model_proto = model_proto
        self._session = None

    def save(self, destination, **_):
        _write(self.model_proto, destination)

    def __call__(self, *args, **kwargs):
        import numpy as np
        import onnxruntime

        import rstorch
        if self._session is None:
            self._session = onnxruntime.InferenceSession(self.model_proto.SerializeToString(),
                                                         providers=["CPUExecutionProvider"])
        values = list(args) + list(kwargs.values())
        feeds = {i.name: np.asarray(v.detach().cpu().numpy() if isinstance(v, rstorch.Tensor) else v)
                 for i, v in zip(self._session.get_inputs(), values)}
        return [rstorch.from_numpy(np.asarray(o)) for o in self._session.run(None, feeds)]

    def __repr__(self):
        import onnx
        return f"ONNXProgram(\n{onnx.helper.printable_graph(self.model_proto.graph)}\n)"


def _write(model_proto, f):
    data = model_proto.SerializeToString()
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "wb") as fh:
            fh.write(data)
    else:
        f.write(data)


def _dynamic_axes_from_shapes(dynamic_shapes, arg_names):
    """dynamo's `dynamic_shapes` ({arg: {axis: Dim or name}} or a tuple per argument) as dynamic_axes."""
    if isinstance(dynamic_shapes, (tuple, list)):
        dynamic_shapes = dict(zip(arg_names, dynamic_shapes))
    axes = {}
    for name, spec in dynamic_shapes.items():
        if spec is None:
            continue
        if isinstance(spec, (tuple, list)):
            spec = {i: d for i, d in enumerate(spec) if d is not None}
        axes[name] = {int(i): d if isinstance(d, str) else getattr(d, "__name__", f"{name}_dim_{i}") for i, d in spec.items()}
    return axes


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, custom_translation_table=None,
           report=False, optimize=True, verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None, training=TrainingMode.EVAL,
           operator_export_type=OperatorExportTypes.ONNX, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True):
    """Exports `model` run on `args` (a tuple, or one tensor; a trailing dict is keyword arguments
    as in the TorchScript exporter) to ONNX, written to `f` (a path or a binary file object).
    Returns an ONNXProgram with dynamo=True, else None."""
    global _in_export
    import rstorch
    from ._export import build_model

    opset = _DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not _MIN_OPSET <= opset <= _MAX_OPSET:
        raise ValueError(f"rstorch.onnx.export supports opset_version {_MIN_OPSET} to {_MAX_OPSET}, got {opset}")
    if isinstance(args, rstorch.Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):
        kwargs.update(args[-1])
        args = args[:-1]
    if dynamic_shapes is not None and dynamic_axes is None:
        import inspect
        fn = model.forward if hasattr(model, "forward") else model
        arg_names = list(inspect.signature(fn).parameters)
        names = list(input_names or []) + arg_names[len(input_names or []):]
        dynamic_axes = _dynamic_axes_from_shapes(dynamic_shapes, names)

    is_module = isinstance(model, rstorch.nn.Module)
    modes = {m: m.training for m in model.modules()} if is_module else {}
    if is_module and training != TrainingMode.PRESERVE:
        model.train(training == TrainingMode.TRAINING)
    _in_export = True
    try:
        model_proto = build_model(model, args, kwargs, opset=opset, input_names=input_names,
                                  output_names=output_names, dynamic_axes=dynamic_axes, export_params=export_params,
                                  keep_initializers_as_inputs=keep_initializers_as_inputs)
    finally:
        _in_export = False
        for m, mode in modes.items():
            m.training = mode
    if verbose:
        import onnx
        print(onnx.helper.printable_graph(model_proto.graph))
    if f is not None:
        _write(model_proto, f)
    return ONNXProgram(model_proto) if dynamo else None


def is_in_onnx_export():
    """True while `export` traces a model (code can take an export-friendly path)."""
    return _in_export
