"""StreamReader (`read_from_stream`)."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe

__all__ = ["StreamReaderIterDataPipe"]


@functional_datapipe("read_from_stream")
class StreamReaderIterDataPipe(IterDataPipe[tuple]):
    """Reads each `(name, stream)` item in chunks of `chunk` bytes/characters (None: the whole
    stream at once), yielding `(name, chunk)`; each stream is closed once read."""

    def __init__(self, datapipe, chunk=None):
        self.datapipe = datapipe
        self.chunk = chunk

    def __iter__(self):
        for name, stream in self.datapipe:
            while True:
                data = stream.read(self.chunk)
                if not data:
                    stream.close()
                    break
                yield name, data
