"""A do-nothing matplotlib for tools/run_examples.py: time_sequence_prediction plots its
predictions after training, and neither the reference Python nor ours has matplotlib. Plotting
is not what is compared, so every call is accepted and draws nothing (`matplotlib.cm` and the
other modules are placeholders, see pyplot.py)."""


def use(backend, force=True):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .pyplot import _Nothing
    return _Nothing()
