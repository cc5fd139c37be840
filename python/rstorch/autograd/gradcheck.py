"""Numerical gradient checks (`gradcheck`, `gradgradcheck`) with PyTorch's signatures and
defaults: central differences in float64 compared with the analytical Jacobian."""
from .. import _C


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    # Lists count as sequences of tensors, as in PyTorch.
    if isinstance(x, tuple):
        return x
    return tuple(x) if isinstance(x, list) else (x,)


def _flat_outputs(fn, inputs):
    return [o for o in _as_tuple(fn(*inputs)) if isinstance(o, _C.Tensor) and o.dtype.is_floating_point]


def _numerical_jacobian(fn, inputs, i, eps):
    """d outputs / d inputs[i] by central differences: one column per input element."""
    x = inputs[i].detach()  # shares storage: writes below perturb the input in place
    shape = tuple(x.shape)
    cols = [[] for _ in _flat_outputs(fn, inputs)]

    def perturb(idx, value):
        with _no_grad():
            x[idx] = value

    # `fn` runs with grad mode on: gradgradcheck's function itself calls autograd.grad.
    for k in range(x.numel()):
        idx = _unravel(k, shape)
        orig = x[idx].item()
        perturb(idx, orig + eps)
        plus = [o.detach().reshape(-1).clone() for o in _flat_outputs(fn, inputs)]
        perturb(idx, orig - eps)
        minus = [o.detach().reshape(-1).clone() for o in _flat_outputs(fn, inputs)]
        perturb(idx, orig)
        for j, (p, m) in enumerate(zip(plus, minus)):
            cols[j].append(((p - m) / (2 * eps)).tolist())
    return cols  # per output: list over input elements of lists over output elements


def _unravel(k, shape):
    idx = []
    for s in reversed(shape):
        idx.append(k % s)
        k //= s
    return tuple(reversed(idx))


def _analytical_jacobian(fn, inputs, i):
    outputs = _flat_outputs(fn, inputs)
    rows = []
    for o in outputs:
        jac = []
        flat_n = o.numel()
        for k in range(flat_n):
            grad_out = _C.zeros(flat_n, dtype=o.dtype, device=o.device)
            grad_out[k] = 1.0
            g = _grad([o], [inputs[i]], [grad_out.reshape(o.shape)])[0]
            jac.append([0.0] * inputs[i].numel() if g is None else g.reshape(-1).tolist())
        rows.append(jac)  # output elements x input elements
    return rows


def _no_grad():
    from .grad_mode import no_grad
    return no_grad()


def _grad(outputs, inputs, grad_outputs):
    from . import grad
    return grad(outputs, inputs, grad_outputs, retain_graph=True, allow_unused=True)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    inputs = _as_tuple(inputs)
    for i, x in enumerate(inputs):
        if not (isinstance(x, _C.Tensor) and x.requires_grad):
            continue
        if x.dtype != _C.float64:
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision floating point. ")
        numerical = _numerical_jacobian(func, inputs, i, eps)
        analytical = _analytical_jacobian(func, inputs, i)
        for j, (num, ana) in enumerate(zip(numerical, analytical)):
            for a_idx in range(len(num)):
                for o_idx in range(len(num[a_idx])):
                    n = num[a_idx][o_idx]
                    a = ana[o_idx][a_idx]
                    if abs(a - n) > atol + rtol * abs(n):
                        msg = (f"Jacobian mismatch for output {j} with respect to input {i},\n"
                               f"numerical:{n}\nanalytical:{a}\n"
                               f"(input element {a_idx}, output element {o_idx})")
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Checks second derivatives: gradcheck of the function (inputs, grad_outputs) -> input grads."""
    inputs = _as_tuple(inputs)
    outputs = _flat_outputs(func, inputs)
    if grad_outputs is None:
        _C.manual_seed(0)
        grad_outputs = tuple(_C.randn(*o.shape, dtype=o.dtype).to(o.device).requires_grad_()
                             for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_grads(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = _flat_outputs(func, xs)
        from . import grad
        d = [x for x in xs if isinstance(x, _C.Tensor) and x.requires_grad]
        gs = grad(outs, d, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
