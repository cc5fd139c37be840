"""Loss functions, with PyTorch's reductions, class weights, ignore_index and label smoothing."""
import warnings

from ... import _C
from ._activation import log_softmax
from ._utils import reduce_loss, reduction_from_legacy


def _check_same_size(input, target):
    """PyTorch's warning for a pointwise loss whose operands will be broadcast."""
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same "
            "size.", stacklevel=3)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    # The checks, the fused kernel and the composed form for other shapes and dtypes are the core's.
    reduction = reduction_from_legacy(size_average, reduce, reduction)
    return _C._nll_loss(input, target, weight, ignore_index, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = reduction_from_legacy(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = log_softmax(input, class_dim)
    classes = input.shape[class_dim]
    if target.is_floating_point():
        return _cross_entropy_soft(logp, target, weight, reduction, label_smoothing, class_dim, classes)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0.0:
        return nll
    # Smoothing spreads label_smoothing of the target mass uniformly over the classes.
    if weight is not None:
        wshape = [1] * input.dim()
        wshape[class_dim] = classes
        smooth = -(logp * weight.reshape(wshape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target.masked_select(~ignored)
            smooth = smooth.sum() / weight.index_select(0, kept).sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return nll._scalar_op("mul", 1 - label_smoothing) + smooth._scalar_op("mul", label_smoothing / classes)


def _cross_entropy_soft(logp, target, weight, reduction, label_smoothing, class_dim, classes):
    if target.shape != logp.shape:
        raise RuntimeError(
            f"Expected floating point target of the input's shape {list(logp.shape)}, got {list(target.shape)}")
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = logp * target
    if weight is not None:
        wshape = [1] * logp.dim()
        wshape[class_dim] = classes
        terms = terms * weight.reshape(wshape)
    if reduction in ("mean", "sum") and logp.dim() > 1:
        total = -terms.sum()
        if reduction == "sum":
            return total
        # A division by a number: PyTorch's node for it is DivBackward1.
        return total._scalar_op("div", logp.numel() // classes)
    losses = -terms.sum(class_dim)
    return losses if reduction == "mean" else reduce_loss(losses, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target)
    return _C._mse_loss(input, target, weight, reduction_from_legacy(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target)
    return _C._l1_loss(input, target, weight, reduction_from_legacy(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _check_same_size(input, target)
    return _C._smooth_l1_loss(input, target, reduction_from_legacy(size_average, reduce, reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _check_same_size(input, target)
    return _C._huber_loss(input, target, reduction, delta, weight)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    return _C._binary_cross_entropy(input, target, weight, reduction_from_legacy(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    return _C._binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                reduction_from_legacy(size_average, reduce, reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = reduction_from_legacy(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    return _C._kl_div(input, target, reduction, log_target)
