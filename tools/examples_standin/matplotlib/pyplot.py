"""Every pyplot function the examples call (figure, title, xlabel, plot, savefig, close, ...)
accepts its arguments and draws nothing; see the package docstring."""


def _nothing(*args, **kwargs):
    return None


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _nothing
