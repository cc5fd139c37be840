"""`autograd.Function`: user-defined ops with a Python `forward` and `backward`. The recorded
node lives in the Rust graph and calls back into `backward` with the GIL held."""
from .. import _C
from .grad_mode import no_grad


class FunctionCtx:
    """The `ctx` handed to `forward` and `backward`."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._saved_for_forward = tensors

    @property
    def saved_tensors(self):
        node = getattr(self, "_node", None)
        if node is not None:
            return node._saved_tensors()
        return tuple(getattr(self, "_to_save", ()))

    def mark_dirty(self, *args):
        self._dirty = args

    def mark_non_differentiable(self, *args):
        self._non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class FunctionMeta(type):
    """Gives every Function subclass a backward class name, as PyTorch does (`MyReLUBackward`)."""

    def __init__(cls, name, bases, attrs):
        cls._backward_name = name + "Backward"
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)` (or `forward(*args)`
    with `setup_context(ctx, inputs, output)`), then call `apply`."""

    def __init__(self, *args, **kwargs):
        pass

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def _uses_setup_context(cls):
        return cls.setup_context is not Function.setup_context

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.materialize_grads = True
        tensor_args = [a for a in args if isinstance(a, _C.Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        with no_grad():
            if cls._uses_setup_context():
                output = cls.forward(*args, **kwargs)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if cls._uses_setup_context():
            cls.setup_context(ctx, args, output)
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        dirty = getattr(ctx, "_dirty", ())
        if dirty:
            # Checked and counted whether or not a graph is recorded.
            if not all(any(d is o for o in outputs) for d in dirty):
                raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                                   "output. The inputs that are modified inplace must all be outputs of the Function.")
            _C._bump_versions([d for d in dirty if isinstance(d, _C.Tensor)])
        if not (_C.is_grad_enabled() and any(t.requires_grad for t in tensor_args)):
            return output
        non_diff = getattr(ctx, "_non_differentiable", ())
        # An input returned as is becomes a new tensor object so that it can get a history.
        outputs = tuple(
            o.view_as(o) if isinstance(o, _C.Tensor) and any(o is a for a in tensor_args)
            and not any(o is d for d in dirty) else o
            for o in outputs
        )
        arg_is_tensor = [isinstance(a, _C.Tensor) for a in args]

        def backward(*grads):
            result = cls.backward(ctx, *grads)
            if not isinstance(result, tuple):
                result = (result,)
            # PyTorch's rules: one gradient per forward argument, extra trailing Nones allowed;
            # a gradient for an argument that was not a tensor must be None.
            n = len(args)
            if len(result) > n and all(g is None for g in result[n:]):
                result = result[:n]
            if len(result) != n:
                raise RuntimeError(f"function {cls._backward_name} returned an incorrect number of "
                                   f"gradients (expected {n}, got {len(result)})")
            for i, (g, is_t) in enumerate(zip(result, arg_is_tensor)):
                if g is None:
                    continue
                if not is_t:
                    raise RuntimeError(f"function {cls._backward_name} returned a gradient different than None "
                                       f"at position {i + 1}, but the corresponding forward input was not a Variable")
                if not isinstance(g, _C.Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")  # noqa: TRY004 (PyTorch's class)
            return tuple(g for g, is_t in zip(result, arg_is_tensor) if is_t)

        differentiable = [isinstance(o, _C.Tensor) and not any(o is n for n in non_diff) for o in outputs]
        node = _C._record_function(
            cls._backward_name, backward, tensor_args, list(outputs), differentiable,
            list(getattr(ctx, "_to_save", ())), ctx.materialize_grads, [d for d in dirty],
        )
        ctx._node = node
        # The node holds the saved tensors now; ctx keeping them too would be a cycle
        # (ctx -> output -> node -> backward -> ctx) that Python's collector cannot see.
        ctx.__dict__.pop("_to_save", None)
        return outputs if is_tuple else outputs[0]


def once_differentiable(fn):
    return fn


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace


def _iter_tensors(obj):
    if isinstance(obj, _C.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _iter_tensors(item)


def _unflatten(flat, structure):
    """`flat`'s items put back in the nesting of `structure`'s tensors."""
    items = iter(flat)

    def rebuild(obj):
        if isinstance(obj, _C.Tensor):
            return next(items)
        if isinstance(obj, (list, tuple)):
            return type(obj)(rebuild(o) for o in obj)
        return obj
    return rebuild(structure)


class NestedIOFunction(Function):
    """The legacy Function (kept for old code; write new ops as `Function`): an instance is called
    on inputs nested in tuples and lists, and subclasses define `forward_extended(*inputs)` and
    `backward_extended(*grad_outputs)`, saving with `self.save_for_backward(...)`."""

    def __call__(self, *inputs):
        this = self

        class _Nested(Function):
            @staticmethod
            def forward(ctx, *flat_inputs):
                this._ctx = ctx
                nested = _unflatten(flat_inputs, inputs)
                this._nested_output = this.forward_extended(*nested)
                ctx.save_for_backward(*getattr(this, "to_save", ()))
                for name in ("dirty_tensors", "non_differentiable"):
                    if hasattr(this, name):
                        getattr(ctx, "mark_dirty" if name == "dirty_tensors" else "mark_non_differentiable")(
                            *getattr(this, name))
                return tuple(_iter_tensors(this._nested_output))

            @staticmethod
            def backward(ctx, *grads):
                return this.backward(*grads)
        _Nested.__name__ = type(self).__name__
        _Nested._backward_name = type(self).__name__ + "Backward"
        flat = _Nested.apply(*_iter_tensors(inputs))
        return _unflatten(flat if isinstance(flat, tuple) else (flat,), self._nested_output)

    def backward(self, *gradients):
        """The flat gradients, from `backward_extended` on the outputs' nesting."""
        result = self.backward_extended(*_unflatten(gradients, self._nested_output))
        return tuple(_iter_tensors_or_none(result))

    def forward(self, *args):
        return tuple(_iter_tensors(self.forward_extended(*args)))

    def save_for_backward(self, *args):
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        return _unflatten(self._ctx.saved_tensors, self._to_save_nested)

    def mark_dirty(self, *args, **kwargs):
        self.dirty_tensors = tuple(_iter_tensors((args, kwargs)))

    def mark_non_differentiable(self, *args, **kwargs):
        self.non_differentiable = tuple(_iter_tensors((args, kwargs)))

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError


def _iter_tensors_or_none(obj):
    if obj is None or isinstance(obj, _C.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _iter_tensors_or_none(item)
