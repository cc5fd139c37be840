"""nn.factory_kwargs: the tensor-factory keywords (device, dtype, memory_format) of a module's
**kwargs, checked and merged with an explicit factory_kwargs dict."""

_SIMPLE_KEYS = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs):
    if kwargs is None:
        return {}
    expected = set(_SIMPLE_KEYS) | {"factory_kwargs"}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    merged = dict(kwargs.get("factory_kwargs", {}))  # a copy: the caller's dict is left as is
    for key in _SIMPLE_KEYS:
        if key in kwargs:
            if key in merged:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            merged[key] = kwargs[key]
    return merged
