"""rstorch.fx against PyTorch's torch.fx: the modules and functions of tests/fx_cases.py traced
here give the node lists, generated code, graph text and outputs that tests/record_fx.py recorded
from PyTorch (fixtures/fx.json); likewise after graph edits, a Transformer and replace_pattern;
fx's errors. Then what needs no recording: the traced module computes what the module does,
Interpreter, Proxies made by hand, leaf modules, wrap, copies and pickling, and that the
wrappers fx puts on rstorch's functions are gone once tracing ends."""
import copy
import json
import math
import operator
import pathlib
import pickle
import subprocess
import sys

import pytest

import rstorch
import rstorch.fx as fx
import rstorch.nn as nn
import rstorch.nn.functional as F

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import fx_cases  # noqa: E402 (tests/ is put on the path just above)

REF = json.loads((TESTS / "fixtures" / "fx.json").read_text())
fx_cases.setup(rstorch)
MODULES = fx_cases.modules(rstorch)
EDITS = fx_cases.edits(rstorch)


def close(got, want):
    if isinstance(want, list) and want and isinstance(want[0], (list, dict)) or isinstance(want, dict):
        items = want.items() if isinstance(want, dict) else enumerate(want)
        for k, w in items:
            close(got[k], w)
        return
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert abs(g - w) <= 1e-10 * abs(w) + 1e-12, (g, w)
        return
    assert got == want


def check_record(got, want):
    assert got["nodes"] == want["nodes"]
    assert got["graph"] == want["graph"]
    assert got["code"] == want["code"]
    close(got["out"], want["out"])


@pytest.mark.parametrize("name", list(MODULES))
def test_traced_as_pytorch(name):
    root, inputs = MODULES[name]
    check_record(fx_cases.record(rstorch, fx.symbolic_trace(root), inputs), REF["traced"][name])


@pytest.mark.parametrize("name", list(MODULES))
def test_traced_module_computes_what_the_module_does(name):
    root, inputs = MODULES[name]
    gm = fx.symbolic_trace(root)
    close(fx_cases.flat(rstorch, gm(*inputs)), fx_cases.flat(rstorch, root(*inputs)))
    # The Interpreter runs the same graph node by node.
    close(fx_cases.flat(rstorch, fx.Interpreter(gm).run(*inputs)), fx_cases.flat(rstorch, root(*inputs)))


@pytest.mark.parametrize("name", list(EDITS))
def test_edits_as_pytorch(name):
    gm, inputs = EDITS[name]
    check_record(fx_cases.record(rstorch, gm, inputs), REF["edited"][name])


@pytest.mark.parametrize("name", list(REF["errors"]))
def test_errors_as_pytorch(name):
    assert fx_cases.capture(fx_cases.errors(rstorch)[name]) == REF["errors"][name]


def test_trace_error_is_a_value_error():
    assert issubclass(fx.proxy.TraceError, ValueError)


# ---- what needs no recording ----

def test_wrappers_only_while_tracing_or_a_proxy_lives():
    relu, cat, leaky = rstorch.relu, rstorch.cat, F.leaky_relu
    fx.symbolic_trace(lambda x: torch_relu_of(x))
    assert rstorch.relu is relu and rstorch.cat is cat and F.leaky_relu is leaky
    g = fx.Graph()
    p = fx.Proxy(g.placeholder("x"))
    assert rstorch.relu is not relu  # a live Proxy: calls on it must become nodes
    q = rstorch.relu(p)
    assert isinstance(q, fx.Proxy) and q.node.target is relu
    del p, q
    assert rstorch.relu is relu and F.leaky_relu is leaky and math.sqrt is math.sqrt


def torch_relu_of(x):
    return rstorch.relu(x)


def test_proxy_graph_by_hand():
    # pytorch/examples fx/proxy_based_graph_creation
    graph = fx.Graph()
    tracer = fx.proxy.GraphAppendingTracer(graph)
    y = fx.Proxy(graph.placeholder("x"), tracer)
    z = fx.Proxy(graph.placeholder("y"), tracer)
    c = rstorch.neg(rstorch.tanh(rstorch.cat([y, z])))
    graph.output(c.node)
    mod = fx.GraphModule(nn.Module(), graph)
    assert mod.code == ("\n\n\ndef forward(self, x, y):\n    cat = torch.cat([x, y]);  x = y = None\n"
                        "    tanh = torch.tanh(cat);  cat = None\n    neg = torch.neg(tanh);  tanh = None\n"
                        "    return neg\n    ")
    a, b = rstorch.tensor([0.5]), rstorch.tensor([-1.0])
    assert mod(a, b).tolist() == pytest.approx([-math.tanh(0.5), math.tanh(1.0)])


