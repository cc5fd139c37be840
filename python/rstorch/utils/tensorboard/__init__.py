"""`rstorch.utils.tensorboard`: PyTorch's `SummaryWriter`, writing event files through the
`tensorboard` package (its event-file writer and protocol buffers), as PyTorch's does.

Without the package, importing this module fails with the same ModuleNotFoundError as PyTorch's
(`No module named 'tensorboard'`)."""
import tensorboard

# PyTorch's requirement and message for an old tensorboard.
if tuple(int(p) for p in tensorboard.__version__.split(".")[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402 (after the version check)

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
