"""`rstorch.jit`: TorchScript's entry points, running the Python they are given.

rstorch has no TorchScript compiler. As `rstorch.compile` returns a model that runs eagerly,
`script` and `trace` return what they are given (a traced function is run once on its example
inputs, as tracing does), and the decorators (`ignore`, `unused`, `export`, `interface`) leave
their functions as they are, so programs that script or trace a model for speed run unchanged.
What needs a TorchScript archive (`save`, `load`, `freeze` of a saved module, `fork`ed graphs
on other threads) is not offered: `save` and `load` raise NotImplementedError, pointing at
`rstorch.save`/`rstorch.load`.
"""
import contextlib
from typing import Final  # noqa: F401  (PyTorch's `torch.jit.Final`)

__all__ = ["Final", "Future", "ScriptFunction", "ScriptModule", "annotate", "enable_onednn_fusion", "export", "fork",
           "freeze", "fuser", "ignore", "interface", "is_scripting", "is_tracing", "isinstance", "load",
           "onednn_fusion_enabled", "optimize_for_inference", "optimized_execution", "save", "script",
           "script_if_tracing", "set_fusion_strategy", "trace", "trace_module", "unused", "wait"]


class ScriptModule:
    """The type of a scripted module in PyTorch; `script` returns the module itself here, so no
    object is an instance of this class."""


class ScriptFunction:
    """The type of a scripted function in PyTorch (see ScriptModule)."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    if example_inputs is not None or example_kwarg_inputs is not None:
        args = example_inputs if isinstance(example_inputs, tuple) else (() if example_inputs is None
                                                                            else (example_inputs,))
        func(*args, **(example_kwarg_inputs or {}))
    return func


def trace_module(mod, inputs, *args, **kwargs):
    for method, example in inputs.items():
        getattr(mod, method)(*(example if isinstance(example, tuple) else (example,)))
    return mod


def script_if_tracing(fn):
    return fn


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type):
    import builtins
    return builtins.isinstance(obj, target_type)


class Future:
    """The result of `fork`: here the call has already run."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True


def fork(func, *args, **kwargs):
    return Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


def save(m, f, _extra_files=None):
    raise NotImplementedError("rstorch.jit.save: rstorch has no TorchScript archive; save the state_dict (or the "
                              "module) with rstorch.save")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("rstorch.jit.load: rstorch cannot read TorchScript archives; load a state_dict saved "
                              "with rstorch.save or torch.save through rstorch.load")


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


@contextlib.contextmanager
def fuser(name):
    yield


_onednn = False


def enable_onednn_fusion(enabled):
    global _onednn
    _onednn = bool(enabled)


def onednn_fusion_enabled():
    return _onednn


def set_fusion_strategy(strategy):
    return []
