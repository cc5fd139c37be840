"""Calling a module with some parameters and buffers replaced for one call
(`torch.nn.utils.stateless.functional_call`, also `torch.func.functional_call`)."""
import warnings
from contextlib import contextmanager

from ... import _C

__all__ = ["functional_call"]


def _untie(module, tensors):
    """Extends `tensors` to every name sharing a tensor with a given name (tied weights)."""
    names_of = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names_of.setdefault(id(t), []).append(name)
    out = dict(tensors)
    for names in names_of.values():
        if len(names) < 2:
            continue
        given = [n for n in names if n in tensors]
        if not given:
            continue
        if len({id(tensors[n]) for n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                             "Consider using tie_weights=False")
        for n in names:
            out[n] = tensors[given[0]]
    return out


def _owner(module, path):
    *parents, attr = path.split(".")
    for p in parents:
        module = getattr(module, p)
    return module, attr


def _swap(module, attr, tensor):
    """Puts `tensor` where `module.attr` lives (its parameter or buffer slot, else as an
    attribute, through setattr as in PyTorch) and returns what was there; _MISSING removes."""
    for store in (module._parameters, module._buffers):
        if attr in store:
            old = store[attr]
            if tensor is _MISSING:
                del store[attr]
            else:
                store[attr] = tensor
            return old
    old = getattr(module, attr) if hasattr(module, attr) else _MISSING
    if old is not _MISSING and not isinstance(old, _C.Tensor):
        raise TypeError(f"attribute `{attr}`: {old} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, attr, tensor)
    elif hasattr(module, attr):
        delattr(module, attr)
    return old


_MISSING = object()


@contextmanager
def _reparametrize_module(module, tensors, tie_weights=False, strict=False):
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid.update(n for n, _ in module.named_buffers(remove_duplicate=False))
        missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
        error_msgs = []
        if unexpected:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if error_msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                 "\n\t".join(error_msgs)))
    saved = []
    try:
        for name, tensor in tensors.items():
            owner, attr = _owner(module, name)
            saved.append((owner, attr, _swap(owner, attr, tensor)))
        yield
    finally:
        for owner, attr, old in reversed(saved):
            _swap(owner, attr, old)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named parameters and buffers of `parameters_and_buffers`
    standing in for the module's own during the call; the module is unchanged afterwards."""
    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future version of PyTorch. "
                  "Please use torch.func.functional_call instead which is a drop-in replacement.", FutureWarning,
                  stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
