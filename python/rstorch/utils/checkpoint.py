"""`rstorch.utils.checkpoint`: PyTorch's activation-checkpointing entry points with its argument
checks and warnings.

rstorch has no way to save and restore the random-number generator's state, so a recomputation in
backward could not reproduce a dropout mask; checkpointing therefore runs the function once and
keeps its activations (the autograd graph is recorded as by a plain call). Values and gradients
are those of calling the function directly, the random stream advances exactly as in a plain call,
and the memory is not reduced.
"""
import contextlib
import functools
import warnings

from .. import _C
from ..autograd.grad_mode import no_grad

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]

_DETERMINISM_CHECKS = ("default", "none")
_DEFAULT_WARNING = ("the use_reentrant parameter should be passed explicitly. {}use_reentrant=False is recommended, but "
                    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to "
                    "docs for more details on the differences between the two variants.")


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _unexpected(kwargs):
    return ValueError("Unexpected keyword arguments: " + ",".join(kwargs))


def checkpoint(function=None, *args, use_reentrant=None, preserve_rng_state=True, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, respect_saved_tensors_hooks=None, **kwargs):
    """Returns `function(*args, **kwargs)` with PyTorch's checks (see the module docstring on memory).

    `checkpoint(None, use_reentrant=...)` with no arguments returns a decorator, as PyTorch's does."""
    options = {"use_reentrant": use_reentrant, "preserve_rng_state": preserve_rng_state, "context_fn": context_fn,
               "determinism_check": determinism_check, "debug": debug, "early_stop": early_stop,
               "respect_saved_tensors_hooks": respect_saved_tensors_hooks}
    if function is None and not args:
        if kwargs:
            raise _unexpected(kwargs)
        return lambda fn: functools.wraps(fn)(lambda *a, **kw: checkpoint(fn, *a, **options, **kw))
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _DEFAULT_WARNING.format(
            "In a future release, calling checkpoint without use_reentrant will raise an exception. "), stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise _unexpected(kwargs)
        if context_fn is not noop_context_fn or debug is not False or respect_saved_tensors_hooks is not None:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` "
                             "is only supported when use_reentrant=False.")
        # The reentrant variant is an autograd.Function over the tensor arguments: with none of them
        # requiring grad, its output is outside the graph even if the function uses parameters.
        if not any(isinstance(a, _C.Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
            with no_grad():
                return function(*args)
        return function(*args)
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got {determinism_check}")
    # The second context is for the recomputation, which never happens here (activations are kept).
    forward_context, _recompute_context = context_fn()
    with forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs `functions` (a list or an `nn.Sequential`) in order on `input`, the first `segments - 1`
    chunks through `checkpoint` and the last one directly, as PyTorch does."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: " + _DEFAULT_WARNING.format(
            "In a future release, we will raise an exception if use_reentrant is not passed. "), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise _unexpected(kwargs)
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)

    def run(chunk):
        def forward(x):
            for fn in chunk:
                x = fn(x)
            return x
        return forward

    size = len(functions) // segments
    if size == 0:
        # PyTorch's chunking fails here with range()'s message; the same error type and text.
        raise ValueError("range() arg 3 must not be zero")
    done = 0
    for _ in range(segments - 1):
        input = checkpoint(run(functions[done:done + size]), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
        done += size
    return run(functions[done:])(input)
