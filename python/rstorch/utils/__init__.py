"""Utilities: hook handles, data loading, activation checkpointing, TensorBoard logging, model_zoo."""


def __getattr__(name):
    # `rstorch.utils.data` loads on first use, like the top-level submodules.
    import importlib
    if name in ("data", "hooks", "checkpoint", "tensorboard", "model_zoo"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'rstorch.utils' has no attribute '{name}'")
