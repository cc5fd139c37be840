"""Results are bitwise identical on 1 and 2 threads (reductions use a fixed blocking)."""
import numpy as np
import pytest

import rstorch


@pytest.fixture
def threads():
    """Runs a function under a given thread count, restoring the count afterwards."""
    before = rstorch.get_num_threads()

    def run(n, f):
        rstorch.set_num_threads(n)
        assert rstorch.get_num_threads() == n
        return f().numpy().copy()
    yield run
    rstorch.set_num_threads(before)


def _data(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rstorch.from_numpy(rng.standard_normal(shape).astype(np.float32))


REDUCTIONS = {
    "sum_all": lambda x: x.sum(),
    "sum_dim0": lambda x: x.sum(0),
    "sum_dim1": lambda x: x.sum(1),
    "sum_dims": lambda x: x.sum((0, 2)),
    "mean_all": lambda x: x.mean(),
    "mean_dim": lambda x: x.mean(-1, keepdim=True),
    "var_all": lambda x: x.var(),
    "var_dim": lambda x: x.var(1),
    "norm_all": lambda x: x.norm(),
    "norm_dim": lambda x: x.norm(dim=(1, 2)),
    "sum_strided": lambda x: x.transpose(0, 2).sum(1),
    "amax_dim": lambda x: x.amax(0),
    "logsumexp": lambda x: x.logsumexp(2),
    "cumsum": lambda x: x.cumsum(1),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_bitwise_identical(threads, name):
    x = _data(64, 129, 33)
    f = REDUCTIONS[name]
    one = threads(1, lambda: f(x))
    two = threads(2, lambda: f(x))
    assert one.tobytes() == two.tobytes()


def test_long_sum_bitwise_identical(threads):
    x = _data(3_000_001, seed=1)
    one = threads(1, lambda: x.sum())
    two = threads(2, lambda: x.sum())
    assert one.tobytes() == two.tobytes()
    assert abs(float(one) - float(x.numpy().astype(np.float64).sum())) < 1e-2


@pytest.mark.parametrize("make", [
    lambda: (_data(300, 500), _data(500, 200, seed=1)),
    lambda: (_data(300, 500).t().contiguous().t(), _data(500, 200, seed=1)),
    lambda: (_data(8, 64, 96), _data(8, 96, 40, seed=1)),
    # Split into bands of rows on two threads: a transposed left operand, and odd sizes.
    lambda: (_data(256, 512).t(), _data(256, 784, seed=1)),
    lambda: (_data(333, 257), _data(257, 129, seed=1)),
    # Bands of at most 64 rows by at most 64 columns, with k past 512: gemm blocks k
    # differently for such small products than for the whole one.
    lambda: (_data(70, 1000), _data(1000, 64, seed=1)),
    lambda: (_data(100, 784), _data(784, 10, seed=1)),
    lambda: (_data(120, 600), _data(600, 10, seed=1).t().contiguous().t()),
])
def test_matmul_bitwise_identical(threads, make):
    a, b = make()
    one = threads(1, lambda: a @ b)
    two = threads(2, lambda: a @ b)
    assert one.tobytes() == two.tobytes()
    np.testing.assert_allclose(one, a.numpy() @ b.numpy(), rtol=1e-3, atol=1e-3)


def test_elementwise_bitwise_identical(threads):
    x = _data(1000, 1000)
    one = threads(1, lambda: (x * 2 + 1).exp().sigmoid())
    two = threads(2, lambda: (x * 2 + 1).exp().sigmoid())
    assert one.tobytes() == two.tobytes()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_runs_parallel_kernels():
    import os
    x = rstorch.rand(600, 600)
    (x @ x).sum()  # the parent's pool is running
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: a parallel matmul and a parallel reduction must finish
        try:
            ok = bool(torch_allclose(x @ x, x @ x)) and (x + 1).sum().item() > 0
            os.write(w, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(w)
    import select
    ready, _, _ = select.select([r], [], [], 60)
    assert ready, "the forked child hung on a parallel kernel"
    assert os.read(r, 1) == b"1"
    os.waitpid(pid, 0)


def torch_allclose(a, b):
    return (a - b).abs().max().item() < 1e-3
