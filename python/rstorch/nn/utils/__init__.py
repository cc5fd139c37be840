"""`torch.nn.utils`: gradient clipping, flattening parameters to a vector and back, the
packed-sequence helpers of `rnn`, weight/spectral normalisation (hooks and parametrizations),
parametrize, stateless.functional_call, conv/linear + batch-norm fusion, skip_init."""
from . import rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "rnn"]

from . import parametrize, parametrizations, stateless, fusion, memory_format
from .weight_norm import remove_weight_norm, weight_norm
from .spectral_norm import remove_spectral_norm, spectral_norm
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format

__all__ += ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "parametrize",
            "parametrizations", "stateless", "fusion", "memory_format", "fuse_conv_bn_eval", "fuse_conv_bn_weights",
            "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init", "convert_conv2d_weight_memory_format",
            "convert_conv3d_weight_memory_format"]
