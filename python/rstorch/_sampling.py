"""Sampling with PyTorch's API: `bernoulli`, `normal`, `poisson` and the in-place fills
(`bernoulli_`, `exponential_`, `geometric_`, `log_normal_`, `cauchy_`, `random_`).

The draws come from the core (`tensor::sampling`, a `Generator` on the host); this module checks
the arguments with PyTorch's messages, picks the overload and writes the result in place.
"""
from . import _C
from ._C import Tensor

_FLOAT_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _num(x):
    # PyTorch prints a double parameter in C++'s shortest form: 1.5, -1, 1e-07.
    return f"{x:g}"


def _not_implemented(kernel, dtype):
    raise NotImplementedError(f'"{kernel}" not implemented for \'{_TITLES[_key(dtype)]}\'')


def _key(dtype):
    return str(dtype).rsplit(".", 1)[-1]


# PyTorch's names of the dtypes in its messages: the kernel's type name, and C++'s for the others.
_TITLES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
}
_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int",
}


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 draws: with the probabilities `input` holds, or with probability `p` everywhere."""
    if p is None:
        result = input._bernoulli_of(input.dtype, generator=generator)
    else:
        result = _C.empty(tuple(input.shape), dtype=input.dtype, device=input.device).bernoulli_(p, generator=generator)
    return _into(out, result)


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        probs = p.to(self.device).expand(tuple(self.shape))
        return self.copy_(probs._bernoulli_of(self.dtype, generator=generator))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return self._sample_law_("bernoulli", float(p), generator=generator)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Normal draws: PyTorch's four overloads (tensor/tensor, tensor/float, float/tensor, and
    float/float with `size`). The result is `mean + std * z`, so it carries gradients to tensor
    means and standard deviations as PyTorch's does."""
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError(
                f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                f"{type(std).__name__}), but expected one of:\n"
                " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
                " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
                "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
                "bool pin_memory = False, bool requires_grad = False)\n")
        _check_std(std)
        z = _C.randn(*_shape(size), generator=generator, dtype=dtype, device=device)
        result = z.mul_(float(std)).add_(float(mean))
        result.requires_grad_(requires_grad)
        return _into(out, result)
    like = mean if mean_t else std
    if not like.is_floating_point():
        _not_implemented("normal_kernel_cpu", like.dtype)
    if std_t:
        if bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std(std)
    shape = tuple(mean.shape) if not std_t else tuple(std.shape) if not mean_t else \
        tuple(_C.empty(tuple(mean.shape)).add(_C.empty(tuple(std.shape))).shape)
    z = _C.randn(*shape, generator=generator, dtype=like.dtype, device=like.device)
    return _into(out, (mean + std * z).to(like.dtype))


def _check_std(std):
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")


def _shape(size):
    return tuple(size) if not isinstance(size, int) else (size,)


def poisson(input, generator=None):
    """One Poisson draw per element, with the rates `input` holds."""
    return input._poisson(generator=generator)


def _float_only(self, message):
    if not self.is_floating_point():
        raise RuntimeError(message)


def _exponential_(self, lambd=1.0, *, generator=None):
    _float_only(self, "Exponential distribution is a continuous probability distribution. "
                      f"dtype must be a floating point but you specified {_TITLES[_key(self.dtype)]}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return self._sample_law_("exponential", float(lambd), generator=generator)


def _geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return self._sample_law_("geometric", float(p), generator=generator)


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    if not self.is_floating_point():
        _not_implemented("log_normal_cpu", self.dtype)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return self._sample_law_("log_normal", float(mean), float(std), generator=generator)


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _float_only(self, "Cauchy distribution is a continuous probability distribution. "
                      f"dtype must be a floating point but you specified {_CPP_NAMES.get(_key(self.dtype))}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    return self._sample_law_("cauchy", float(median), float(sigma), generator=generator)


def _random_(self, *args, generator=None, **kwargs):
    """`random_()`, `random_(to)`, `random_(from, to)`: integers uniform in [from, to); without
    `to`, up to the dtype's largest value (2**digits for floating point, whose integers are exact
    up to there; for int64 one short of it, the largest `to` an int64 can hold)."""
    if len(args) > 2:
        raise TypeError(f"random_() takes at most 2 arguments ({len(args)} given)")
    low, high = 0, None
    if len(args) == 1 and "to" not in kwargs and "from" not in kwargs:
        high = args[0]
    elif args:
        low = args[0]
        high = args[1] if len(args) == 2 else None
    low, high = kwargs.pop("from", low), kwargs.pop("to", high)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if high is None:
        high = _default_high(self.dtype)
    r = _C.randint(int(low), int(high), tuple(self.shape), generator=generator, dtype=self.dtype)
    return self.copy_(r)


def _default_high(dtype):
    key = _key(dtype)
    if key in _FLOAT_DIGITS:
        return 2 ** _FLOAT_DIGITS[key] + 1
    if key == "bool":
        return 2
    return min(_INT_MAX[key] + 1, 2 ** 63 - 1)


_INT_MAX = {"uint8": 255, "int8": 127, "int16": 2 ** 15 - 1, "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1}


def _into(out, result):
    if out is None:
        return result
    return out.copy_(result)


def install():
    Tensor.bernoulli = _bernoulli_method
    Tensor.bernoulli_ = _bernoulli_
    Tensor.poisson = poisson
    Tensor.exponential_ = _exponential_
    Tensor.geometric_ = _geometric_
    Tensor.log_normal_ = _log_normal_
    Tensor.cauchy_ = _cauchy_
    Tensor.random_ = _random_