def test_inline_module_call_with_proxies():
    # pytorch/examples fx/inline_function: a leaf module called on Proxies records its functional form.
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(x) + 1.0

    m = fx.symbolic_trace(M())
    tracer = fx.proxy.GraphAppendingTracer(m.graph)
    for node in m.graph.nodes:
        if (node.op, node.target) == ("call_module", "relu"):
            with m.graph.inserting_before(node):
                args = fx.node.map_arg(node.args, lambda n: fx.Proxy(n, tracer))
                out = m.relu(*args)
                node.replace_all_uses_with(out.node)
                m.graph.erase_node(node)
    m.recompile()
    assert "torch.nn.functional.relu(x, inplace = False)" in m.code
    assert m(rstorch.tensor([-1.0, 2.0])).tolist() == [1.0, 3.0]


def test_custom_leaf_and_tracer_create_node():
    class Inner(nn.Module):
        def forward(self, x):
            return x * 3

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x) - 1

    class LeafTracer(fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, Inner) or super().is_leaf_module(m, qualname)

    assert [n.op for n in fx.symbolic_trace(Outer()).graph.nodes] == ["placeholder", "call_function",
                                                                       "call_function", "output"]
    root = Outer()
    gm = fx.GraphModule(root, LeafTracer().trace(root))
    assert [(n.op, n.target) for n in gm.graph.nodes][1] == ("call_module", "inner")
    assert gm(rstorch.tensor([2.0])).tolist() == [5.0]


def test_node_api():
    gm = fx.symbolic_trace(lambda x, y: rstorch.relu(x + y) * y)
    add, relu, mul = [n for n in gm.graph.nodes if n.op == "call_function"]
    x, y = [n for n in gm.graph.nodes if n.op == "placeholder"]
    assert add.next is relu and relu.prev is add and add.all_input_nodes == [x, y]
    assert list(y.users) == [add, mul] and add.target is operator.add
    add.replace_input_with(y, x)
    assert add.args == (x, x) and list(y.users) == [mul]
    with gm.graph.inserting_after(relu):
        neg = gm.graph.call_function(rstorch.neg, (relu,))
    assert relu.replace_all_uses_with(neg, delete_user_cb=lambda u: u is not neg) == [mul]
    gm.recompile()
    assert gm(rstorch.tensor([1.0]), rstorch.tensor([2.0])).tolist() == [-4.0]
    assert len(gm.graph.nodes) == 7 and [n.name for n in reversed(gm.graph.nodes)][0] == "output"
    assert neg.format_node() == "%neg : [num_users=1] = call_function[target=torch.neg](args = (%relu,), kwargs = {})"


def test_deepcopy_and_pickle_keep_code_and_values():
    root, inputs = MODULES["params"]
    gm = fx.symbolic_trace(root)
    for other in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm))):
        assert other.code == gm.code and type(other).__name__ == "Params"
        assert other(*inputs).tolist() == gm(*inputs).tolist()
        assert other.weight is not gm.weight


def test_str_and_print_readable(capsys):
    root, _ = MODULES["mlp"]
    gm = fx.symbolic_trace(root)
    assert str(gm).endswith(gm.code + "\n# To see more debug info, please use `graph_module.print_readable()`")
    text = gm.print_readable()
    assert text.startswith("class MLP(torch.nn.Module):\n    def forward(self, x):\n"
                           "        # No stacktrace found for following nodes\n")
    assert capsys.readouterr().out == text + "\n"


def test_print_tabular_needs_tabulate(capsys):
    gm = fx.symbolic_trace(lambda x: x + 1)
    try:
        import tabulate  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            gm.graph.print_tabular()
        assert "`print_tabular` relies on the library `tabulate`" in capsys.readouterr().out
    else:
        gm.graph.print_tabular()
        assert "opcode" in capsys.readouterr().out


def test_shape_prop():
    from rstorch.fx.passes.shape_prop import ShapeProp
    root, inputs = MODULES["mlp"]
    gm = fx.symbolic_trace(root)
    ShapeProp(gm).propagate(*inputs)
    meta = {n.name: n.meta["tensor_meta"] for n in gm.graph.nodes if "tensor_meta" in n.meta}
    assert tuple(meta["fc1"].shape) == (2, 5) and meta["fc1"].dtype == rstorch.float64


