"""Margin and embedding losses (cosine/hinge embedding, margin ranking, soft margin, multi-class and
multi-label margin, triplet), composed of differentiable ops so autograd gives their gradients.

Where PyTorch's kernel only counts a term when it is strictly positive, the composite uses relu (whose
gradient at 0 is 0); where PyTorch composes with clamp_min, so does this."""
import rstorch
from ..._sampling import _TITLES, _key
from ._activation import logsigmoid
from ._distance import pairwise_distance
from ._utils import reduction_from_legacy

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction):
    # PyTorch maps the string to its enum before anything is computed; an unknown one is a ValueError.
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _legacy(size_average, reduce, reduction):
    return _check_reduction(reduction_from_legacy(size_average, reduce, reduction))


def _check_long(target):
    if target.dtype != rstorch.int64:
        raise RuntimeError(f"expected scalar type Long but found {_TITLES[_key(target.dtype)]}")


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    tdim = target.dim()
    if tdim == 1:
        if input1.dim() != 2 or input2.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                               f"{list(input1.shape)} and {list(input2.shape)}.")
    elif tdim == 0:
        if input1.dim() != 1 or input2.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                               f"{list(input1.shape)} and {list(input2.shape)}.")
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    # PyTorch's form: the squared magnitudes get 1e-12 each before the square root of their product.
    dot = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + 1e-12
    mag2 = (input2 * input2).sum(tdim) + 1e-12
    cos = dot / (mag1 * mag2).sqrt()
    zero = rstorch.zeros_like(cos)
    loss = rstorch.where(target == 1, 1 - cos, zero) + rstorch.where(target == -1, (cos - margin).clamp_min(0), zero)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    zero = rstorch.zeros_like(input)
    # Target values other than 1 and -1 take both terms, as in PyTorch.
    loss = rstorch.where(target != 1, (margin - input).clamp_min(0), zero) + rstorch.where(target != -1, input, zero)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    margin = -input * target
    # PyTorch computes in place in a tensor of the input's shape: the target may not broadcast it larger.
    if margin.shape != input.shape:
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                           f"{list(margin.shape)}")
    # log(1 + exp(-y x)) as PyTorch writes it (not the overflow-free softplus): the same numbers.
    return _reduce(margin.exp().log1p(), reduction)


def _check_matrix(input):
    # A vector, or a matrix whose class dimension is not empty (an empty batch is allowed).
    ok = (input.dim() <= 1 and input.numel() > 0) or (input.dim() == 2 and input.shape[1] > 0)
    if not ok:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_matrix(input)
    x = input.reshape(1, -1) if input.dim() <= 1 else input
    n, c = x.shape
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{n}], but got {list(target.shape)}. Input has shape "
            f"{list(input.shape)}.")
    _check_long(target)
    if weight is not None and weight.requires_grad:
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    y = target.reshape(n)
    if n and (bool((y < 0).any()) or bool((y >= c).any())):
        raise RuntimeError("target out of range")
    # Per sample: sum over the other classes j of max(0, margin - x[y] + x[j])^p * weight[y], over C.
    z = (margin - x.gather(1, y.reshape(n, 1)) + x).relu()
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y).reshape(n, 1)
    others = 1 - rstorch.nn.functional.one_hot(y, c).to(z.dtype)
    loss = (z * others).sum(1) / c
    if input.dim() <= 1:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    _check_matrix(input)
    x = input.reshape(1, -1) if input.dim() <= 1 else input
    n, c = x.shape
    same = target.dim() <= 1 and target.numel() == c if input.dim() <= 1 else target.shape == input.shape
    if not same:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    _check_long(target)
    t = target.reshape(n, c)
    if t.numel() and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError("argument #2 'target' is out of range")
    # A sample's targets are the indices before its first -1.
    valid = ((t < 0).to(rstorch.int64).cumsum(1) == 0).to(x.dtype)
    idx = t.clamp_min(0)
    is_target = rstorch.zeros_like(x).scatter_add(1, idx, valid) > 0
    # Every (target j, non-target i) pair contributes max(0, 1 - (x[j] - x[i])).
    z = (1 - x.gather(1, idx).reshape(n, c, 1) + x.reshape(n, 1, c)).relu()
    pairs = valid.reshape(n, c, 1) * (~is_target).to(x.dtype).reshape(n, 1, c)
    loss = (z * pairs).sum((1, 2)) / c
    if input.dim() <= 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = reduction_from_legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def _check_triplet_dims(anchor, positive, negative):
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative {negative.dim()}D inputs")


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        # The harder negative: the positive may sit closer to the negative than the anchor does.
        d_neg = rstorch.minimum(d_neg, distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative, lambda a, b: pairwise_distance(a, b, p, eps), margin, swap,
                    reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction)
