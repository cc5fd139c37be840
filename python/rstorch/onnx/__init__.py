"""`rstorch.onnx`: importable so that programs which mention `torch.onnx` run; exporting a model
to ONNX is not implemented yet (issue 25), so `export` says so instead of writing a bad file."""

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError"]


class OnnxExporterError(RuntimeError):
    """Raised when an ONNX export fails (PyTorch's class, for `except` clauses)."""


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, **options):
    # Same leading parameters as PyTorch's, so a call that PyTorch accepts reaches this message
    # rather than a TypeError about an argument.
    raise NotImplementedError("rstorch.onnx.export: ONNX export is not available yet in rstorch (issue 25); "
                              "save the weights with rstorch.save(model.state_dict(), path) instead")


def is_in_onnx_export():
    """Always False: no export ever runs (PyTorch returns True only while tracing for export)."""
    return False
