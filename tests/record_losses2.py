"""Records PyTorch's values of the losses added with rstorch's nn/functional/_loss_margin.py, _loss_prob.py,
_ctc.py, _pdist.py and _linear_ce.py, and of AdaptiveLogSoftmaxWithLoss, into fixtures/losses2.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_losses2.py
tests/python/test_losses2.py replays every case on rstorch. All values are float64. A case is
{fn, args, kwargs, out, grads}: each tensor argument is {"tensor": values, "dtype", "grad"}; `out` is
F.fn(*args, **kwargs) for every reduction the case lists, and `grads` the gradient of each argument marked
"grad" after backward(gout), gout being 1 + k/4 over the output's elements. An argument marked "logits" is
passed through log_softmax(-1) first (CTC: PyTorch's kernel gives its log_probs the gradient of a
log_softmax input, so the logits' gradient is the comparable one). "distance" names a distance function of
triplet_margin_with_distance_loss. An error case has {error, message} instead of out and grads.
"""
import json
import math
import pathlib

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D = torch.float64
REDUCTIONS = ["none", "mean", "sum"]
DISTANCES = {"cosine": lambda a, b: 1.0 - F.cosine_similarity(a, b), "l1": lambda a, b: (a - b).abs().sum(-1)}


def rand(*shape):
    return torch.randn(*shape, dtype=D)


def sign(*shape):
    return torch.randint(0, 2, shape).to(D) * 2 - 1


class G:
    """A tensor argument whose gradient is recorded (logits=True: log_softmax(-1) is applied first)."""

    def __init__(self, t, logits=False):
        self.t, self.logits = t, logits


def enc(a):
    if isinstance(a, G):
        return {"tensor": a.t.tolist(), "dtype": str(a.t.dtype).split(".")[1], "grad": True, "logits": a.logits}
    if isinstance(a, torch.Tensor):
        return {"tensor": a.tolist(), "dtype": str(a.dtype).split(".")[1], "grad": False,
                "requires_grad": a.requires_grad}
    return a


def run(fn, args, kwargs):
    leaves = []
    real = []
    for a in args:
        if isinstance(a, G):
            leaf = a.t.clone().requires_grad_(True)
            leaves.append(leaf)
            real.append(leaf.log_softmax(-1) if a.logits else leaf)
        else:
            real.append(a)
    kw = dict(kwargs)
    if "distance" in kw:
        kw["distance_function"] = DISTANCES[kw.pop("distance")]
    for k, v in kw.items():
        if isinstance(v, G):
            leaf = v.t.clone().requires_grad_(True)
            leaves.append(leaf)
            kw[k] = leaf
    out = getattr(F, fn)(*real, **kw)
    gout = torch.tensor([1 + k / 4 for k in range(out.numel())], dtype=out.dtype).reshape(out.shape)
    out.backward(gout)
    return out, [leaf.grad.tolist() if leaf.grad is not None else None for leaf in leaves]


CASES = []


def case(fn, args, kwargs=None, reductions=REDUCTIONS):
    CASES.append((fn, args, kwargs or {}, reductions))


ERRORS = []


def error(fn, args, kwargs=None):
    ERRORS.append((fn, args, kwargs or {}))


