"""Every pyplot function the programs call (figure, title, xlabel, plot, savefig, close, ...)
accepts its arguments and draws nothing; see the package docstring. What they return (a figure,
axes, a line) is a placeholder whose every method and item is again a placeholder, so that
`fig.add_subplot(1, 1, 1).matshow(...)` and `fig, ax = plt.subplots()` run as well."""
import numpy as np


class _Nothing:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Nothing()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Nothing()

    def __getitem__(self, key):
        return _Nothing()

    def __iter__(self):
        return iter(())


def subplots(nrows=1, ncols=1, *, squeeze=True, **kwargs):
    """A figure and its axes: one placeholder, or an array of them shaped as matplotlib's."""
    axes = np.empty((nrows, ncols), dtype=object)
    for index in np.ndindex(axes.shape):
        axes[index] = _Nothing()
    if squeeze:
        axes = axes.item() if axes.size == 1 else axes.reshape(-1) if 1 in (nrows, ncols) else axes
    return _Nothing(), axes


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Nothing()
