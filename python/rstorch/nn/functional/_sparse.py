"""Lookups by index: embedding and one_hot."""
import rstorch
from ._utils import as_node


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None:
        if padding_idx >= weight.shape[0] or padding_idx < -weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= weight.shape[0]
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse gradients are not supported")
    flat = input.reshape(-1)
    if max_norm is not None:
        _renorm_rows(weight, flat, max_norm, norm_type)
    out = weight.index_select(0, flat).reshape(list(input.shape) + [weight.shape[1]])
    if padding_idx is not None and out.requires_grad:
        # The padding row takes no gradient: its lookups are cut from the graph.
        at_padding = (input == padding_idx).unsqueeze(-1)
        out = rstorch.where(at_padding, out.detach(), out)
    return as_node("EmbeddingBackward0", (weight,), out)


def _renorm_rows(weight, indices, max_norm, norm_type):
    """Rescales, in place, each looked-up row whose norm exceeds max_norm (as PyTorch does)."""
    with rstorch.no_grad():
        rows = sorted(set(indices.tolist()))
        if not rows:
            return
        idx = rstorch.tensor(rows, dtype=rstorch.int64, device=weight.device)
        selected = weight.index_select(0, idx)
        norms = selected.norm(norm_type, 1, keepdim=True)
        scale = rstorch.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[idx] = selected * scale


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != rstorch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1 if tensor.numel() else 0
    elif tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == rstorch.arange(num_classes, device=tensor.device)).long()
