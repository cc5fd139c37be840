"""Connectionist temporal classification loss: the forward (alpha) recursion in log space over the
extended label sequence (blanks around and between the targets), batched over the samples, with autograd
through the composite giving the gradient.

PyTorch's kernel returns, for log_probs, the gradient as if they came from a log_softmax (it adds
exp(log_probs)); the gradient here is the exact one of the loss. Both give the same gradient to the logits
of a log_softmax, which is how CTC is used."""
import math

import rstorch
from ..._sampling import _TITLES, _key
from ._loss_margin import _check_reduction


def _lengths(value, name):
    if isinstance(value, rstorch.Tensor):
        if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype == rstorch.bool:
            raise RuntimeError(f"{name} must be integral")
        return [int(v) for v in value.reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    raise TypeError(f"ctc_loss(): argument '{name}' must be a tuple of ints or a Tensor, not {type(value).__name__}")


def _logsumexp(*terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is -inf, with a gradient of 0 (not NaN) there
    and at every -inf term: the shift is detached and the log never sees a 0."""
    m = terms[0]
    for t in terms[1:]:
        m = rstorch.maximum(m, t)
    m = m.detach()
    finite = m != -math.inf
    shift = rstorch.where(finite, m, rstorch.zeros_like(m))
    total = sum((t - shift).exp() for t in terms)
    total = rstorch.where(finite, total, rstorch.ones_like(total))
    return rstorch.where(finite, shift + total.log(), rstorch.full_like(m, -math.inf))


class _ImpossibleAlignment(rstorch.autograd.Function):
    """Adds 0 to the losses; backward gives NaN to the input frames of the samples whose loss is infinite
    (no alignment fits their input), as PyTorch's kernel does, where the composite alone would give 0."""

    @staticmethod
    def forward(ctx, lp, frames):
        ctx.save_for_backward(frames)
        ctx.shape = tuple(lp.shape)
        return lp.new_zeros(lp.shape[1])

    @staticmethod
    def backward(ctx, grad):
        (frames,) = ctx.saved_tensors
        nan = rstorch.full(ctx.shape, math.nan, dtype=grad.dtype, device=grad.device)
        return rstorch.where(frames, nan, rstorch.zeros(ctx.shape, dtype=grad.dtype, device=grad.device)), None


def _padded_targets(targets, target_lengths, n, check):
    """The targets as an (n, max length) int64 matrix, from a padded matrix or the 1-d concatenation."""
    longest = max(target_lengths, default=0)
    if targets.dim() == 1:
        total = sum(target_lengths)
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size {targets.shape[0]} "
                               f"for argument #2 'targets' (while checking arguments for {check})")
        rows, start = [], 0
        for length in target_lengths:
            row = targets[start:start + length].to(rstorch.int64)
            rows.append(rstorch.cat([row, rstorch.zeros(longest - length, dtype=rstorch.int64)]))
            start += length
        return rstorch.stack(rows) if rows else rstorch.zeros((0, longest), dtype=rstorch.int64)
    if targets.dim() != 2 or targets.shape[0] != n:
        raise RuntimeError(f"Expected tensor to have size {n} at dimension 0, but got size "
                           f"{targets.shape[0] if targets.dim() else 0} for argument #2 'targets' "
                           f"(while checking arguments for {check})")
    if targets.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for {check})")
    return targets[:, :longest].to(rstorch.int64)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    _check_reduction(reduction)
    check = "ctc_loss_allocate_outputs"
    if not log_probs.dtype.is_floating_point:
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{_TITLES[_key(log_probs.dtype)]}'")
    batched = log_probs.dim() == 3
    # An unbatched sample's targets are a 1-d sequence: the concatenated form of a batch of one.
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if lp.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for argument #1 "
                           f"'log_probs' (while checking arguments for {check})")
    if not 1 <= targets.dim() <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for argument #2 "
                           f"'targets' (while checking arguments for {check})")
    steps, n, classes = lp.shape
    in_lens = _lengths(input_lengths, "input_lengths")
    tg_lens = _lengths(target_lengths, "target_lengths")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(in_lens) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tg_lens) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for name, lens in (("target_lengths", tg_lens), ("input_lengths", in_lens)):
        for v in lens:
            if v < 0:
                raise RuntimeError(f"Expected {name} to have value at least 0, but got value {v} "
                                   f"(while checking arguments for {check})")
    # The label bookkeeping is built on the CPU and moved to the scores' device once.
    tpad = _padded_targets(targets.cpu(), tg_lens, n, check)
    s = rstorch.tensor(tg_lens, dtype=rstorch.int64).reshape(n, 1)
    # Past a sample's length its row holds padding, which may be any value: read blanks there instead.
    tpad = rstorch.where(rstorch.arange(tpad.shape[1]).reshape(1, -1) < s, tpad, rstorch.full_like(tpad, blank))
    for v in in_lens:
        if v > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {v} "
                               f"(while checking arguments for {check})")

    # The extended sequence: blank, l1, blank, l2, ..., blank (2 S + 1 states).
    longest = tpad.shape[1]
    states = 2 * longest + 1
    blanks = rstorch.full((n, longest), blank, dtype=rstorch.int64)
    ext = rstorch.cat([rstorch.stack([blanks, tpad], 2).reshape(n, 2 * longest),
                       rstorch.full((n, 1), blank, dtype=rstorch.int64)], 1)
    pos = rstorch.arange(states).reshape(1, states)
    # A label state may also be entered from two states back unless that holds the same label.
    skip = (pos % 2 == 1) & (pos >= 2)
    if states > 2:
        prev2 = rstorch.cat([ext[:, :2], ext[:, :-2]], 1)
        skip = skip & (ext != prev2)
    dev = lp.device
    ext, skip, pos, s = ext.to(dev), skip.to(dev), pos.to(dev), s.to(dev)
    emit = lp.gather(2, ext.unsqueeze(0).expand(steps, n, states).contiguous()) if steps else None

    dtype = lp.dtype
    neg_inf = rstorch.full((n, states), -math.inf, dtype=dtype, device=dev)
    lens = rstorch.tensor(in_lens, dtype=rstorch.int64).reshape(n, 1).to(dev)
    # With no input frames only the empty path exists (log-probability 0 in state 0).
    empty = rstorch.where(pos == 0, rstorch.zeros((n, states), dtype=dtype, device=dev), neg_inf)
    if steps:
        alpha = rstorch.where((pos <= 1) & (lens > 0), emit[0], empty)
    else:
        alpha = empty
    edge = rstorch.full((n, 1), -math.inf, dtype=dtype, device=dev)
    edge2 = rstorch.full((n, 2), -math.inf, dtype=dtype, device=dev)
    for t in range(1, max(in_lens, default=0)):
        from_prev = rstorch.cat([edge, alpha[:, :-1]], 1)
        from_skip = rstorch.where(skip, rstorch.cat([edge2, alpha[:, :-2]], 1)[:, :states], neg_inf)
        step = _logsumexp(alpha, from_prev, from_skip) + emit[t]
        # Samples whose input has ended keep their last alpha.
        alpha = rstorch.where(lens > t, step, alpha)

    last = alpha.gather(1, 2 * s)
    before = rstorch.where(s > 0, alpha.gather(1, (2 * s - 1).clamp_min(0)), edge)
    nll = -_logsumexp(last, before).reshape(n)
    if zero_infinity:
        nll = rstorch.where(nll == math.inf, rstorch.zeros_like(nll), nll)
    elif lp.requires_grad and rstorch.is_grad_enabled() and bool((nll == math.inf).any()):
        frames = (rstorch.arange(steps, device=dev).reshape(steps, 1) < lens.reshape(1, n)) & (nll == math.inf).reshape(1, n)
        nll = nll + _ImpossibleAlignment.apply(lp, frames.unsqueeze(2))
    if reduction == "mean":
        return (nll / s.reshape(n).clamp_min(1).to(dtype)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll if batched else nll.reshape(())
