"""L-BFGS: quasi-Newton steps from a limited history of parameter and gradient differences, with
a fixed step (line_search_fn=None) or a strong-Wolfe line search. One parameter group; `step`
needs a closure that re-evaluates the loss and its gradients.

The scalars of the two-loop recursion stay 0-dim tensors (dot products), as in PyTorch, so they
round in the parameters' dtype; where one is an `alpha`, it is passed as its Python number (the
value PyTorch's Scalar conversion takes), since rstorch's add_ reads only numbers there."""
import math

from .. import Tensor, cat, zeros
from ..autograd.grad_mode import enable_grad, no_grad
from ._common import check_lr, scalar
from .optimizer import Optimizer


def _sqrt(value):
    return value.sqrt() if isinstance(value, Tensor) else math.sqrt(value)


def _cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped
    into `bounds` (by default the interval between the two points); the middle of the bounds
    when the cubic has no minimum."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if not d2_square >= 0:
        return (low + high) / 2.0
    d2 = _sqrt(d2_square)
    if x1 <= x2:
        position = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        position = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(position, low), high)


def _strong_wolfe(evaluate, t, d, loss, grad, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step length t along d meeting the strong Wolfe conditions (sufficient decrease c1,
    curvature c2): first grow t until a bracket holds a minimum, then shrink the bracket by
    safeguarded cubic interpolation. Returns (loss, flat gradient, t, evaluations)."""
    d_norm = d.abs().max()
    grad = grad.clone()
    # Each trial point: [t, loss, flat gradient, directional derivative].
    previous = [0, loss, grad, gtd]
    f_new, g_new = evaluate(t)
    evaluations, tries = 1, 0
    gtd_new = g_new.dot(d)
    bracket, done = None, False
    while tries < max_ls:
        if f_new > loss + c1 * t * gtd or (tries > 1 and f_new >= previous[1]):
            bracket = [previous, [t, f_new, g_new.clone(), gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, done = [[t, f_new, g_new, gtd_new]], True
            break
        if gtd_new >= 0:
            bracket = [previous, [t, f_new, g_new.clone(), gtd_new]]
            break
        # Still descending: extrapolate, at least 1% past t and at most 10 t.
        next_t = _cubic_minimizer(previous[0], previous[1], previous[3], t, f_new, gtd_new,
                                  bounds=(t + 0.01 * (t - previous[0]), t * 10))
        previous = [t, f_new, g_new.clone(), gtd_new]
        t = next_t
        f_new, g_new = evaluate(t)
        evaluations += 1
        gtd_new = g_new.dot(d)
        tries += 1
    if tries == max_ls:
        bracket = [[0, loss, grad, None], [t, f_new, g_new, None]]

    # Zoom: keep bracket[low] the best point and shrink the bracket around the minimum.
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    insufficient_progress = False
    while not done and tries < max_ls:
        if abs(bracket[1][0] - bracket[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimizer(bracket[0][0], bracket[0][1], bracket[0][3], bracket[1][0], bracket[1][1],
                             bracket[1][3])
        top = max(bracket[0][0], bracket[1][0])
        bottom = min(bracket[0][0], bracket[1][0])
        margin = 0.1 * (top - bottom)
        # A trial too close to an end twice in a row (or outside) is pushed `margin` inside.
        if min(top - t, t - bottom) < margin:
            if insufficient_progress or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evaluations += 1
        gtd_new = g_new.dot(d)
        tries += 1
        trial = [t, f_new, g_new.clone(), gtd_new]
        if f_new > loss + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = trial
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = list(bracket[low])
            bracket[low] = trial
    t, f_new, g_new = bracket[low][0], bracket[low][1], bracket[low][2]
    return f_new, g_new, t, evaluations


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None, *, maximize=False):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size,
                        line_search_fn=line_search_fn, maximize=maximize)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        """All gradients as one new vector (zeros for parameters without one), negated when
        maximizing."""
        pieces = [zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None else p.grad.reshape(-1)
                  for p in self._params]
        flat = cat(pieces, 0)
        return flat.neg_() if self.param_groups[0]["maximize"] else flat

    def _move(self, step_size, direction):
        offset = 0
        for p in self._params:
            p.add_(direction[offset:offset + p.numel()].view_as(p), alpha=scalar(step_size))
            offset += p.numel()

    def _loss_value(self, closure):
        with enable_grad():
            loss = float(closure())
        return -loss if self.param_groups[0]["maximize"] else loss

    @staticmethod
    def _direction(state, flat_grad, y, s, history, h_diag):
        """The quasi-Newton direction -H g by the two-loop recursion over `history` (lists
        old_dirs, old_stps, ro, and their bound), after adding the last step's pair (y, s): the
        change of gradient and of parameters, when its curvature y.s is positive. Returns the
        direction and the new initial Hessian scale; state["al"] is the recursion's scratch."""
        old_dirs, old_stps, ro, history_size = history
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in reversed(range(len(old_dirs))):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=scalar(-al[i]))
        r = q.mul(h_diag)
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=scalar(al[i] - be_i))
        return r, h_diag

    @no_grad()
    def step(self, closure):
        """Runs up to max_iter L-BFGS iterations; returns the loss the closure gave at the start."""
        group = self.param_groups[0]
        if not self._params:
            with enable_grad():
                return closure()
        lr, max_iter, max_eval = scalar(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = -float(orig_loss) if group["maximize"] else float(orig_loss)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss

        # Carried between steps in the state, under PyTorch's keys (written back at the end, so
        # the state's key order is PyTorch's too).
        d, t, h_diag = state.get("d"), state.get("t"), state.get("H_diag")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        for n_iter in range(1, max_iter + 1):
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                history = (old_dirs, old_stps, ro, group["history_size"])
                d, h_diag = self._direction(state, flat_grad, flat_grad.sub(prev_flat_grad), d.mul(t), history,
                                            h_diag)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            # The first step ever is scaled by the gradient's size; later ones take lr.
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            step_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p.clone() for p in self._params]

                def evaluate(step_size, direction=d, start=start):
                    self._move(step_size, direction)
                    value = self._loss_value(closure)
                    grad = self._flat_grad()
                    for p, saved in zip(self._params, start):
                        p.copy_(saved)
                    return value, grad

                loss, flat_grad, t, step_evals = _strong_wolfe(evaluate, t, d, loss, flat_grad, gtd,
                                                               max_ls=max_eval - evaluations)
                self._move(t, d)
                converged = flat_grad.abs().max() <= tolerance_grad
            else:
                self._move(t, d)
                converged = False
                # The last iteration leaves the new point unevaluated: the next step() does it.
                if n_iter != max_iter:
                    loss = self._loss_value(closure)
                    flat_grad = self._flat_grad()
                    converged = flat_grad.abs().max() <= tolerance_grad
                    step_evals = 1
            evaluations += step_evals
            state["func_evals"] += step_evals

            if n_iter == max_iter or evaluations >= max_eval or converged:
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
