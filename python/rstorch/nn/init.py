"""Weight initialisation (`rstorch.nn.init`): in-place fills of a tensor, done without
recording autograd history; each returns the tensor it filled."""
import math
import warnings

from .. import _C
from ..autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
    "orthogonal_", "sparse_",
    "uniform", "normal", "constant", "xavier_uniform", "xavier_normal", "kaiming_uniform",
    "kaiming_normal", "orthogonal", "sparse",
]


def calculate_gain(nonlinearity, param=None):
    """The recommended scaling of the standard deviation for a given nonlinearity."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight of shape (out, in, *kernel)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills `tensor` from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills `tensor` from N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _erfinv(y):
    """Inverse error function of a float64 tensor: Giles' polynomial approximation, refined by
    two Newton steps on erf (the core has no erfinv kernel)."""
    w = -((1 - y) * (1 + y)).log()
    central = w - 2.5
    p = _C.full(y.shape, 2.81022636e-08, dtype=_C.float64)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * central
    tail = w.sqrt() - 3
    q = _C.full(y.shape, -0.000200214257, dtype=_C.float64)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * tail
    x = _C.where(w < 5.0, p, q) * y
    finite = y.abs() < 1
    safe_x = _C.where(finite, x, _C.zeros(*y.shape, dtype=_C.float64))
    two_over_sqrt_pi = 2.0 / math.sqrt(math.pi)
    for _ in range(2):
        safe_x = safe_x - (safe_x.erf() - y) / (two_over_sqrt_pi * (-safe_x * safe_x).exp())
    # erfinv(+-1) = +-inf; Newton steps are skipped there.
    return _C.where(finite, safe_x, x)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills `tensor` from N(mean, std^2) truncated to [a, b] (inverse-CDF sampling)."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        lower = norm_cdf((a - mean) / std)
        upper = norm_cdf((b - mean) / std)
        # A negative std reverses the bounds (uniform_ wants them in order).
        lower, upper = min(lower, upper), max(lower, upper)
        tensor.uniform_(2 * lower - 1, 2 * upper - 1, generator=generator)
        values = _erfinv(tensor.double()) * (std * math.sqrt(2.0)) + mean
        tensor.copy_(values.clamp(min=a, max=b))
        return tensor


def constant_(tensor, val):
    """Fills `tensor` with `val`."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-D `tensor` with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(_C.eye(tensor.size(0), tensor.size(1), dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """Fills a 3/4/5-D conv weight with the Dirac delta: the convolution is the identity on as
    many channels as possible (per group)."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix (Saxe et al., 2013): the Q of the QR decomposition of a
    normal matrix, signs fixed so that the result is uniformly distributed; trailing
    dimensions are flattened."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    import numpy as np

    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = _C.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    matrix = flattened.double().numpy()
    if rows < cols:
        matrix = matrix.T
    q, r = np.linalg.qr(matrix)
    # Multiplying by the signs of R's diagonal makes the decomposition unique.
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.copy_(_C.from_numpy(np.ascontiguousarray(q)).reshape(*tensor.shape))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D N(0, std^2) matrix with a fraction `sparsity` of each column set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = _C.randperm(rows, generator=generator)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecated(new_fn):
    old_name = new_fn.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_fn.__name__}`.", FutureWarning, stacklevel=2)
        return new_fn(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated alias of `{new_fn.__name__}`."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecated(uniform_)
normal = _make_deprecated(normal_)
constant = _make_deprecated(constant_)
xavier_uniform = _make_deprecated(xavier_uniform_)
xavier_normal = _make_deprecated(xavier_normal_)
kaiming_uniform = _make_deprecated(kaiming_uniform_)
kaiming_normal = _make_deprecated(kaiming_normal_)
orthogonal = _make_deprecated(orthogonal_)
sparse = _make_deprecated(sparse_)
dirac = _make_deprecated(dirac_)
eye = _make_deprecated(eye_)
__all__ += ["dirac", "eye"]
