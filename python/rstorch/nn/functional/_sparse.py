"""Lookups by index: embedding and one_hot."""
import rstorch
from ... import _C


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    # The checks, the in-place renorm of max_norm and the lookup with its padding row are the core's.
    return _C._embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


# Output elements from which `one_hot` writes ones into zeros instead of comparing every element.
_WRITE_ONES_ABOVE = 1 << 15


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != rstorch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1 if tensor.numel() else 0
    elif tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    if tensor.numel() * num_classes < _WRITE_ONES_ABOVE:
        return (tensor.unsqueeze(-1) == rstorch.arange(num_classes, device=tensor.device)).long()
    # Zeros with a one written per index: the comparison wrote a bool per element and then
    # converted all of them (6x slower at 1024 x 1024 classes; faster below the threshold).
    out = rstorch.zeros(*tensor.shape, num_classes, dtype=rstorch.int64, device=tensor.device)
    at = rstorch.arange(0, out.numel(), num_classes, device=tensor.device) + tensor.reshape(-1)
    out.view(-1)[at] = 1
    return out
