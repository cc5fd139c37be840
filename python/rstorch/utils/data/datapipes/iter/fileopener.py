"""FileOpener (`open_files`)."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import _no_valid_length, get_file_binaries_from_pathnames

__all__ = ["FileOpenerIterDataPipe"]


@functional_datapipe("open_files")
class FileOpenerIterDataPipe(IterDataPipe[tuple]):
    """Opens each path it reads and yields `(path, stream)`, the stream a StreamWrapper of the
    file opened with `mode` ("r", "rb", "rt", or "b"/"t" for those) and `encoding`."""

    def __init__(self, datapipe, mode="r", encoding=None, length=-1):
        super().__init__()
        self.datapipe = datapipe
        self.mode = mode
        self.encoding = encoding
        if mode not in ("b", "t", "rb", "rt", "r"):
            raise ValueError(f"Invalid mode {mode}")
        if "b" in mode and encoding is not None:
            raise ValueError("binary mode doesn't take an encoding argument")
        self.length = length

    def __iter__(self):
        yield from get_file_binaries_from_pathnames(self.datapipe, self.mode, self.encoding)

    def __len__(self):
        if self.length == -1:
            raise _no_valid_length(self)
        return self.length
