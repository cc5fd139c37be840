"""Ready-made datasets read from local files."""
from .mnist import MNIST, MNIST5k, load_mnist_5k, read_idx

__all__ = ["MNIST", "MNIST5k", "load_mnist_5k", "read_idx"]
