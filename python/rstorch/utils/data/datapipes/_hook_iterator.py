"""The single-iterator rule of IterDataPipes.

Each IterDataPipe has at most one live iterator: creating a new one (which also calls the pipe's
`reset()`) invalidates the previous one, whose next `next()` raises. Pipes keep buffers and
positions on themselves, so two interleaved iterators would corrupt each other. Children of
`fork`/`demux` share their parent's iterator generation. An exception raised while iterating
names the pipe it came from.
"""
import functools
import inspect

_FEEDBACK = ("\nFor feedback regarding this single iterator per IterDataPipe constraint, feel free "
             "to comment on this issue: https://github.com/pytorch/data/issues/45.")
_THROWN_BY = "thrown by __iter__ of"


def _short(value):
    return value.__name__ if inspect.isfunction(value) else repr(value)


def _arguments(dp):
    """`name=value` for each constructor argument the pipe keeps under the same name."""
    try:
        params = inspect.signature(type(dp)).parameters
    except (TypeError, ValueError):
        return ""
    shown = []
    for name in sorted(params):
        try:
            value = getattr(dp, name)
        except Exception:  # noqa: BLE001 - an attribute that cannot be read is not shown
            continue
        shown.append(f"{name}={_short(value)}")
    return ", ".join(shown)


def describe(dp):
    return f"{type(dp).__name__}({_arguments(dp)})"


def _invalidated(dp):
    return RuntimeError(
        "This iterator has been invalidated because another iterator has been created from the "
        f"same IterDataPipe: {describe(dp)}\nThis may be caused by multiple references to the "
        "same IterDataPipe. We recommend using `.fork()` if that is necessary." + _FEEDBACK)


def _is_child(dp):
    return getattr(dp, "_is_child_datapipe", False) is True


def start_iteration(dp):
    """Opens a new iterator generation on `dp` (resetting it) and returns its id."""
    if _is_child(dp):
        return dp._set_main_datapipe_valid_iterator_id()
    dp._valid_iterator_id = 0 if dp._valid_iterator_id is None else dp._valid_iterator_id + 1
    dp.reset()
    return dp._valid_iterator_id


def check_valid(dp, iterator_id):
    if _is_child(dp):
        if not dp._check_valid_iterator_id(iterator_id):
            raise RuntimeError(
                "This iterator has been invalidated, because a new iterator has been created from "
                f"one of the ChildDataPipes of {describe(dp.main_datapipe)}." + _FEEDBACK)
    elif dp._valid_iterator_id != iterator_id:
        raise _invalidated(dp)


def _annotate(exc, dp):
    """Appends which pipe's `__iter__` raised, once (the innermost pipe names itself)."""
    args = exc.args
    note = f"\nThis exception is {_THROWN_BY} {describe(dp)}"
    if not args or not isinstance(args[0], str):
        exc.args = (note,)
    elif _THROWN_BY not in args[0] and "single iterator per IterDataPipe" not in args[0]:
        exc.args = (args[0] + note,) + args[1:]


class _CheckedIterator:
    """Wraps the iterator a non-generator `__iter__` returned."""

    def __init__(self, iterator, datapipe, iterator_id):
        self.iterator = iterator
        self.datapipe = datapipe
        self.iterator_id = iterator_id

    def __iter__(self):
        return self

    def __next__(self):
        check_valid(self.datapipe, self.iterator_id)
        value = next(self.iterator)
        self.datapipe._number_of_samples_yielded += 1
        return value

    def __getattr__(self, name):
        return getattr(self.__dict__["iterator"], name)


def hook_iter(fn):
    """The `__iter__` a DataPipe class gets in place of the one it defines."""
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator_iter(self, *args, **kwargs):
            inner = fn(self, *args, **kwargs)
            # Like any generator, nothing (not even the reset) happens before the first next().
            iterator_id = start_iteration(self)
            try:
                value = inner.send(None)
                while True:
                    self._number_of_samples_yielded += 1
                    sent = yield value
                    check_valid(self, iterator_id)
                    value = inner.send(sent)
            except StopIteration:
                return
            except Exception as e:
                _annotate(e, self)
                raise
        return generator_iter

    @functools.wraps(fn)
    def plain_iter(self, *args, **kwargs):
        iterator = fn(self, *args, **kwargs)
        iterator_id = start_iteration(self)
        return _CheckedIterator(iterator, self, iterator_id)
    return plain_iter
