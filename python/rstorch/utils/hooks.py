"""Handles returned by `register_*hook` calls, and the machinery behind Module backward hooks."""
import weakref
from collections import OrderedDict


class RemovableHandle:
    """`handle.remove()` unregisters the hook; also a context manager.

    Two forms: `RemovableHandle(hooks_dict, extra_dict=...)` as PyTorch has, where the handle picks
    a fresh id and removing deletes that id from the dict(s) (held weakly, so a handle never keeps
    a module's hook dicts alive); and `RemovableHandle(remove_fn, hook_id)` for hooks that live in
    the Rust core (tensor and graph-node hooks), where removing calls `remove_fn(hook_id)`."""

    next_id = 0

    def __init__(self, hooks_dict, hook_id=None, *, extra_dict=None):
        if callable(hooks_dict) and not hasattr(hooks_dict, "keys"):
            self._remove = hooks_dict
            self.hooks_dict_ref = None
            self.extra_dict_ref = ()
            self.id = hook_id
            return
        self._remove = None
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra_dict = ()
        elif not isinstance(extra_dict, (list, tuple)):
            extra_dict = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        if self._remove is not None:
            self._remove(self.id)
            self._remove = None
            return
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref() if ref is not None else None
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __getstate__(self):
        if self.hooks_dict_ref is None:
            return (None, self.id)
        dicts = (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))
        return dicts

    def __setstate__(self, state):
        self._remove = None
        if state[0] is None:
            # A dead dict (or a core-side hook): removing becomes a no-op.
            self.hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self.hooks_dict_ref = weakref.ref(state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _check_hook_grads(new, old):
    """PyTorch's checks on gradients a module's backward (pre-)hook returned: each replaced one
    keeps its dtype and device, then its shape. PyTorch's hook wrapper is named `hook`."""
    for n, o in zip(new, old):
        if n is None or o is None:
            continue
        if n.dtype != o.dtype or n.device != o.device:
            was, got = (t.type().replace("rstorch.", "torch.") for t in (o, n))
            raise RuntimeError(f"hook 'hook' has changed the type of value (was {was} got {got})")
        if n.shape != o.shape:
            raise RuntimeError("hook 'hook' has changed the size of value")


class BackwardHook:
    """Runs a module's full backward hooks and backward pre-hooks for one forward call.

    The module's tensor inputs and tensor outputs each go through an identity autograd Function
    (`BackwardHookFunction`). In the backward pass the outputs' node sees the gradients with
    respect to the module outputs (the pre-hooks run there and may replace them) and the inputs'
    node sees the gradients with respect to the module inputs (the full hooks run there, with
    both, and may replace the input gradients)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        packed = [None] * size
        for idx, val in zip(indices, values):
            packed[idx] = val
        return tuple(packed)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _apply_on_tensors(self, on_backward, args):
        """Routes the tensors of `args` that require grad through the identity Function whose
        backward calls `on_backward(grads)`; returns the new args and the tensors' positions."""
        from .. import _C
        from ..nn.modules._functions import BackwardHookFunction

        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        # Only tensors that require grad take part: routing the others through the Function
        # would make them require grad inside forward.
        grad_idx = [i for i in tensors_idx if args[i].requires_grad]
        if not (grad_idx and _C.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(
            _GradSlots(on_backward, grad_idx, tensors_idx), *(args[i] for i in grad_idx))
        if not isinstance(new_tensors, tuple):
            new_tensors = (new_tensors,)
        arg_list = list(args)
        for idx, val in zip(grad_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        def on_input_grads(grad_input):
            if self.grad_outputs is None:
                # No gradient reached any output of the module: the hooks do not run.
                return grad_input
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for hook in self.user_hooks:
                out = hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                _check_hook_grads(out, res)
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        res, input_idx = self._apply_on_tensors(on_input_grads, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def on_output_grads(grad_output):
            self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                     self.n_outputs)
            if self.user_pre_hooks:
                expected_len = len(self.grad_outputs)
                for pre_hook in self.user_pre_hooks:
                    new_grad_outputs = pre_hook(self.module, self.grad_outputs)
                    if new_grad_outputs is None:
                        continue
                    if len(new_grad_outputs) != expected_len:
                        raise RuntimeError(
                            "Backward pre hook returned an invalid number of grad_output, "
                            f"got {len(new_grad_outputs)}, but expected {expected_len}")
                    _check_hook_grads(new_grad_outputs, self.grad_outputs)
                    self.grad_outputs = new_grad_outputs
            local_grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                # No input requires grad, so the inputs' node never runs: call the hooks now.
                grad_inputs = self._pack_with_none([], [], self.n_inputs)
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple)
                                                and all(el is None for el in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires "
                                           "gradient should always return None or None for all "
                                           "gradients.")
                self.grad_outputs = None
            return self._unpack_none(self.output_tensors_index, local_grad_outputs)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(on_output_grads, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


class _GradSlots:
    """Maps the gradients of the tensors routed through the hook Function (those requiring grad)
    to and from the positions of all tensor arguments, which is what the hooks see."""

    def __init__(self, on_backward, grad_idx, tensors_idx):
        self.on_backward = on_backward
        self.grad_idx = grad_idx
        self.tensors_idx = tensors_idx

    def __call__(self, grads):
        by_position = dict(zip(self.grad_idx, grads))
        full = tuple(by_position.get(i) for i in self.tensors_idx)
        result = self.on_backward(full)
        by_position = dict(zip(self.tensors_idx, result))
        return tuple(by_position.get(i) for i in self.grad_idx)
