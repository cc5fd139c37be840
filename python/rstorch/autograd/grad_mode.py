"""Grad-mode context managers and decorators: `no_grad`, `enable_grad`, `set_grad_enabled`,
`inference_mode`. The flag itself is thread-local in the Rust core."""
import functools

from .. import _C


def is_grad_enabled():
    return _C.is_grad_enabled()


class _GradModeContext:
    """Sets grad mode on entry and restores it on exit; also usable as a decorator, with or
    without parentheses (`@no_grad()` and `@no_grad`)."""

    _enabled = True

    def __new__(cls, orig_func=None):
        if orig_func is None or not callable(orig_func):
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func=None):
        pass

    def __enter__(self):
        self._prev = _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeContext):
    _enabled = False


class enable_grad(_GradModeContext):
    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode at once (PyTorch's behaviour when called as a function) and restores the
    previous mode when used as a context manager and exited."""

    def __init__(self, mode):
        self._prev = _C._set_grad_enabled(bool(mode))
        self._enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        _C._set_grad_enabled(self._prev)
        mode = self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(self._enabled)


def is_inference_mode_enabled():
    return _C.is_inference_mode_enabled()


class inference_mode(_GradModeContext):
    """`no_grad` whose tensors are inference tensors: they cannot be saved for backward nor
    updated in place outside inference mode. `inference_mode(False)` turns it off again."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev_inference = _C._set_inference_mode(self.mode)
        # Inference mode turns recording off; leaving it (mode False) keeps grad mode as it is.
        self._prev = _C._set_grad_enabled(False) if self.mode else _C.is_grad_enabled()
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        _C._set_inference_mode(self._prev_inference)
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(self.mode)