def build():
    long = torch.int64
    x1, x2 = rand(4, 5), rand(4, 5)
    case("cosine_embedding_loss", [G(x1), G(x2), torch.tensor([1.0, -1, 1, -1], dtype=D)])
    case("cosine_embedding_loss", [G(x1), G(x2), torch.tensor([1.0, -1, 0, -1], dtype=D)], {"margin": 0.3})
    case("cosine_embedding_loss", [G(rand(5)), G(rand(5)), torch.tensor(-1.0, dtype=D)], {"margin": -0.5})
    case("cosine_embedding_loss", [G(x1), G(x2), torch.tensor([1.0, -1, 1, -1], dtype=D)],
         {"size_average": False}, ["mean"])
    case("hinge_embedding_loss", [G(rand(3, 4)), sign(3, 4)])
    case("hinge_embedding_loss", [G(rand(3, 4)), torch.tensor([1.0, -1, 0, 2], dtype=D)], {"margin": 0.5})
    case("hinge_embedding_loss", [G(rand(6)), sign(6)], {"reduce": False}, ["mean"])
    case("margin_ranking_loss", [G(rand(6)), G(rand(6)), sign(6)])
    case("margin_ranking_loss", [G(rand(2, 3)), G(rand(2, 3)), sign(2, 3)], {"margin": 0.2})
    case("margin_ranking_loss", [G(rand(6)), G(rand(1)), sign(6)], {"margin": 0.1})
    case("soft_margin_loss", [G(rand(3, 4)), sign(3, 4)])
    case("soft_margin_loss", [G(rand(3, 4)), sign(4)], {"size_average": False}, ["mean"])
    y = torch.tensor([0, 4, 2, 1])
    w = torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25], dtype=D)
    xm = rand(4, 5) * 0.6
    case("multi_margin_loss", [G(xm), y])
    case("multi_margin_loss", [G(xm), y], {"p": 2, "margin": 0.7})
    case("multi_margin_loss", [G(xm), y], {"weight": w})
    case("multi_margin_loss", [G(xm), y], {"p": 2, "weight": w})
    case("multi_margin_loss", [G(rand(5) * 0.5), torch.tensor(3)])
    case("multi_margin_loss", [G(rand(5) * 0.5), torch.tensor([3])], {"margin": 2.0})
    tml = torch.tensor([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [-1, 2, 3, 0, 0], [4, 4, -1, 0, 0]])
    case("multilabel_margin_loss", [G(rand(4, 5) * 0.6), tml])
    case("multilabel_margin_loss", [G(rand(5)), torch.tensor([2, 4, -1, 0, 0])])
    case("multilabel_margin_loss", [G(rand(4, 5) * 0.6), tml], {"size_average": False}, ["mean"])
    tsm = torch.randint(0, 2, (3, 5)).to(D)
    case("multilabel_soft_margin_loss", [G(rand(3, 5) * 3), tsm])
    case("multilabel_soft_margin_loss", [G(rand(3, 5) * 3), tsm], {"weight": w})
    case("multilabel_soft_margin_loss", [G(rand(5)), tsm[0]], {"weight": G(w)})
    counts = torch.tensor([[0.0, 1, 3.5, 2], [7, 0.5, 1.5, 0]], dtype=D)
    case("poisson_nll_loss", [G(rand(2, 4)), counts])
    case("poisson_nll_loss", [G(rand(2, 4)), G(counts + 0.25)], {"full": True})
    case("poisson_nll_loss", [G(rand(2, 4).abs() + 0.1), counts], {"log_input": False})
    case("poisson_nll_loss", [G(rand(2, 4).abs() + 0.1), counts], {"log_input": False, "full": True, "eps": 0.01})
    case("poisson_nll_loss", [G(rand(2, 4)), counts], {"size_average": False, "reduce": True}, ["mean"])
    mu, tg = rand(4, 3), rand(4, 3)
    var = rand(4, 3).abs() + 0.05
    var[0, 0] = 1e-9  # below eps: clamped, and no gradient through the clamp
    case("gaussian_nll_loss", [G(mu), tg, G(var)])
    case("gaussian_nll_loss", [G(mu), G(tg), G(var[:, 0].clone())], {"full": True})
    case("gaussian_nll_loss", [G(mu), tg, G(var[:, :1].clone())], {"eps": 1e-3})
    case("gaussian_nll_loss", [G(mu), tg, G(var[:1, :].clone())])
    case("gaussian_nll_loss", [G(mu), tg, 0.7])
    a, p_, n_ = rand(4, 6), rand(4, 6), rand(4, 6)
    case("triplet_margin_loss", [G(a), G(p_), G(n_)])
    case("triplet_margin_loss", [G(a), G(p_), G(n_)], {"margin": 2.0, "p": 1, "swap": True})
    case("triplet_margin_loss", [G(a), G(p_), G(n_)], {"margin": 3.0, "p": 3, "eps": 1e-3})
    case("triplet_margin_loss", [G(a[0]), G(p_[0]), G(n_[0])], {"margin": 4.0})
    case("triplet_margin_with_distance_loss", [G(a), G(p_), G(n_)], {"margin": 2.5})
    case("triplet_margin_with_distance_loss", [G(a), G(p_), G(n_)], {"distance": "cosine", "swap": True})
    case("triplet_margin_with_distance_loss", [G(a), G(p_), G(n_)], {"distance": "l1", "margin": 3.0})
    xs = rand(5, 4)
    for p in [2, 1, 0.5, 3, math.inf, 0]:
        case("pdist", [G(xs)], {"p": p}, [None])
    case("pdist", [G(rand(1, 3))], {}, [None])
    # CTC: (T, N, C) = (7, 3, 5), repeated labels (which need a blank between them), an empty target.
    logits = rand(7, 3, 5)
    tg = torch.tensor([[1, 2, 2, 3], [4, 4, 0, 0], [3, 0, 0, 0]])
    lens_in, lens_tg = [7, 6, 5], [4, 2, 1]
    case("ctc_loss", [G(logits, True), tg, lens_in, lens_tg])
    case("ctc_loss", [G(logits, True), tg, torch.tensor(lens_in), torch.tensor(lens_tg, dtype=torch.int32)])
    case("ctc_loss", [G(logits, True), torch.tensor([1, 2, 2, 3, 4, 4, 3]), lens_in, lens_tg])
    case("ctc_loss", [G(logits, True), tg, lens_in, [4, 0, 1]])
    case("ctc_loss", [G(logits, True), tg + 0, [7, 3, 0], [2, 2, 0]])
    case("ctc_loss", [G(logits, True), tg - 1, lens_in, lens_tg], {"blank": 4})
    # The first sample cannot fit 4 labels with a repeat into 4 frames: an infinite loss, zeroed on request.
    case("ctc_loss", [G(logits, True), tg, [4, 6, 5], lens_tg], {"zero_infinity": True})
    # Without zero_infinity PyTorch's gradient is NaN over that sample's input frames.
    case("ctc_loss", [G(logits, True), tg, [4, 6, 5], lens_tg])
    case("ctc_loss", [G(logits[:, 0], True), tg[0, :3], torch.tensor(7), torch.tensor(3)])
    case("ctc_loss", [G(logits.float(), True), tg.float(), lens_in, lens_tg], {}, ["mean"])
    # linear_cross_entropy: class indices, K-dimensional (out_features), probabilities, unbatched.
    inp, lw, lb = rand(5, 4), rand(6, 4), rand(6)
    cls = torch.tensor([0, 5, 2, -100, 3])
    case("linear_cross_entropy", [G(inp), G(lw), cls], {"linear_bias": G(lb), "weight": rand(6).abs()})
    case("linear_cross_entropy", [G(inp), G(lw), cls.clamp_min(0)], {"ignore_index": 5, "label_smoothing": 0.2})
    case("linear_cross_entropy", [G(inp), G(rand(6, 3, 4)), torch.randint(0, 6, (5, 3))],
         {"linear_bias": G(rand(6, 3))})
    case("linear_cross_entropy", [G(inp), G(lw), rand(5, 6).softmax(1)], {"label_smoothing": 0.1})
    case("linear_cross_entropy", [G(inp[0]), G(lw), torch.tensor(4)], {"linear_bias": G(lb)})

    x = rand(3, 4)
    error("linear_cross_entropy", [rand(2, 3, 4), rand(6, 4), cls])
    error("linear_cross_entropy", [x, rand(4), cls])
    error("linear_cross_entropy", [x, rand(6, 5), cls])
    error("linear_cross_entropy", [x, rand(6, 4), cls], {"linear_bias": rand(5)})
    error("linear_cross_entropy", [x[0], rand(6, 2, 4), cls])
    error("linear_cross_entropy", [x, rand(6, 4), rand(3, 6)], {"ignore_index": 1})
    error("cosine_embedding_loss", [x, x, torch.ones(3, 1, dtype=D)])
    error("cosine_embedding_loss", [x[0], x[0], torch.ones(3, dtype=D)])
    error("cosine_embedding_loss", [x, x, torch.tensor(1.0, dtype=D)])
    error("cosine_embedding_loss", [x, x, torch.ones(3, dtype=D)], {"reduction": "foo"})
    error("margin_ranking_loss", [x[0], x[0], torch.ones(1, 4, dtype=D)])
    error("soft_margin_loss", [x, torch.ones(5, dtype=D)])
    error("soft_margin_loss", [x[:, :1], torch.ones(3, 4, dtype=D)])
    error("soft_margin_loss", [x, torch.ones(3, 4, dtype=D, requires_grad=True)])
    error("multi_margin_loss", [rand(2, 3, 4), torch.tensor([0, 1])])
    error("multi_margin_loss", [x, torch.tensor([0, 1])])
    error("multi_margin_loss", [x, torch.tensor([[0, 1, 1]])])
    error("multi_margin_loss", [x, torch.tensor([0, 1, 4])])
    error("multi_margin_loss", [x, torch.tensor([0, 1, -1])])
    error("multi_margin_loss", [x, torch.tensor([0, 1, 2])], {"p": 3})
    error("multi_margin_loss", [x, torch.tensor([0, 1, 2])], {"weight": torch.ones(2, 2, dtype=D)})
    error("multi_margin_loss", [x, torch.tensor([0, 1, 2])], {"weight": torch.ones(3, dtype=D)})
    error("multi_margin_loss", [x, torch.tensor([0.0, 1, 2], dtype=D)])
    error("multi_margin_loss", [x, torch.tensor([0, 1, 2])], {"reduction": "avg"})
    error("multi_margin_loss", [x, torch.tensor([0, 1, 2])], {"weight": torch.ones(4, dtype=D, requires_grad=True)})
    error("multilabel_margin_loss", [x, torch.tensor([[0, 1, -1]] * 3)])
    error("multilabel_margin_loss", [x, torch.tensor([0, 1, 2])])
    error("multilabel_margin_loss", [x, torch.tensor([[0, 1, 4, -1]] * 3)])
    error("multilabel_margin_loss", [x, torch.tensor([[0, 1, -2, -1]] * 3)])
    error("multilabel_margin_loss", [x, torch.ones(3, 4, dtype=D)])
    error("multilabel_margin_loss", [rand(2, 3, 4), torch.zeros(2, 3, 4, dtype=long)])
    error("multilabel_soft_margin_loss", [x, torch.ones(3, 4, dtype=D)], {"reduction": "x"})
    error("poisson_nll_loss", [x, x], {"reduction": "x"})
    error("poisson_nll_loss", [x, torch.ones(5, dtype=D)])
    error("gaussian_nll_loss", [x, x, torch.ones(2, dtype=D)])
    error("gaussian_nll_loss", [x, x, torch.ones(3, 2, dtype=D)])
    error("gaussian_nll_loss", [x, x, -torch.ones(3, dtype=D)])
    error("gaussian_nll_loss", [x, x, -1.0])
    error("gaussian_nll_loss", [x, x, torch.ones(3, dtype=D)], {"reduction": "x"})
    error("triplet_margin_loss", [x, x, x[0]])
    error("triplet_margin_loss", [x, x, x], {"margin": 0})
    error("triplet_margin_with_distance_loss", [x, x, x[0]])
    error("triplet_margin_with_distance_loss", [x, x, x], {"margin": -1.0})
    error("triplet_margin_with_distance_loss", [x, x, x], {"reduction": "x"})
    error("pdist", [x[0]])
    error("pdist", [x], {"p": -1})
    error("pdist", [torch.ones(3, 2, dtype=long)])
    lp = rand(6, 2, 4).log_softmax(2)
    tg = torch.tensor([[1, 2, 3], [3, 2, 1]])
    error("ctc_loss", [lp, tg, [7, 5], [3, 2]])
    error("ctc_loss", [lp, tg, [6, 5, 4], [3, 2]])
    error("ctc_loss", [lp, tg, [6, 5], [3, 2, 1]])
    error("ctc_loss", [lp, tg, [6, 5], [4, 2]])
    error("ctc_loss", [lp, tg.flatten(), [6, 5], [4, 3]])
    error("ctc_loss", [lp, tg, [6, 5], [3, 2]], {"blank": 4})
    error("ctc_loss", [lp, tg, [6, 5], [3, 2]], {"blank": -1})
    error("ctc_loss", [lp, tg, [6, 5], [3, 2]], {"reduction": "x"})
    error("ctc_loss", [lp, tg, torch.tensor([6.0, 5]), torch.tensor([3, 2])])
    error("ctc_loss", [lp, tg, [6, -1], [3, 2]])
    error("ctc_loss", [lp, tg, [6, 5], [3, -1]])
    error("ctc_loss", [lp.long(), tg, [6, 5], [3, 2]])
    error("ctc_loss", [lp[:, 0], tg[0], torch.tensor(6), torch.tensor(2)])
    error("ctc_loss", [lp.reshape(6, 2, 2, 2), tg, [6, 5], [3, 2]])
    error("ctc_loss", [lp.reshape(-1), tg[0], torch.tensor(6), torch.tensor(3)])
    error("ctc_loss", [lp, tg.reshape(2, 3, 1), [6, 5], [3, 2]])


