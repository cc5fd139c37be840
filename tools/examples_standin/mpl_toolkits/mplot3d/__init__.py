"""`Axes3D` as a placeholder that draws nothing (see matplotlib/pyplot.py)."""
from matplotlib.pyplot import _Nothing as Axes3D  # noqa: F401
