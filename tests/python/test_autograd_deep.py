"""Deep autograd graphs are freed and back-propagated without recursion on the native stack.

Each case runs in a child process with a timeout, so a stack overflow (a signal) is a clean
test failure rather than the end of the test run. PyTorch runs every one of these programs."""
import subprocess
import sys
import textwrap


def run(code, timeout=60):
    code = "import rstorch as torch\n" + textwrap.dedent(code)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, check=False)
    assert r.returncode == 0, f"rc={r.returncode}\n{r.stdout}\n{r.stderr[-2000:]}"
    return r.stdout.split()


def test_million_node_chain_backward_and_free():
    out = run("""
        x = torch.ones(1, requires_grad=True)
        y = x
        for _ in range(1_000_000):
            y = y + 1
        print(y.item())
        y.backward()
        print(x.grad.item())
        del y
        print("freed")
    """)
    assert out == ["1000001.0", "1.0", "freed"]


def test_running_loss_kept_over_training_steps():
    # The classic mistake: `running_loss += loss` keeps every step's graph alive. PyTorch frees
    # that chain without a crash and refuses to back-propagate through it a second time (each
    # step's backward freed its saved tensors); so must rstorch.
    out = run("""
        model = torch.nn.Linear(1, 1, bias=False)
        x = torch.tensor([[0.5]])
        running_loss = 0
        for _ in range(150_000):
            loss = model(x).sum()
            loss.backward()
            running_loss = running_loss + loss
        print(type(running_loss.grad_fn).__name__)
        try:
            running_loss.backward()
        except RuntimeError as e:
            print("second-time" if "backward through the graph a second time" in str(e) else str(e))
        del running_loss, loss
        print("freed")
    """, timeout=120)
    assert out == ["AddBackward0", "second-time", "freed"]


def test_running_total_of_retained_graphs_backward():
    # Without the per-step backward the whole chain back-propagates.
    out = run("""
        w = torch.ones(1, requires_grad=True)
        total = 0
        for _ in range(150_000):
            total = total + (w * 2).sum()
        total.backward()
        print(w.grad.item())
        del total
        print("freed")
    """, timeout=120)
    assert out == ["300000.0", "freed"]


def test_long_inplace_chain():
    out = run("""
        x = torch.ones(1, requires_grad=True)
        y = x * 1
        for _ in range(300_000):
            y.add_(1)
        y.backward()
        print(y.item(), x.grad.item())
        del y
        print("freed")
    """)
    assert out == ["300001.0", "1.0", "freed"]


def test_long_inplace_chain_through_a_view():
    # Each write through a view records a CopySlices node over the base's history.
    out = run("""
        x = torch.ones(4, requires_grad=True)
        y = x * 1
        for _ in range(50_000):
            y[1:3].mul_(1.0)
        y.sum().backward()
        print(type(y.grad_fn).__name__, x.grad.tolist())
        del y
        print("freed")
    """)
    assert out == ["CopySlices", "[1.0,", "1.0,", "1.0,", "1.0]", "freed"]


def test_long_view_chain():
    out = run("""
        x = torch.ones(4, requires_grad=True)
        y = x * 1
        for _ in range(300_000):
            y = y.view(4)
        y.sum().backward()
        print(x.grad.tolist())
        del y
        print("freed")
    """)
    assert out == ["[1.0,", "1.0,", "1.0,", "1.0]", "freed"]


def test_chain_through_saved_tensors():
    # sin saves its input, whose grad_fn is the previous sin: freeing walks saved tensors too.
    out = run("""
        x = torch.zeros(1, requires_grad=True)
        y = x
        for _ in range(300_000):
            y = y.sin()
        del y
        print("freed")
    """)
    assert out == ["freed"]


def test_chain_of_python_functions():
    out = run("""
        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 2

        x = torch.ones(1, requires_grad=True)
        y = x
        for _ in range(50_000):
            y = Twice.apply(y) * 0.5
        y.backward()
        print(x.grad.item())
        del y
        print("freed")
    """)
    assert out == ["1.0", "freed"]


def test_deep_graph_walks_in_python_helpers():
    # rstorch.viz walks the graph without recursion (Python's own limit is 1000 frames).
    out = run("""
        import rstorch.viz
        x = torch.ones(1, requires_grad=True)
        y = x
        for _ in range(5000):
            y = y * 1.0
        dot = rstorch.viz.make_dot(y, params={"x": x})
        print(dot.source.count("MulBackward0"))
    """)
    assert out == ["5000"]


def test_deep_chain_with_anomaly_mode():
    out = run("""
        x = torch.ones(1, requires_grad=True)
        y = x
        for _ in range(200_000):
            y = y * 1.0
        with torch.autograd.detect_anomaly():
            y.backward()
        print(x.grad.item())
    """)
    assert out == ["1.0"]
