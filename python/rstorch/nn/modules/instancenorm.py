"""Instance normalisation layers: InstanceNorm1d/2d/3d normalise each channel of each sample
over its spatial positions; affine parameters and running statistics are optional (off by
default)."""
import warnings

from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _spatial_dims = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        batched, unbatched = self._spatial_dims + 2, self._spatial_dims + 1
        if input.dim() not in (unbatched, batched):
            raise ValueError(f"expected {unbatched}D or {batched}D input (got {input.dim()}D input)")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        # Checkpoints from before version 1 saved running stats even when they were not tracked.
        if version is None and not self.track_running_stats:
            running_stats_keys = [prefix + name for name in ("running_mean", "running_var")
                                  if prefix + name in state_dict]
            if running_stats_keys:
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    "state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does "
                    "not track running stats by default since 0.4.0. Please remove these keys from state_dict. "
                    "If the running stats are actually needed, instead set track_running_stats=True in {klass} "
                    "to enable them. See the documentation of {klass} for details.".format(
                        names=" and ".join(f'"{k}"' for k in running_stats_keys), klass=type(self).__name__))
                for key in running_stats_keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._spatial_dims - 1
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        unbatched = input.dim() == self._spatial_dims + 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of (N, C, L) or (C, L) input."""

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of (N, C, H, W) or (C, H, W) input."""

    _spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of (N, C, D, H, W) or (C, D, H, W) input."""

    _spatial_dims = 3
