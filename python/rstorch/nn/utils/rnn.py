"""Variable-length sequences: padding, and PyTorch's packed layout, in which step t holds the
first batch_sizes[t] sequences of a batch sorted by decreasing length.

Packing and unpacking are index_select/cat over the data, so gradients flow through them."""
from collections import namedtuple
from collections.abc import Iterable

import rstorch

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


def invert_permutation(permutation):
    """The permutation q with q[permutation[i]] == i (None stays None)."""
    if permutation is None:
        return None
    return permutation.argsort()


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Holds the packed data and its batch_sizes (a CPU int64 tensor). `sorted_indices` orders the
    original batch by decreasing length; `unsorted_indices` is its inverse."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                    "manually. They should be instantiated by functions like pack_sequence and pack_padded_sequences "
                    "in nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        # Legacy form: PackedSequence((data, batch_sizes)).
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise AssertionError()
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The data moved or cast as Tensor.to does; the indices follow the device, batch_sizes stays on CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = None if self.sorted_indices is None else self.sorted_indices.to(data.device, **kwargs)
        unsorted_indices = None if self.unsorted_indices is None else self.unsorted_indices.to(data.device, **kwargs)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def cuda(self, *args, **kwargs):
        return self.to(*args, device="cuda", **kwargs)

    def double(self):
        return self.to(dtype=rstorch.float64)

    def float(self):
        return self.to(dtype=rstorch.float32)

    def half(self):
        return self.to(dtype=rstorch.float16)

    def long(self):
        return self.to(dtype=rstorch.int64)

    def int(self):
        return self.to(dtype=rstorch.int32)

    def short(self):
        return self.to(dtype=rstorch.int16)

    def char(self):
        return self.to(dtype=rstorch.int8)

    def byte(self):
        return self.to(dtype=rstorch.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _lengths_list(lengths):
    if isinstance(lengths, rstorch.Tensor):
        if lengths.dim() != 1 or lengths.device.type != "cpu":
            # PyTorch casts lengths to int64 before checking them, hence "Long" whatever the dtype.
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D {lengths.device} Long tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences of `lengths`."""
    lengths = _lengths_list(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        lengths = [lengths[i] for i in order]
        sorted_indices = rstorch.tensor(order, dtype=rstorch.int64, device=input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    if lengths[0] > steps:
        # PyTorch reads past the tensor here; refuse instead.
        raise RuntimeError(f"Expected the longest length ({lengths[0]}) to be at most the sequence length ({steps})")
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    # Row t * batch + b of the flattened input is step t of sequence b.
    rows = [t * batch + b for t, size in enumerate(batch_sizes) for b in range(size)]
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat.index_select(0, rstorch.tensor(rows, dtype=rstorch.int64, device=input.device))
    return PackedSequence(data, rstorch.tensor(batch_sizes, dtype=rstorch.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: the padded batch (in the original batch order) and the
    lengths (a CPU int64 tensor)."""
    data, batch_sizes = sequence.data, [int(v) for v in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = batch_sizes[0]
    lengths = [sum(1 for size in batch_sizes if size > b) for b in range(batch)]
    # Every padded position takes its packed row, or the appended padding row (index len(data)).
    pad_row = len(data)
    rows = [pad_row] * (steps * batch)
    offset = 0
    for t, size in enumerate(batch_sizes):
        for b in range(size):
            rows[t * batch + b] = offset + b
        offset += size
    pad = rstorch.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = rstorch.cat([data, pad]).index_select(0, rstorch.tensor(rows, dtype=rstorch.int64, device=data.device))
    padded = padded.reshape(steps, batch, *data.shape[1:])
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = rstorch.tensor(lengths, dtype=rstorch.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)), padded on
    `padding_side`."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        s = s.to(first.dtype)
        missing = longest - s.shape[0]
        if missing:
            fill = rstorch.full((missing, *s.shape[1:]), padding_value, dtype=first.dtype, device=s.device)
            s = rstorch.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return rstorch.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Inverse of pad_sequence (right padding): the list of sequences, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lengths = lengths.tolist() if isinstance(lengths, rstorch.Tensor) else lengths
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences of shape (L_i, *)."""
    lengths = rstorch.tensor([s.shape[0] for s in sequences], dtype=rstorch.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Inverse of pack_sequence: the list of sequences in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
