"""The ONNX exporter's exceptions, as PyTorch names them (torch.onnx.errors)."""

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """Raised when an ONNX export fails (PyTorch's class, for `except` clauses)."""


class UnsupportedOperatorError(OnnxExporterError):
    """An op of the traced model has no ONNX mapping; the message names it as PyTorch's does."""

    def __init__(self, name, version, supported_version):
        if supported_version is not None:
            msg = (f"Exporting the operator '{name}' to ONNX opset version {version} is not supported. "
                   f"Support for this operator was added in version {supported_version}, try exporting with this version")
        elif name.startswith(("aten::", "prim::", "quantized::")):
            msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        else:
            msg = (f"ONNX export failed on an operator with unrecognized namespace {name}. If you are trying to export "
                   "a custom operator, make sure you registered it with the right domain and version.")
        super().__init__(msg)