def test_fx_loads_lazily():
    code = "import sys, rstorch; assert 'rstorch.fx' not in sys.modules; rstorch.fx.symbolic_trace"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_transformer_calls_rstorch_functions_on_proxies():
    # torch.fx's documented Transformer example: compare targets with ==, call functions on Proxies.
    class NegSigmSwap(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == rstorch.sigmoid:
                return rstorch.neg(*args, **kwargs)
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                call_self, *rest = args
                return call_self.sigmoid(*rest, **kwargs)
            return super().call_method(target, args, kwargs)

    gm = NegSigmSwap(fx.symbolic_trace(lambda x: rstorch.sigmoid(x).neg())).transform()
    x = rstorch.tensor([0.5, -2.0])
    assert gm(x).tolist() == rstorch.neg(x).sigmoid().tolist()
    assert rstorch.sigmoid is type(x).sigmoid  # the originals are back


def test_small_graph_and_node_helpers():
    calls = []

    def log(v):
        calls.append(v)

    fx.has_side_effect(log)
    g = fx.Graph()
    x = g.placeholder("x")
    g.call_function(log, (x,))
    g.call_function(rstorch.neg, (x,))  # unused and pure: dead code
    add = g.call_function(operator.add, (x,))
    add.insert_arg(1, 10)
    g.output(add)
    assert g.output_node().op == "output" and add.args == (x, 10)
    assert g.eliminate_dead_code() and [n.name for n in g.nodes] == ["x", "log", "add", "output"]
    gm = fx.GraphModule({}, g)
    assert gm(rstorch.tensor([1.0])).tolist() == [11.0] and len(calls) == 1


def test_interpreter_overrides_and_initial_env():
    gm = fx.symbolic_trace(lambda x: rstorch.relu(x) + 1)

    class Double(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            return super().call_function(target, args, kwargs) * 2

    x = rstorch.tensor([-1.0, 2.0])
    assert Double(gm).run(x).tolist() == [2.0, 10.0]
    relu = next(n for n in gm.graph.nodes if n.target is rstorch.relu)
    assert fx.Interpreter(gm).run(x, initial_env={relu: rstorch.tensor([5.0, 5.0])}).tolist() == [6.0, 6.0]
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        fx.Interpreter(gm).run()


def scale_lowp(a, b):
    a, b = a.float(), b.float()
    return (a + b).half()


fx.wrap(scale_lowp)


def test_tracer_create_node_inlines_a_wrapped_function():
    # pytorch/examples fx/primitive_library's InliningTracer; the code is PyTorch's for the same program.
    class Foo(nn.Module):
        def forward(self, x, y):
            return scale_lowp(x, y)

    class InliningTracer(fx.Tracer):
        # Bound before tracing: while it runs the global name holds fx's wrapper (as in PyTorch).
        FNS_TO_INLINE = [scale_lowp]

        def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
            if kind == "call_function" and target in self.FNS_TO_INLINE:
                tracer = fx.proxy.GraphAppendingTracer(self.graph)
                proxy_args = fx.node.map_arg(args, lambda n: fx.Proxy(n, tracer))
                return target(*proxy_args).node
            return super().create_node(kind, target, args, kwargs, name, type_expr)

    wrapped = fx.symbolic_trace(Foo())
    assert wrapped.code.startswith('\ntorch.fx._symbolic_trace.wrap("test_fx_scale_lowp")\n\ndef forward')
    f = Foo()
    module = fx.GraphModule(f, InliningTracer().trace(f))
    assert module.code == ("\n\n\ndef forward(self, x, y):\n    float_1 = x.float();  x = None\n"
                           "    float_2 = y.float();  y = None\n    add = float_1 + float_2;  float_1 = float_2 = None\n"
                           "    half = add.half();  add = None\n    return half\n    ")
    x, y = rstorch.tensor([1.0], dtype=rstorch.float64), rstorch.tensor([2.0], dtype=rstorch.float64)
    assert module(x, y).dtype == rstorch.float16 and module(x, y).tolist() == [3.0]


def test_profiler_range_ops_are_recorded_and_kept():
    # The range that pytorch/examples fx/profiling_tracer's tracer puts around the traced code.
    gm = fx.symbolic_trace(lambda x: rstorch.relu(x))
    graph = gm.graph
    x = next(iter(graph.nodes))
    relu = x.next
    with graph.inserting_after(x):
        enter = graph.call_function(rstorch.ops.profiler._record_function_enter, ("foo",))
    with graph.inserting_after(relu):
        graph.call_function(rstorch.ops.profiler._record_function_exit, (enter,))
    graph.eliminate_dead_code()  # the range has effects: it stays
    gm.recompile()
    assert gm.code == ("\n\n\ndef forward(self, x):\n"
                       "    _record_function_enter = torch.ops.profiler._record_function_enter('foo')\n"
                       "    relu = torch.relu(x);  x = None\n"
                       "    _record_function_exit = torch.ops.profiler._record_function_exit(_record_function_enter);  "
                       "_record_function_enter = _record_function_exit = None\n    return relu\n    ")


def test_torch_assert_is_recorded():
    def f(x):
        rstorch._assert(x.sum() > 0, "positive")
        return x

    gm = fx.symbolic_trace(f)
    assert "torch._assert(gt, 'positive')" in gm.code
    with pytest.raises(AssertionError, match="positive"):
        gm(rstorch.tensor([-1.0]))
