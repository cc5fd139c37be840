"""`rstorch.backends.mps`: Apple's MPS is not a device type of rstorch (a Mac's GPU is `cuda`
through Metal)."""


def is_available():
    return False


def is_built():
    return False
