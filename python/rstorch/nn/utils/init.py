"""skip_init: build a module without running its parameter initialisation."""
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """An instance of `module_cls` whose parameters and buffers are left uninitialised (empty
    storage on `device`, default cpu), as after PyTorch's construction on the meta device."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    import inspect  # only here: keeps `import rstorch.nn` from loading inspect
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    # There is no meta device: construct on the target device, then drop the initialised values.
    return module_cls(*args, device=final_device, **kwargs).to_empty(device=final_device)
