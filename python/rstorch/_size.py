"""`rstorch.Size`: the tuple subclass that `Tensor.shape` and `Tensor.size()` return."""


class Size(tuple):
    __slots__ = ()

    def __repr__(self):
        return f"rstorch.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))
