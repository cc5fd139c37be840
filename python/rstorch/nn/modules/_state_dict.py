"""Loading state dicts into a `Module`: what `load_state_dict` returns, the key its extra state
is saved under, copying a module's own entries from a state dict, and the walk over a module
tree that loads every child and reports missing and unexpected keys."""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _C
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

Tensor = _C.Tensor

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _copy_own_entries(module, state_dict, prefix, local_state, strict, assign, missing_keys,
                      error_msgs):
    """Copies (or with `assign`, assigns) `module`'s own parameters and persistent buffers,
    `local_state`, from `state_dict`, recording missing keys and error messages."""
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        input_param = state_dict[key]
        if not isinstance(input_param, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but "
                              f"received {type(input_param)}")
            continue
        # Checkpoints from old versions stored 0-dim values as 1-element vectors.
        if len(param.shape) == 0 and len(input_param.shape) == 1:
            input_param = input_param[0]
        if input_param.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{input_param.shape} from checkpoint, the shape in current "
                              f"model is {param.shape}.")
            continue
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param,
                                                    requires_grad=param.requires_grad)
                        else:
                            input_param.requires_grad_(param.requires_grad)
                    setattr(module, name, input_param)
                else:
                    param.copy_(input_param)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                              f"in the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {input_param.size()}, an exception occurred : "
                              f"{ex.args}.")


def _load_state_dict(root, state_dict, strict, assign):
    """`Module.load_state_dict`: loads `state_dict` into `root` and its descendants."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")

    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        # Key bookkeeping always runs; `strict` only decides whether problems raise.
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                     missing_keys, unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state_dict = {k: v for k, v in local_state_dict.items()
                                    if k.startswith(child_prefix)}
                load(child, child_state_dict, child_prefix)  # noqa: F821 (deleted after the walk, breaking its cycle)
        incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            out = hook(module, incompatible_keys)
            if out is not None:
                raise RuntimeError("Hooks registered with "
                                   "``register_load_state_dict_post_hook`` are not expected "
                                   "to return new values, if incompatible_keys need to be "
                                   "modified, it should be done inplace.")

    load(root, state_dict)
    del load

    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            root.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)
