"""`Tensor.register_post_accumulate_grad_hook`: `hook(tensor)` runs once backward has accumulated
the leaf's gradient into `.grad` (optimizers that step per parameter, DDP's gradient buckets).

The hook sits on the leaf's gradient-accumulator node (AccumulateGrad), which runs after the
accumulation. Autograd holds that node only while a graph uses it, so the tensor keeps it in
`_post_accumulate_grad_hooks`; a deep copy or pickle of the tensor leaves it behind (the copy has
its own accumulator and no hooks)."""


class _Accumulator:
    """Holds a leaf's AccumulateGrad node for its hooks; copies and pickles of the tensor get None."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __deepcopy__(self, memo):
        return None

    def __reduce__(self):
        return (_nothing, ())


def _nothing():
    return None


def register_post_accumulate_grad_hook(self, hook):
    from .. import enable_grad
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    holder = self.__dict__.get("_post_accumulate_grad_hooks")
    if holder is None:
        with enable_grad():
            node = self.view_as(self).grad_fn.next_functions[0][0]
        holder = self.__dict__["_post_accumulate_grad_hooks"] = _Accumulator(node)
    node = holder.node
    return node.register_hook(lambda grad_inputs, grad_outputs: hook(node.variable))
