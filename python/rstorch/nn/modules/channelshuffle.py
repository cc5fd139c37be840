"""ChannelShuffle: interleaves the channels of `groups` groups (as ShuffleNet does)."""
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """(N, g * k, *) -> the same shape with channel i * k + j moved to j * g + i."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
