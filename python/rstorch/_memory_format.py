"""torch.memory_format and its four values. `clone(memory_format=...)` reads them by name
(their str is PyTorch's, "torch.contiguous_format"); the default of clone and the `*_like`
factories is preserve_format: the new tensor keeps its input's memory order."""

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]


class memory_format:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
