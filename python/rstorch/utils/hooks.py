"""Handles returned by `register_*hook` calls."""


class RemovableHandle:
    """`handle.remove()` unregisters the hook; also a context manager."""

    def __init__(self, remove, hook_id):
        self._remove = remove
        self.id = hook_id

    def remove(self):
        if self._remove is not None:
            self._remove(self.id)
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
