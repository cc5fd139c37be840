"""autograd switches PyTorch exposes that have nothing to change in rstorch's engine: the
multithreaded-backward flag (recorded, thread-local, and restored like PyTorch's), view replay
(never on), and the removed `variable` constructor."""
import functools
import threading

_local = threading.local()


def is_multithreading_enabled():
    return getattr(_local, "multithreading", True)


class _ThreadFlag:
    """A thread-local switch set at once: as a context manager it restores the previous value on
    exit, as a decorator it runs the function under a fresh copy of itself. `_flag` names the
    thread-local attribute."""

    _flag = ""

    def __init__(self, mode):
        self.prev = getattr(_local, self._flag, True)
        setattr(_local, self._flag, bool(mode))
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        setattr(_local, self._flag, self.prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_ThreadFlag):
    _flag = "multithreading"


class enforce_grad_layout_policy(_ThreadFlag):
    """Whether accumulated gradients are made to follow their parameter's layout (the default) or
    may keep the incoming gradient's. rstorch's gradients are always laid out row-major, so the
    switch is recorded (thread-local, restored on exit) and changes nothing."""

    _flag = "grad_layout_enforcement"

    def __init__(self, enable=True):
        super().__init__(enable)

    def __call__(self, fn):
        # Used as a decorator, the switch applies only while the function runs.
        setattr(_local, self._flag, self.prev)
        return super().__call__(fn)


def _is_grad_layout_enforcement_enabled():
    return getattr(_local, "grad_layout_enforcement", True)


def is_view_replay_enabled():
    return False


def variable(*args, **kwargs):
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
