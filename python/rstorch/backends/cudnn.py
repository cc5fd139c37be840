"""`rstorch.backends.cudnn`: cuDNN is absent (rstorch's GPU kernels are its own)."""
enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
