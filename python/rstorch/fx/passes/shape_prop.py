"""ShapeProp: runs a GraphModule on example inputs and records each tensor value's shape,
dtype and strides in `node.meta['tensor_meta']`."""
from typing import NamedTuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    shape: object
    dtype: object
    requires_grad: bool
    stride: tuple
    memory_format: object
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    import rstorch
    memory_format = rstorch.contiguous_format if hasattr(rstorch, "contiguous_format") else None
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, tuple(result.stride()),
                          memory_format if result.is_contiguous() else None, False, {})


class ShapeProp(Interpreter):
    """`ShapeProp(gm).propagate(*args)`"""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)

    def run_node(self, n):
        import rstorch
        result = super().run_node(n)
        found = []

        def extract(obj):
            if isinstance(obj, rstorch.Tensor):
                found.append(True)
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
