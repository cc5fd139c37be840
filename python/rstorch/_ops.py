"""`torch.ops`: operator namespaces that programs call directly. rstorch has the profiler's
range operators, which fx-traced code calls to keep `record_function` ranges
(`torch.ops.profiler._record_function_enter(name)` opens one and returns its handle,
`_record_function_exit(handle)` closes it)."""
import types


def _record_function_enter(name, args=None):
    from .autograd.profiler import record_function
    handle = record_function(name, args)
    handle.__enter__()
    return handle


def _record_function_exit(handle):
    handle.__exit__(None, None, None)


# Ranges are effects: dead-code elimination keeps these calls although nothing uses their values.
for _fn in (_record_function_enter, _record_function_exit):
    _fn._fx_impure = True
del _fn


class _Ops:
    """`torch.ops.<namespace>.<op>`"""

    def __init__(self):
        self.profiler = types.SimpleNamespace(_record_function_enter=_record_function_enter,
                                              _record_function_enter_new=_record_function_enter,
                                              _record_function_exit=_record_function_exit)

    def __getattr__(self, name):
        raise AttributeError(f"'_OpNamespace' 'torch.ops' object has no attribute '{name}'")


ops = _Ops()