def adaptive_cases():
    out = []
    for cutoffs, head_bias, div in [([3, 6], False, 4.0), ([2, 5, 8], True, 2.0)]:
        torch.manual_seed(1)
        m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs, div_value=div, head_bias=head_bias).double()
        x = rand(6, 8).requires_grad_(True)
        y = torch.tensor([0, 4, 9, 2, 7, 5])
        res = m(x, y)
        res.loss.backward()
        single = m(x[1].detach(), y[1])
        out.append({
            "cutoffs": cutoffs, "head_bias": head_bias, "div_value": div,
            "state": {k: v.tolist() for k, v in m.state_dict().items()},
            "x": x.tolist(), "y": y.tolist(), "output": res.output.tolist(), "loss": res.loss.item(),
            "x_grad": x.grad.tolist(), "head_grad": m.head.weight.grad.tolist(),
            "single_output": single.output.item(), "single_loss": single.loss.item(),
            "log_prob": m.log_prob(x.detach()).tolist(), "predict": m.predict(x.detach() * 3).tolist(),
        })
    return out


def main():
    build()
    cases = []
    for fn, args, kwargs, reductions in CASES:
        for red in reductions:
            kw = dict(kwargs) if red is None else {**kwargs, "reduction": red}
            out, grads = run(fn, args, kw)
            cases.append({"fn": fn, "args": [enc(a) for a in args], "kwargs": {k: enc(v) for k, v in kw.items()},
                          "out": out.tolist(), "grads": grads})
    errors = []
    for fn, args, kwargs in ERRORS:
        try:
            getattr(F, fn)(*args, **kwargs)
        except Exception as e:  # the type and text are what the test compares
            errors.append({"fn": fn, "args": [enc(a) for a in args], "kwargs": {k: enc(v) for k, v in kwargs.items()},
                           "error": type(e).__name__, "message": str(e)})
        else:
            raise AssertionError(f"{fn} did not raise")
    data = {"torch": torch.__version__, "cases": cases, "errors": errors, "adaptive": adaptive_cases()}
    path = pathlib.Path(__file__).resolve().parent / "fixtures" / "losses2.json"
    path.write_text(json.dumps(data) + "\n")
    print(f"{len(cases)} cases, {len(errors)} errors -> {path}")


if __name__ == "__main__":
    main()
