"""embedding_bag: sums, means or maxima of bags of embedding rows, without materialising the
(bags, length, dim) tensor of F.embedding followed by a reduction."""
import rstorch
from ._sparse import embedding


def _bag_bounds(offsets, n, include_last_offset):
    """[(start, end)] per bag, with PyTorch's checks of the offsets."""
    offs = [int(v) for v in offsets.tolist()]
    if offs and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}")
    if offs and offs[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {offs[-1]}")
    ends = offs[1:] + ([] if include_last_offset else [n])
    starts = offs[:-1] if include_last_offset else offs
    bounds = list(zip(starts, ends))
    if any(end < start for start, end in bounds):
        raise RuntimeError("offsets must be non-decreasing")
    return bounds


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             f"{type(offsets)}")
        length = input.shape[1]
        bounds = [(b * length, (b + 1) * length) for b in range(input.shape[0])]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        bounds = None
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    if input.dtype not in (rstorch.int64, rstorch.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding_bag)")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
                               f"but got {padding_idx}")
        padding_idx = padding_idx % num
    n = input.shape[0]
    if bounds is None:
        bounds = _bag_bounds(offsets, n, include_last_offset)
    ids = [int(v) for v in input.tolist()]
    for i, v in enumerate(ids):
        if not 0 <= v < num:
            # PyTorch's float32 sum/mean kernel reports the position; its other kernels only the value.
            if weight.dtype == rstorch.float32 and mode != "max":
                raise RuntimeError(f"Index {i} of input takes value {v} which is not in the valid range [0, {num})")
            raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {v}")
    # The lookup (with max_norm's in-place renormalisation and scale_grad_by_freq) is embedding's.
    rows = embedding(input, weight, None, max_norm, norm_type, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    # Entries equal to padding_idx leave their bag: they add nothing and do not count in the mean.
    keep = [v != padding_idx for v in ids]
    dim = weight.shape[1]
    if mode == "max":
        outs = []
        for start, end in bounds:
            pick = [i for i in range(start, end) if keep[i]]
            if pick:
                outs.append(rows.index_select(0, rstorch.tensor(pick, device=rows.device)).max(0).values)
            else:
                outs.append(rstorch.zeros(dim, dtype=rows.dtype, device=rows.device))
        if not outs:
            return rstorch.zeros(0, dim, dtype=rows.dtype, device=rows.device)
        return rstorch.stack(outs, 0)
    bag_of, members, counts = [], [], []
    for b, (start, end) in enumerate(bounds):
        pick = [i for i in range(start, end) if keep[i]]
        members.extend(pick)
        bag_of.extend([b] * len(pick))
        counts.append(len(pick))
    out = rstorch.zeros(len(bounds), dim, dtype=rows.dtype, device=rows.device)
    if members:
        picked = rows.index_select(0, rstorch.tensor(members, device=rows.device))
        out = out.index_add(0, rstorch.tensor(bag_of, device=rows.device), picked)
    if mode == "mean":
        # An empty bag stays zero (PyTorch divides by max(count, 1)).
        out = out / rstorch.tensor([max(c, 1) for c in counts], dtype=rows.dtype, device=rows.device).unsqueeze(1)
    return out
