"""Loss functions, with PyTorch's reductions, class weights, ignore_index and label smoothing. The losses,
their checks and nodes are the core's (`ops::nn::loss`, nll_loss in `tensor::loss`); what stays here is what
PyTorch does in Python: the deprecated size_average/reduce mapping and the warnings."""
import warnings

from ... import _C
from ._utils import reduction_from_legacy


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
    # Class indices (through nll_loss) or probabilities, and the label smoothing, are the core's.
    return _C._cross_entropy(input, target, weight, ignore_index, reduction_from_legacy(size_average, reduce, reduction),
                             label_smoothing)


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
