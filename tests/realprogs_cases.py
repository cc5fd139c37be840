"""The calls compared with PyTorch for what well-known public PyTorch programs use that rstorch
lacked or did differently (the programs are listed in BENCHMARKS.md, "Other real programs").
tests/record_realprogs.py records PyTorch's results into fixtures/realprogs.json and
tests/python/test_realprogs.py replays them on rstorch. Each case is `(id, fn)` with `fn(torch)`
written over a framework module; `capture` (tests/tensorfns_cases.py) turns the result or the
exception into JSON. Names of types and dtypes are reduced to their last part ('FloatTensor',
'float64') so that `torch.` and `rstorch.` compare equal."""
import warnings

import numpy as np


def _name(x):
    return str(x).rpartition(".")[2].rstrip("'>")


def _warned(fn):
    """fn()'s result and the messages of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


def _tensor_facts(v):
    return [type(v).__name__, v.requires_grad, v.is_leaf, v.grad_fn is None, list(v.shape), _name(v.dtype)]


def _variable_cases():
    # PyTorch-GAN (eriklindernoren) and MorvanZhou's tutorials: `Variable(Tensor(n, 1).fill_(1.0),
    # requires_grad=False)`, `Variable(imgs.type(Tensor))`, `Variable(z, volatile=True)`.
    def leaf(torch):
        return torch.tensor([1.0, 2.0], requires_grad=True)

    def facts(torch, *args, **kwargs):
        x = leaf(torch)
        y = x * 2
        data = {"leaf": x, "nonleaf": y}.get(args[0]) if args else None
        v, caught = _warned(lambda: torch.autograd.Variable(*(([data] if data is not None else []) + list(args[1:])),
                                                              **kwargs))
        shares = data is not None and v.data_ptr() == data.data_ptr()
        return _tensor_facts(v) + [shares, v is data, caught]

    c = [
        ("variable-of-leaf", lambda torch: facts(torch, "leaf")),
        ("variable-of-nonleaf", lambda torch: facts(torch, "nonleaf")),
        ("variable-requires-grad", lambda torch: facts(torch, "nonleaf", requires_grad=True)),
        ("variable-requires-grad-positional", lambda torch: facts(torch, "leaf", True)),
        ("variable-requires-grad-false", lambda torch: facts(torch, "leaf", requires_grad=False)),
        ("variable-empty", lambda torch: facts(torch)),
        ("variable-volatile", lambda torch: facts(torch, "leaf", volatile=True)),
        ("variable-of-list", lambda torch: torch.autograd.Variable([1.0])),
        ("variable-of-int", lambda torch: torch.autograd.Variable(3)),
        ("variable-bad-keyword", lambda torch: torch.autograd.Variable(leaf(torch), foo=1)),
        ("variable-int-requires-grad", lambda torch: torch.autograd.Variable(torch.ones(2, dtype=torch.int64), requires_grad=True)),
        ("variable-isinstance", lambda torch: [isinstance(leaf(torch), torch.autograd.Variable),
                                               isinstance(torch.nn.Parameter(torch.ones(1)), torch.autograd.Variable),
                                               isinstance(3, torch.autograd.Variable),
                                               issubclass(torch.autograd.Variable, torch.Tensor),
                                               torch.autograd.Variable.__name__]),
        ("variable-trains", lambda torch: _variable_trains(torch)),
    ]
    return c


def _variable_trains(torch):
    """A gradient flows through a Variable that requires grad, as in a 2017 training loop."""
    w = torch.autograd.Variable(torch.tensor([[0.5, -1.0]], dtype=torch.float64), requires_grad=True)
    x = torch.autograd.Variable(torch.tensor([[1.0], [2.0]], dtype=torch.float64))
    loss = (w @ x).pow(2).sum()
    loss.backward()
    return [loss, w.grad, x.grad is None]


def _legacy_type_cases():
    # `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor` then `imgs.type(Tensor)`,
    # `Tensor(n, 1).fill_(1.0)`, `Tensor(np.random.normal(...))` (PyTorch-GAN), `x.type('torch.LongTensor')`.
    def x(torch, dtype="float32"):
        return torch.arange(6, dtype=getattr(torch, dtype)).reshape(2, 3) / 2

    def converted(torch, to, dtype="float32"):
        src = x(torch, dtype)
        out = src.type(to(torch) if callable(to) else to)
        return [out, out is src, _name(out.type())]

    c = [
        ("type-name", lambda torch: _name(x(torch).type())),
        ("type-name-long", lambda torch: _name(torch.ones(2, dtype=torch.int64).type())),
        ("type-legacy-double", lambda torch: converted(torch, lambda t: t.DoubleTensor)),
        ("type-legacy-long", lambda torch: converted(torch, lambda t: t.LongTensor)),
        ("type-legacy-byte", lambda torch: converted(torch, lambda t: t.ByteTensor)),
        ("type-legacy-same", lambda torch: converted(torch, lambda t: t.FloatTensor)),
        ("type-legacy-same-double", lambda torch: converted(torch, lambda t: t.DoubleTensor, "float64")),
        ("type-string-long", lambda torch: converted(torch, "torch.LongTensor")),
        ("type-string-int", lambda torch: converted(torch, "torch.IntTensor")),
        ("type-string-half", lambda torch: converted(torch, "torch.HalfTensor")),
        ("type-string-float", lambda torch: converted(torch, "float")),
        ("type-string-dtype-name", lambda torch: converted(torch, "torch.float64")),
        ("type-string-bad-prefix", lambda torch: converted(torch, "numpy.FloatTensor")),
        ("type-tensor-class", lambda torch: converted(torch, lambda t: t.Tensor, "float64")),
        ("type-dtype", lambda torch: converted(torch, lambda t: t.float64)),
        ("type-dtype-keyword", lambda torch: x(torch).type(dtype=torch.float64)),
        ("type-legacy-from-numpy", lambda torch: torch.FloatTensor(np.array([[0.5, -1.5]]))),
        ("type-legacy-sizes-fill", lambda torch: torch.FloatTensor(3, 1).fill_(1.0)),
        ("type-isinstance", lambda torch: [isinstance(x(torch), torch.FloatTensor), isinstance(x(torch), torch.DoubleTensor),
                                           isinstance(x(torch), torch.cuda.FloatTensor)]),
        ("type-cuda-class", lambda torch: [torch.cuda.FloatTensor.__name__, torch.cuda.LongTensor.__name__,
                                           torch.cuda.FloatTensor is torch.cuda.FloatTensor,
                                           torch.cuda.FloatTensor is torch.FloatTensor]),
        ("type-module", lambda torch: [_name(p.dtype) for p in torch.nn.Linear(2, 1).type(torch.DoubleTensor).parameters()]),
    ]
    return c


def cases():
    return _variable_cases() + _legacy_type_cases()
