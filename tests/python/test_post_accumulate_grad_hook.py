"""Tensor.register_post_accumulate_grad_hook: the hook gets the leaf once backward has accumulated
its gradient into `.grad` (PyTorch's semantics and error messages), until its handle is removed;
copies and pickles of the tensor do not carry it, and it does not keep the tensor alive."""
import copy
import gc
import pickle
import weakref

import pytest

import rstorch as torch


def test_hook_sees_the_accumulated_grad_each_backward():
    p = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    seen = []
    handle = p.register_post_accumulate_grad_hook(lambda t: seen.append((t is p, t.grad.tolist())))
    other = p.register_post_accumulate_grad_hook(lambda t: seen.append("second"))
    (p * 2).sum().backward()
    (p * 3).sum().backward()
    assert seen == [(True, [2.0, 2.0]), "second", (True, [5.0, 5.0]), "second"]
    handle.remove()
    other.remove()
    (p * 1).sum().backward()
    assert len(seen) == 4 and p.grad.tolist() == [6.0, 6.0]
    # autograd.grad accumulates nothing: no hook call.
    p.register_post_accumulate_grad_hook(lambda t: seen.append("grad"))
    torch.autograd.grad((p * 2).sum(), p)
    assert len(seen) == 4


def test_hook_on_a_tensor_that_cannot_take_it():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        torch.ones(2).register_post_accumulate_grad_hook(print)
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(print)


def test_copies_leave_the_hook_behind_and_the_tensor_can_die():
    p = torch.ones(2, requires_grad=True)
    calls = []
    p.register_post_accumulate_grad_hook(calls.append)
    q = copy.deepcopy(p)
    r = pickle.loads(pickle.dumps(p))
    (q * 2).sum().backward()
    (r * 2).sum().backward()
    assert calls == []
    ref = weakref.ref(p)
    del p
    gc.collect()
    assert ref() is None
