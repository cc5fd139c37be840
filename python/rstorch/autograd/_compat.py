"""autograd switches PyTorch exposes that have nothing to change in rstorch's engine: the
multithreaded-backward flag (recorded, thread-local, and restored like PyTorch's), view replay
(never on), and the removed `variable` constructor."""
import functools
import threading

_local = threading.local()


def is_multithreading_enabled():
    return getattr(_local, "multithreading", True)


class set_multithreading_enabled:
    """Sets the flag at once; as a context manager it restores the previous value on exit, as a
    decorator it runs the function under a fresh copy of itself."""

    def __init__(self, mode):
        self.prev = is_multithreading_enabled()
        _local.multithreading = bool(mode)
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        _local.multithreading = self.prev

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(self.mode)


def is_view_replay_enabled():
    return False


def variable(*args, **kwargs):
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
