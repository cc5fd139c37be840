"""`rstorch.backends`: PyTorch's backend flags. rstorch has no cuDNN or MPS; the flags are kept
so that programs may set and read them (`cudnn.benchmark = True`), and change nothing."""
from . import cpu, cuda, cudnn, mps  # noqa: F401
