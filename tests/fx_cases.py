"""Modules and functions traced with torch.fx, one list for both frameworks:
tests/record_fx.py traces them with PyTorch and writes fixtures/fx.json (node lists, generated
code, graph text, outputs); tests/python/test_fx.py traces them with rstorch and compares.
Inputs are float64 and deterministic, so outputs compare too."""
import math
import operator


def tensor(torch, shape, seed):
    n = math.prod(shape)
    vals = [round(2.0 * math.sin(1.3 * i + 0.7 * seed + 0.2), 6) for i in range(n)]
    return torch.tensor(vals, dtype=torch.float64).reshape(shape)


def set_params(torch, module, seed=10):
    with torch.no_grad():
        for k, (_, p) in enumerate(sorted(module.named_parameters())):
            p.copy_(tensor(torch, tuple(p.shape), seed + k))
    return module


def scaled_sum(a, b):
    """Registered with fx.wrap by `setup`: stays one call_function node."""
    return (a + b) * 0.5


def setup(torch):
    """fx.wrap must run at a module's top level: run it as top-level code of this module."""
    namespace = globals()
    namespace["_fx"] = torch.fx
    exec(compile("_fx.wrap('scaled_sum')", "<fx_cases>", "exec"), namespace)


def modules(torch):
    """name -> (root module or function, inputs)."""
    nn = torch.nn
    F = torch.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 5)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(5, 3)

        def forward(self, x):
            return F.softmax(self.fc2(self.act(self.fc1(x))), dim=-1)

    class Methods(nn.Module):
        def forward(self, x):
            y = x.view(x.size(0), -1).transpose(0, 1)
            z = y.sum(dim=1, keepdim=True) + x.shape[1]
            return z.reshape(-1).exp().clamp(min=0.5, max=3.0)

    class Operators(nn.Module):
        def forward(self, x, y):
            a = x + y - x * y / (y * y + 1)
            b = -a + 2 * x - 1 - (x ** 2) // 3 % 2
            c = (x @ y.t()) + (a > 0).float() + (b <= 1).double()
            return a, b, c[0], c[1:, ::2], abs(b), ~(a > 0)

    class Functions(nn.Module):
        def forward(self, x, y):
            a = torch.cat([x, y], dim=0)
            b = torch.stack((x, y))
            c = torch.relu(a) + torch.sigmoid(a) * torch.tanh(a)
            d = torch.add(x, y, alpha=2) + torch.matmul(x, y.t()).sum()
            e = F.elu(c) + F.leaky_relu(c, 0.2) + F.dropout(c, p=0.5, training=False)
            return {"b": b, "c": c, "d": d, "e": e, "w": torch.where(x > 0, x, y)}

    class Params(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(3, dtype=torch.float64))
            self.register_buffer("shift", torch.full((3,), 0.25, dtype=torch.float64))
            self.seq = nn.Sequential(nn.Linear(3, 3).double(), nn.Tanh())
            self.blocks = nn.ModuleList([nn.Linear(3, 3).double() for _ in range(2)])

        def forward(self, x, scale=2.0):
            x = x * self.weight + self.shift
            for block in self.blocks:
                x = block(x)
            return self.seq(x) * scale + torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)

    class Wrapped(nn.Module):
        def forward(self, x, y):
            return scaled_sum(x, y) + scaled_sum(y, y)

    class Unpack(nn.Module):
        def forward(self, input):
            a, b = input.chunk(2, dim=0)
            return torch.max(a) + torch.sum(b), a

    def function(x):
        return torch.exp(torch.tan(x)) + math.sqrt(2.0)

    mods = {
        "mlp": (MLP(), [(2, 4)]),
        "methods": (Methods(), [(3, 2, 2)]),
        "operators": (Operators(), [(3, 3), (3, 3)]),
        "functions": (Functions(), [(2, 3), (2, 3)]),
        "params": (Params(), [(2, 3)]),
        "wrapped": (Wrapped(), [(2, 2), (2, 2)]),
        "unpack": (Unpack(), [(4, 2)]),
        "function": (function, [(3,)]),
    }
    out = {}
    for k, (name, (root, shapes)) in enumerate(mods.items()):
        if isinstance(root, nn.Module):
            set_params(torch, root.double(), 10 + k)
        out[name] = (root, [tensor(torch, s, k + i) for i, s in enumerate(shapes)])
    return out


def node_list(gm):
    """(op, name, target as the graph text shows it, args and kwargs with %node names)."""
    rows = []
    for n in gm.graph.nodes:
        line = n.format_node()
        target = n.target if isinstance(n.target, str) else line.split("[target=", 1)[1].split("](", 1)[0]
        fmt = lambda a: "%" + a.name if type(a).__name__ == "Node" else a  # noqa: E731
        from_node = type(n).__module__.split(".")[0]
        mapper = __import__(from_node).fx.node.map_arg
        rows.append([n.op, n.name, target, repr(mapper(n.args, fmt)), repr(mapper(n.kwargs, fmt))])
    return rows


