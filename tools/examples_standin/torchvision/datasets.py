"""Synthetic data sets with the shapes, dtypes and attributes of torchvision's.

The number of samples is small (RSTORCH_EXAMPLES_TRAIN / RSTORCH_EXAMPLES_TEST, defaults 2048 and
512) so that an epoch takes seconds.
"""
import os
import warnings

import numpy as np
import torch


def _sizes(train):
    key, default = ("RSTORCH_EXAMPLES_TRAIN", 2048) if train else ("RSTORCH_EXAMPLES_TEST", 512)
    return int(os.environ.get(key, default))


def _class_images(n, shape, classes, seed):
    """n uint8 images of `shape`, each a class prototype plus noise; labels cycle through classes
    in a shuffled order so any batch holds several classes."""
    rng = np.random.RandomState(seed)
    prototypes = rng.uniform(0, 255, size=(classes,) + shape)
    labels = rng.randint(0, classes, size=n)
    noise = rng.normal(0, 40, size=(n,) + shape)
    images = np.clip(prototypes[labels] * 0.7 + noise, 0, 255).astype(np.uint8)
    return images, labels.astype(np.int64)


class VisionDataset:
    def __init__(self, root=None, transform=None, target_transform=None):
        self.root = root
        self.transform = transform
        self.target_transform = target_transform

    def _finish(self, img, target):
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class MNIST(VisionDataset):
    """`data` is a uint8 tensor (N, 28, 28) and `targets` an int64 tensor (N,), as torchvision's."""

    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven", "8 - eight", "9 - nine"]
    _seed = 1

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform, target_transform)
        self.train = train
        images, labels = _class_images(_sizes(train), (28, 28), 10, self._seed + (0 if train else 100))
        self.data = torch.from_numpy(images)
        self.targets = torch.from_numpy(labels)

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        return self._finish(self.data[index].numpy(), int(self.targets[index]))

    # torchvision's old names, still there with a warning (programs of 2017-2018 use them).
    def _renamed(old, new):
        def get(self):
            warnings.warn(f"{old} has been renamed {new}")
            return getattr(self, new)
        return property(get)

    train_data = _renamed("train_data", "data")
    test_data = _renamed("test_data", "data")
    train_labels = _renamed("train_labels", "targets")
    test_labels = _renamed("test_labels", "targets")
    del _renamed


class FashionMNIST(MNIST):
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
    _seed = 2


class CIFAR10(VisionDataset):
    """`data` is a uint8 NumPy array (N, 32, 32, 3) and `targets` a list of ints, as torchvision's."""

    classes = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform, target_transform)
        self.train = train
        self.data, labels = _class_images(_sizes(train), (32, 32, 3), len(self.classes), 3 + (0 if train else 100))
        self.targets = [int(t) for t in labels]

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        return self._finish(self.data[index], self.targets[index])


class FakeData(VisionDataset):
    """image_size is (C, H, W) as torchvision's; images come out HxWxC uint8."""

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None, random_offset=0):
        super().__init__(None, transform, target_transform)
        self.size = size
        self.image_size = tuple(image_size)
        self.num_classes = num_classes
        self.random_offset = random_offset

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        rng = np.random.RandomState(index + self.random_offset)
        c, h, w = self.image_size
        img = rng.randint(0, 256, size=(h, w, c)).astype(np.uint8)
        if c == 1:
            img = img[:, :, 0]
        return self._finish(img, int(rng.randint(0, self.num_classes)))


class ImageFolder(VisionDataset):
    """Synthetic stand-in: RSTORCH_EXAMPLES_TRAIN 64x64 RGB images in two classes (the root's
    folders are not read; there are no real images)."""

    def __init__(self, root, transform=None, target_transform=None, **_):
        super().__init__(root, transform, target_transform)
        self.classes = ["a", "b"]
        self.class_to_idx = {"a": 0, "b": 1}
        self.data, labels = _class_images(_sizes("train" in str(root)), (64, 64, 3), 2, 4)
        self.targets = [int(t) for t in labels]
        self.samples = [(f"{i}.png", t) for i, t in enumerate(self.targets)]
        self.imgs = self.samples

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        return self._finish(self.data[index], self.targets[index])
