"""Autograd graphs drawn by torchviz-style `make_dot` on either framework: `cases(torch,
make_dot)` builds each graph with the framework module `torch` and draws it with `make_dot`
(tests/record_viz.py: PyTorch and torchviz, written to fixtures/viz.json;
tests/python/test_viz.py: rstorch and rstorch.viz.make_dot, compared with the fixture).

A drawing is compared through `canonical`: its DOT statements with the node ids (Python object
ids, different on every run) renamed n0, n1, ... in order of first use, so that the same walk
of the same graph gives the same statements."""
import re

# A statement's node ids: `\t<id> [...]` or `\t<id> -> <id> [...]`.
_HEAD = re.compile(r"^\t(\d+)(?: -> (\d+))?")


def canonical(dot):
    ids = {}

    def name(i):
        return "n%d" % ids.setdefault(i, len(ids))

    def rename(m):
        return "\t" + name(m.group(1)) + ("" if m.group(2) is None else " -> " + name(m.group(2)))
    return {"body": [_HEAD.sub(rename, line) for line in dot.body], "graph_attr": dict(dot.graph_attr)}


def cases(torch, make_dot):
    F = torch.nn.functional
    out = {}

    torch.manual_seed(0)
    lin, lin2 = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)
    x = torch.randn(5, 3)
    loss = F.nll_loss(F.log_softmax(lin2(torch.relu(lin(x))), 1), torch.tensor([0, 1, 0, 1, 1]))
    params = {**{"lin." + k: v for k, v in lin.named_parameters()}, **{"lin2." + k: v for k, v in lin2.named_parameters()}}
    out["mlp_params"] = make_dot(loss, params=params)
    out["mlp_no_params"] = make_dot(loss)

    # Two outputs, one a view: its base is drawn dark green with a dotted edge to it.
    a = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    y = a * b + a
    out["tuple_and_view"] = make_dot((y.view(-1), y.sum()), params={"a": a})

    # Saved tensors: the leaves themselves (one node each), a saved result, a saved input
    # that is an intermediate tensor.
    w = torch.randn(2, 3, requires_grad=True)
    z = (a * w).exp().sin().sum(1)
    out["show_saved"] = make_dot(z, params={"a": a, "w": w}, show_saved=True)
    out["show_attrs"] = make_dot(z, show_attrs=True)
    out["show_attrs_short"] = make_dot(F.log_softmax(a.sum(0, keepdim=True), 1), show_attrs=True, max_attr_chars=4)
    out["show_both"] = make_dot(F.log_softmax(a @ w.t(), 1), show_saved=True, show_attrs=False)

    # A Python Function's saved tensors are drawn whatever show_saved says.
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return 2 * t * g
    out["custom_function"] = make_dot(Square.apply(a).mean(), params={"a": a})
    return {k: canonical(v) for k, v in out.items()}
