"""Utilities: hook handles, data loading."""


def __getattr__(name):
    # `rstorch.utils.data` loads on first use, like the top-level submodules.
    import importlib
    if name in ("data", "hooks"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'rstorch.utils' has no attribute '{name}'")
