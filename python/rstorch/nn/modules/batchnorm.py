"""Batch normalisation layers: BatchNorm1d, BatchNorm2d, with running statistics."""
import rstorch
from .. import functional as F
from .module import Module, _place
from .normalization import _register_affine, _reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _NormBase(Module):
    """Affine parameters and running-statistics buffers shared by the batch-norm layers."""

    # Version 2 added num_batches_tracked; older checkpoints lack it.
    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _register_affine(self, num_features, affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", rstorch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", rstorch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", rstorch.tensor(0, dtype=rstorch.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()
        _place(self, device)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # A checkpoint from before the counter existed: keep ours rather than report it missing.
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else rstorch.tensor(0, dtype=rstorch.long))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None means a cumulative average: weight 1/n for the n-th batch.
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        # Batch statistics are used in training, and in eval when there are no running ones.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        # Running statistics are updated only when they are tracked and we are training.
        keep_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep_running else None,
                            self.running_var if keep_running else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Normalises (N, C) or (N, C, L) input per channel over the batch (and length)."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Normalises (N, C, H, W) input per channel over the batch and spatial positions."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


__all__ += ["BatchNorm3d"]


class BatchNorm3d(_BatchNorm):
    """Normalises (N, C, D, H, W) input per channel over the batch and spatial positions."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


__all__ += ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose statistics span all processes of a group. rstorch runs one process (there is
    no process group), so it normalises like BatchNorm over inputs of any rank >= 2, which is what
    PyTorch does when no group is initialised."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d in it (itself included) replaced by a SyncBatchNorm
        sharing its parameters and buffers."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with rstorch.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
