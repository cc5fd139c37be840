"""The `probs` / `logits` parametrisation the discrete families share: exactly one is given,
the other is derived on first use (lazily, so validation checks only the one given)."""
import numbers

from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


def set_probs_or_logits(self, probs, logits, total_count=None, is_binary=True):
    """Stores `probs` or `logits` (and `total_count` broadcast with it) and `_param`; returns
    whether the parameter given was a Python number."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    given = probs if probs is not None else logits
    name = "probs" if probs is not None else "logits"
    if total_count is None:
        (value,) = broadcast_all(given)
    else:
        count, value = broadcast_all(total_count, given)
        self.total_count = count.type_as(value)
    setattr(self, name, value)
    self._param = value
    return isinstance(given, numbers.Number)


class BinaryProbsMixin:
    """`logits` from `probs` and back for a binary event (log-odds)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

