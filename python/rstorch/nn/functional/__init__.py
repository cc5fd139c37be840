"""Functional forms of layers, activations and losses (`rstorch.nn.functional`)."""
from ._adaptive_max import (
    adaptive_max_pool1d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
)
from ._activation import (
    celu, elu, gelu, glu, hardsigmoid, hardswish, hardtanh, leaky_relu, log_softmax, logsigmoid, mish, prelu,
    relu, relu6, selu, sigmoid, silu, softmax, softmin, softplus, softsign, tanh, tanhshrink, threshold,
)
from ._attention import _canonical_mask, multi_head_attention_forward, scaled_dot_product_attention
from ._conv import conv1d, conv2d, conv_transpose1d, conv_transpose2d
from ._distance import cosine_similarity, pairwise_distance
from ._dropout import dropout, dropout1d, dropout2d, dropout3d
from ._linear import bilinear, linear
from ._loss import (
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, kl_div, l1_loss, mse_loss,
    nll_loss, smooth_l1_loss,
)
from ._normalization import batch_norm, group_norm, layer_norm, normalize
from ._padding import pad
from ._pooling import (
    adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d,
    max_pool2d_with_indices,
)
from ._resize import interpolate, upsample
from ._sparse import embedding, one_hot
from ._loss_margin import (
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, multi_margin_loss, multilabel_margin_loss,
    multilabel_soft_margin_loss, soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
)
from ._loss_prob import gaussian_nll_loss, poisson_nll_loss
from ._ctc import ctc_loss
from ._pdist import gumbel_softmax, pdist
from ._linear_ce import linear_cross_entropy
from ._embedding_bag import embedding_bag
from ._activation_more import (
    celu_, elu_, hardshrink, hardtanh_, leaky_relu_, relu_, rrelu, rrelu_, selu_, softshrink, threshold_,
)
from ._dropout import alpha_dropout, feature_alpha_dropout
from ._normalization_more import instance_norm, local_response_norm, rms_norm
from ._resize import upsample_bilinear, upsample_nearest
from ._shuffle import channel_shuffle, native_channel_shuffle, pixel_shuffle, pixel_unshuffle
from ._conv import conv3d, conv_transpose3d
from ._pooling3d import (
    adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool3d, fold, lp_pool1d,
    lp_pool2d, lp_pool3d, max_pool1d_with_indices, max_pool3d, max_pool3d_with_indices, max_unpool1d, max_unpool2d,
    max_unpool3d, unfold,
)
from ._vision import affine_grid, grid_sample
from ._fractional import (
    fractional_max_pool2d, fractional_max_pool2d_with_indices, fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ._compat import (  # noqa: E402
    assert_int_or_pair, boolean_dispatch, boolean_dispatched, conv_tbc, handle_torch_function, has_torch_function,
    has_torch_function_unary, has_torch_function_variadic,
)
