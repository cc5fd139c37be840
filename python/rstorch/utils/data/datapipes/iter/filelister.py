"""FileLister (`list_files`)."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import _no_valid_length, get_file_pathnames_from_root
from .utils import IterableWrapperIterDataPipe

__all__ = ["FileListerIterDataPipe"]


@functional_datapipe("list_files")
class FileListerIterDataPipe(IterDataPipe[str]):
    """Yields the paths of the files under each root directory (a path, a sequence of paths, or
    a pipe of them) whose names match `masks` (glob patterns), sorted unless
    `non_deterministic`. `length` is what `len()` reports (-1: unknown)."""

    def __init__(self, root=".", masks="", *, recursive=False, abspath=False,
                 non_deterministic=False, length=-1):
        super().__init__()
        if isinstance(root, str):
            root = [root]
        if not isinstance(root, IterDataPipe):
            root = IterableWrapperIterDataPipe(root)
        self.datapipe = root
        self.masks = masks
        self.recursive = recursive
        self.abspath = abspath
        self.non_deterministic = non_deterministic
        self.length = length

    def __iter__(self):
        for path in self.datapipe:
            yield from get_file_pathnames_from_root(path, self.masks, self.recursive,
                                                    self.abspath, self.non_deterministic)

    def __len__(self):
        if self.length == -1:
            raise _no_valid_length(self)
        return self.length
