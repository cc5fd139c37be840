"""Transforms over NumPy uint8 images (HxW or HxWxC, what the stand-in data sets hand out) and over
CxHxW tensors after ToTensor, with torchvision's names and arguments. Resizing is nearest-neighbour:
the examples need the shapes, not torchvision's interpolation."""
import numbers
import random

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


def _hw(img):
    return (img.shape[0], img.shape[1]) if isinstance(img, np.ndarray) else (img.shape[-2], img.shape[-1])


def _take(img, rows, cols):
    if isinstance(img, np.ndarray):
        return img[rows][:, cols]
    return img[..., torch.from_numpy(np.asarray(rows, dtype=np.int64)), :][..., torch.from_numpy(np.asarray(cols, dtype=np.int64))]


def _pair(size):
    return (size, size) if isinstance(size, numbers.Number) else tuple(size)


class ToTensor:
    def __call__(self, pic):
        if isinstance(pic, torch.Tensor):
            return pic
        arr = np.asarray(pic)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        arr = np.ascontiguousarray(arr.transpose(2, 0, 1))
        if arr.dtype == np.uint8:
            return torch.from_numpy(arr.astype(np.float32) / 255.0)
        return torch.from_numpy(arr)


class PILToTensor:
    def __call__(self, pic):
        arr = np.asarray(pic)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean, self.std, self.inplace = mean, std, inplace

    def __call__(self, tensor):
        mean = torch.tensor(self.mean, dtype=tensor.dtype).reshape(-1, 1, 1)
        std = torch.tensor(self.std, dtype=tensor.dtype).reshape(-1, 1, 1)
        return (tensor - mean) / std


class Resize:
    def __init__(self, size, interpolation=None, max_size=None, antialias=True):
        self.size = size

    def __call__(self, img):
        h, w = _hw(img)
        if isinstance(self.size, numbers.Number) or len(self.size) == 1:
            short = self.size if isinstance(self.size, numbers.Number) else self.size[0]
            oh, ow = (short, int(short * w / h)) if h <= w else (int(short * h / w), short)
        else:
            oh, ow = self.size
        rows = (np.arange(oh) * h // oh).astype(np.int64)
        cols = (np.arange(ow) * w // ow).astype(np.int64)
        return _take(img, rows, cols)


Scale = Resize


class CenterCrop:
    def __init__(self, size):
        self.size = _pair(size)

    def __call__(self, img):
        h, w = _hw(img)
        th, tw = self.size
        top, left = max((h - th) // 2, 0), max((w - tw) // 2, 0)
        return _take(img, np.arange(top, top + th), np.arange(left, left + tw))


def _pad(img, padding, fill):
    """Constant padding as torchvision's: an int pads all four sides, (lr, tb) or (l, t, r, b)."""
    if isinstance(padding, numbers.Number):
        padding = (padding,)
    padding = tuple(padding)
    left, top, right, bottom = {1: padding * 4, 2: padding * 2, 4: padding}[len(padding)]
    if isinstance(img, np.ndarray):
        pad = ((top, bottom), (left, right)) + ((0, 0),) * (img.ndim - 2)
        return np.pad(img, pad, constant_values=fill)
    return torch.nn.functional.pad(img, (left, right, top, bottom), value=fill)


class Pad:
    def __init__(self, padding, fill=0, padding_mode="constant"):
        self.padding, self.fill = padding, fill

    def __call__(self, img):
        return _pad(img, self.padding, self.fill)


class RandomCrop:
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size, self.padding, self.fill = _pair(size), padding, fill

    def __call__(self, img):
        if self.padding:
            img = _pad(img, self.padding, self.fill)
        h, w = _hw(img)
        th, tw = self.size
        top, left = random.randint(0, h - th), random.randint(0, w - tw)
        return _take(img, np.arange(top, top + th), np.arange(left, left + tw))


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            h, w = _hw(img)
            return _take(img, np.arange(h), np.arange(w - 1, -1, -1))
        return img


class RandomResizedCrop:
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3), interpolation=None, antialias=True):
        self.size = _pair(size)

    def __call__(self, img):
        h, w = _hw(img)
        side = random.randint(max(1, min(h, w) // 2), min(h, w))
        top, left = random.randint(0, h - side), random.randint(0, w - side)
        img = _take(img, np.arange(top, top + side), np.arange(left, left + side))
        return Resize(self.size)(img)
