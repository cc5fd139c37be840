"""`rstorch.backends.cuda`: PyTorch's CUDA math flags, kept for programs that set them."""


class _Matmul:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _Matmul()


def is_built():
    """Whether rstorch can reach a GPU as `cuda` (its wgpu backend is built in)."""
    from .. import _C
    return _C._wgpu_is_built()


def flash_sdp_enabled():
    return False


def mem_efficient_sdp_enabled():
    return False


def math_sdp_enabled():
    return True
