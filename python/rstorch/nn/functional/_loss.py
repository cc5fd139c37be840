"""Loss functions, with PyTorch's reductions, class weights, ignore_index and label smoothing."""
import warnings

import rstorch
from ._activation import log_softmax
from ._utils import as_node, reduce_loss, reduction_from_legacy


def _check_same_size(input, target, name):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same "
            "size.", stacklevel=3)


def _class_last(input, target):
    """(N, C, d1, ...) scores and (N, d1, ...) targets as (M, C) rows and M targets."""
    if input.dim() == 1:
        return input.unsqueeze(0), target.reshape(1)
    if input.dim() > 2:
        input = input.movedim(1, -1)
    return input.reshape(-1, input.shape[-1]), target.reshape(-1)


def _check_targets(input, target):
    if input.dim() < 1:
        raise ValueError("input tensor should be 1D or more")
    if input.dim() == 1:
        if target.dim() != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        return
    if input.shape[0] != target.shape[0] or target.dim() != input.dim() - 1:
        if input.shape[0] != target.shape[0]:
            raise ValueError(
                f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]}).")
        raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got {target.shape}")
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got {target.shape}")


def _picked_log_probs(input, target, weight, ignore_index):
    """Per-target -w[t] * input[t] (zero where ignored) and the per-target weights."""
    rows, flat = _class_last(input, target)
    classes = rows.shape[1]
    valid = flat != ignore_index
    safe = rstorch.where(valid, flat, 0)
    try:
        # gather checks the targets (on a GPU, on the device: only its flag comes back).
        picked = rows.gather(1, safe.unsqueeze(1)).squeeze(1)
    except IndexError:
        bad = (safe < 0) | (safe >= classes)
        raise IndexError(f"Target {int(safe[bad][0])} is out of bounds.") from None
    w = valid.to(rows.dtype)
    if weight is not None:
        if weight.shape != (classes,):
            raise RuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no classes but got weight "
                f"tensor of shape: {list(weight.shape)}")
        w = w * weight.index_select(0, safe)
    return -picked * w, w


def _if_grad(weight):
    """A weight given to a loss, where it needs a gradient: PyTorch's loss nodes list none
    that does not."""
    return weight if weight is not None and weight.requires_grad else None


def _broadcast(input, target):
    """Input and target expanded to their common shape (each only where it differs)."""
    if input.shape == target.shape:
        return input, target
    n = max(input.dim(), target.dim())
    a = [1] * (n - input.dim()) + list(input.shape)
    b = [1] * (n - target.dim()) + list(target.shape)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
    shape = rstorch.Size([max(x, y) if min(x, y) != 0 else 0 for x, y in zip(a, b)])
    return tuple(t if t.shape == shape else t.expand(shape) for t in (input, target))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = reduction_from_legacy(size_average, reduce, reduction)
    _check_targets(input, target)
    fused = rstorch._C._nll_loss(input, target, weight, ignore_index, reduction)
    if fused is not None:
        return fused
    losses, w = _picked_log_probs(input, target, weight, ignore_index)
    if reduction == "none":
        out = losses.reshape(target.shape)
    elif reduction == "sum":
        out = losses.sum()
    elif reduction == "mean":
        out = losses.sum() / w.sum()
    else:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    # PyTorch's kernels: one for (N, C) and (C,) scores, one for (N, C, H, W); other shapes are
    # reshaped to those.
    if input.dim() <= 2:
        return as_node("NllLossBackward0", (input, _if_grad(weight)), out)
    if input.dim() == 4:
        return as_node("NllLoss2DBackward0", (input, _if_grad(weight)), out)
    return out


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
    _check_same_size(input, target, "mse_loss")
    input, target = _broadcast(input, target)
    loss = (input - target).pow(2)
    if weight is not None:
        loss = loss * weight
    return as_node("MseLossBackward0", (input, target, weight), reduce_loss(loss, reduction_from_legacy(size_average, reduce, reduction)))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target, "l1_loss")
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return reduce_loss(loss, reduction_from_legacy(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _check_same_size(input, target, "smooth_l1_loss")
    input, target = _broadcast(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = (input - target).abs()
    if beta == 0.0:
        loss = diff
    else:
        loss = rstorch.where(diff < beta, diff.pow(2) * (0.5 / beta), diff - 0.5 * beta)
    return as_node("SmoothL1LossBackward0", (input, target), reduce_loss(loss, reduction_from_legacy(size_average, reduce, reduction)))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _check_same_size(input, target, "huber_loss")
    input, target = _broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    diff = (input - target).abs()
    loss = rstorch.where(diff < delta, diff.pow(2) * 0.5, (diff - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return as_node("HuberLossBackward0", (input, target, weight), reduce_loss(loss, reduction))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is "
            "deprecated. Please ensure they have the same size.")
    # Probabilities only: PyTorch refuses anything outside [0, 1] (NaN included) rather than
    # return a NaN loss.
    if not bool(((input >= 0) & (input <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not bool(((target >= 0) & (target <= 1)).all()):
        raise RuntimeError("all elements of target should be between 0 and 1")
    # PyTorch clamps each log at -100 so that a confident wrong answer costs 100, not inf.
    loss = -(target * input.log().clamp_min(-100.0) + (1 - target) * (1 - input).log().clamp_min(-100.0))
    if weight is not None:
        loss = loss * weight
    reduced = reduce_loss(loss, reduction_from_legacy(size_average, reduce, reduction))
    return as_node("BinaryCrossEntropyBackward0", (input, target, _if_grad(weight)), reduced)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    # log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow.
    log_sigmoid_neg = (-input.abs()).exp().log1p() + (-input).relu()
    if pos_weight is not None:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log_sigmoid_neg
    else:
        loss = (1 - target) * input + log_sigmoid_neg
    if weight is not None:
        loss = loss * weight
    reduced = reduce_loss(loss, reduction_from_legacy(size_average, reduce, reduction))
    return as_node("BinaryCrossEntropyWithLogitsBackward0", (input, target, _if_grad(weight), _if_grad(pos_weight)), reduced)


def _xlogy(x, y):
    """x * log(y), taken as 0 where x is 0 (and differentiable there): PyTorch's xlogy."""
    safe = rstorch.where(x == 0, 1.0, y)
    return as_node("XlogyBackward0", (x, y), rstorch.where(x == 0, 0.0, x * safe.log()))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = reduction_from_legacy(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return reduce_loss(loss, reduction)
