"""Batch, layer and group normalisation, and vector normalisation."""
import rstorch
from ._utils import as_node, optional


def _channel_shape(input):
    return [1, -1] + [1] * (input.dim() - 2)


def _affine(out, weight, bias, shape):
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _one_device(*tensors):
    """Whether the given tensors share one device (the fused ops' condition; on several devices
    the composed path raises PyTorch's error from its first mixed op)."""
    return len({t.device for t in tensors if t is not None}) <= 1


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or higher input to batch_norm (got {input.dim()}D input)")
    count = input.numel() // input.shape[1]
    if training and count <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    if training and eps <= 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if _one_device(input, weight, bias, running_mean, running_var):
        # Fused kernels each way (CPU or GPU); the batch statistics come back for the running
        # estimates.
        out, mean, var = rstorch._C._batch_norm(input, weight, bias, running_mean, running_var, training, eps)
    else:
        dims = [0] + list(range(2, input.dim()))
        shape = _channel_shape(input)
        if training:
            mean, var = input.mean(dims), input.var(dims, unbiased=False)
        else:
            mean, var = running_mean, running_var
        out = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
        out = as_node("NativeBatchNormBackward0", (input, optional(weight), optional(bias)), _affine(out, weight, bias, shape))
    if training and (running_mean is not None or running_var is not None):
        with rstorch.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
            if running_var is not None:
                # The running variance is the unbiased estimate.
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * count / (count - 1)))
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(normalized_shape)
    if tuple(input.shape[input.dim() - n:]) != normalized_shape or n > input.dim():
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{input.shape}")
    if _one_device(input, weight, bias):
        return rstorch._C._layer_norm(input, n, weight, bias, eps)
    dims = tuple(range(-n, 0))
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, keepdim=True, unbiased=False)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return as_node("NativeLayerNormBackward0", (input, optional(weight), optional(bias)), out)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{input.shape} and num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    mean = grouped.mean(-1, keepdim=True)
    var = grouped.var(-1, keepdim=True, unbiased=False)
    out = ((grouped - mean) * (var + eps).rsqrt()).reshape(input.shape)
    return as_node("NativeGroupNormBackward0", (input, optional(weight), optional(bias)), _affine(out, weight, bias, _channel_shape(input)))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    result = input / denom
    if out is not None:
        return out.copy_(result)
    return result
