"""The calls of torch.utils.checkpoint whose warnings and errors are compared: one list for both
frameworks (tests/record_checkpoint.py runs it on PyTorch, tests/python/test_checkpoint.py on
rstorch)."""
import warnings


def capture(fn):
    """What a call did: its warnings, its error (type and text), and whether its output requires grad."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out, err = fn(), None
        except Exception as e:  # noqa: BLE001 (what either framework raises is the record)
            out, err = None, [type(e).__name__, str(e)]
    return {"warnings": [[type(w.message).__name__, str(w.message)] for w in caught], "error": err,
            "requires_grad": None if out is None else bool(out.requires_grad)}


def cases(torch, checkpoint, checkpoint_sequential):
    """The calls, by name, for the framework module `torch` and its checkpoint functions."""
    def sin(a):
        return a.sin()

    def ctx():
        return torch.no_grad(), torch.no_grad()

    x = torch.randn(3, requires_grad=True)
    return {
        "no_use_reentrant": lambda: checkpoint(sin, x),
        "sequential_no_use_reentrant": lambda: checkpoint_sequential([sin, sin], 2, x),
        "reentrant_kwargs": lambda: checkpoint(sin, x, use_reentrant=True, foo=1),
        "reentrant_debug": lambda: checkpoint(sin, x, use_reentrant=True, debug=True),
        "reentrant_context_fn": lambda: checkpoint(sin, x, use_reentrant=True, context_fn=ctx),
        "bad_determinism_check": lambda: checkpoint(sin, x, use_reentrant=False, determinism_check="x"),
        "debug_and_context_fn": lambda: checkpoint(sin, x, use_reentrant=False, debug=True, context_fn=ctx),
        "sequential_kwargs": lambda: checkpoint_sequential([sin, sin], 2, x, use_reentrant=True, foo=1),
        "reentrant_no_grad_input": lambda: checkpoint(sin, torch.randn(3), use_reentrant=True),
        "nonreentrant_no_grad_input": lambda: checkpoint(sin, torch.randn(3), use_reentrant=False),
        "decorator_kwargs": lambda: checkpoint(None, foo=1),
    }
