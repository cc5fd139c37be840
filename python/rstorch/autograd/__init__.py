"""Automatic differentiation: `backward`, `grad`, custom `Function`s, grad-mode switches and
numerical checks. The graph and the engine are in the Rust core."""
from .. import _C
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from . import graph


def _tensors(x):
    if x is None:
        return []
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    tensors = _tensors(tensors)
    grads = _tensors(grad_tensors if grad_tensors is not None else grad_variables)
    grads = grads + [None] * (len(tensors) - len(grads))
    if retain_graph is None:
        retain_graph = create_graph
    ins = None if inputs is None else _tensors(inputs)
    _C._backward(tensors, grads, retain_graph, create_graph, ins)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    grads = _tensors(grad_outputs)
    grads = grads + [None] * (len(outputs) - len(grads))
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    result = _C._grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        result = [_C.zeros(*x.shape, dtype=x.dtype, device=x.device) if g is None else g
                  for g, x in zip(result, inputs)]
    return tuple(result)



# The legacy `Variable` constructor. Its module `autograd.variable` is imported before `_compat`'s
# `variable` function, which then takes the attribute, as `torch.autograd.variable` is that function.
from .variable import Variable  # noqa: E402
# PyTorch's smaller autograd entry points, kept as their own block.
from .._torch_function import handle_torch_function, has_torch_function, is_tensor_like  # noqa: E402
from ._compat import (  # noqa: E402
    is_multithreading_enabled, is_view_replay_enabled, set_multithreading_enabled, variable,
)

# Legacy and profiling names, kept as their own block: the profiler's modules load on first use.
from ._compat import enforce_grad_layout_policy  # noqa: E402
from .function import NestedIOFunction  # noqa: E402
from .graph import SavedTensor  # noqa: E402

_LAZY_SUBMODULES = ("profiler", "profiler_util")
_PROFILER_NAMES = ("DeviceType", "ProfilerActivity", "ProfilerConfig", "ProfilerState", "kineto_available")


def __getattr__(name):
    import importlib
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _PROFILER_NAMES:
        return getattr(importlib.import_module("._profiler_enums", __name__), name)
    if name == "ProfilerEvent":
        return importlib.import_module("._profiler_hooks", __name__).ProfilerEvent
    raise AttributeError(f"module 'rstorch.autograd' has no attribute '{name}'")