def flat(torch, value):
    """Output values as nested lists (tensors as lists of floats)."""
    if isinstance(value, torch.Tensor):
        return value.detach().double().reshape(-1).tolist()
    if isinstance(value, (list, tuple)):
        return [flat(torch, v) for v in value]
    if isinstance(value, dict):
        return {k: flat(torch, v) for k, v in value.items()}
    return value


def record(torch, gm, inputs):
    return {"nodes": node_list(gm), "code": gm.code, "graph": str(gm.graph), "out": flat(torch, gm(*inputs))}


def edits(torch):
    """Graph edits and transforms; name -> GraphModule afterwards and its inputs."""
    fx = torch.fx
    out = {}

    class M(torch.nn.Module):
        def forward(self, x, y):
            return x + y, torch.add(x, y), x.add(y)

    # pytorch/examples fx/replace_op: every add becomes bitwise_and.
    traced = fx.symbolic_trace(M())
    for n in traced.graph.nodes:
        if any(n.target == p for p in (operator.add, torch.add, "add")):
            with traced.graph.inserting_after(n):
                new_node = traced.graph.call_function(torch.bitwise_and, n.args, n.kwargs)
                n.replace_all_uses_with(new_node)
            traced.graph.erase_node(n)
    traced.recompile()
    out["replace_op"] = (traced, [torch.tensor([3, 6]), torch.tensor([5, 3])])

    # A Transformer that makes relu a sigmoid and doubles every multiplication.
    class Swap(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == torch.relu:
                target = torch.sigmoid
            result = super().call_function(target, args, kwargs)
            return result * 2 if target == operator.mul else result

    class N(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2).double()

        def forward(self, x):
            return torch.relu(self.lin(x)) * x

    n_mod = set_params(torch, N(), 3)
    out["transformer"] = (Swap(fx.symbolic_trace(n_mod)).transform(), [tensor(torch, (2, 2), 1)])

    # replace_pattern as in fx/subgraph_rewriter_basic_use.
    class R(torch.nn.Module):
        def forward(self, x, w1, w2):
            m1 = torch.cat([torch.neg(w1), w2]).sum()
            m2 = torch.cat([torch.neg(w1), w2]).sum()
            return x + torch.max(m1) + torch.max(m2)

    def pattern(a1, a2):
        return torch.cat([torch.neg(a1), a2]).sum()

    def replacement(w1, w2):
        return torch.stack([w1, w2])

    rewritten = fx.symbolic_trace(R())
    fx.replace_pattern(rewritten, pattern, replacement)
    out["replace_pattern"] = (rewritten, [tensor(torch, (2,), k) for k in range(3)])

    # Specialized arguments keep their parameters and are checked.
    def specialized(x, flag, n, s, z):
        return x * n if flag else x

    out["concrete_args"] = (fx.symbolic_trace(specialized, concrete_args={"flag": True, "n": 3, "s": "a", "z": None}),
                            [tensor(torch, (2,), 5), True, 3, "a", None])

    # Dead code, insert_before, node_copy and a graph built by hand.
    g = fx.Graph()
    x = g.placeholder("x")
    unused = g.call_function(torch.neg, (x,))
    r = g.call_method("relu", (x,))
    with g.inserting_before(r):
        s = g.call_function(torch.sin, (x,))
    t = g.call_function(operator.mul, (r, s))
    g.output((t, g.node_copy(s)))
    _ = unused
    g.eliminate_dead_code()
    g.lint()
    out["by_hand"] = (fx.GraphModule(torch.nn.Module(), g), [tensor(torch, (3,), 4)])
    return out


def errors(torch):
    """name -> callable raising fx's error."""
    fx = torch.fx

    def control_flow(x):
        return x if x.sum() > 0 else -x

    def iterate(x):
        return [v for v in x]

    def length(x):
        return len(x)

    def erase_used():
        g = fx.Graph()
        x = g.placeholder("x")
        y = g.call_function(torch.relu, (x,))
        g.output(y)
        g.erase_node(x)

    def lint_order():
        g = fx.Graph()
        x = g.placeholder("x")
        out = g.output(x)
        with g.inserting_before(out):
            a = g.call_function(torch.relu, (x,))
        with g.inserting_after(x):
            g.call_function(torch.neg, (a,))
        g.lint()

    return {"control_flow": lambda: fx.symbolic_trace(control_flow),
            "iterate": lambda: fx.symbolic_trace(iterate),
            "len": lambda: fx.symbolic_trace(length),
            "erase_used": erase_used,
            "lint_order": lint_order}


def capture(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return [type(e).__name__, str(e).split("\n")[0]]
    return None
