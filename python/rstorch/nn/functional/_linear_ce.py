"""linear_cross_entropy: cross-entropy of the logits of a linear layer (PyTorch 2.15's fused head loss).
Here it is always the reference composition, linear then cross_entropy; PyTorch's `options` only choose
its batch-chunked evaluation, a memory saving with the same numbers, and are accepted and not used."""
import math

from ._linear import linear
from ._loss import cross_entropy


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")
    classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, classes, *out_features)
    # A target of the logits' shape holds class probabilities (cross_entropy's own test).
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    # The extra output dimensions are folded into the class dimension of one 2-d linear map.
    width = math.prod(out_features, start=classes)
    logits = linear(input, linear_weight.reshape(width, in_features),
                    None if linear_bias is None else linear_bias.reshape(width))
    return cross_entropy(logits.reshape(logits_shape), target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)
