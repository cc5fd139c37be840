"""Elementwise results, clone, `.to(dtype)` and the `*_like` factories keep their inputs' memory
order as PyTorch lays them out (src/result_layout.rs): the strides and values PyTorch gives for
transposed, permuted, sliced, broadcast and mixed-layout inputs (fixtures/layout.json, written
by tests/record_layout.py from the cases of tests/layout_cases.py); gradients through such
results (gradcheck); views, reshapes, numpy and save/load of them; and the wgpu results."""
import io
import json
import pathlib
import sys

import pytest

import rstorch
from rstorch.autograd import gradcheck

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import layout_cases  # noqa: E402 (tests/ is put on the path just above)

FIXTURE = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "layout.json").read_text())


def _env():
    env = {"torch": rstorch}
    exec(layout_cases.SETUP, env)
    return env


@pytest.mark.parametrize("case", FIXTURE, ids=[c["name"] for c in FIXTURE])
def test_strides_and_values_match_pytorch(case):
    rstorch.manual_seed(0)
    y = eval(case["expr"], _env())
    assert list(y.shape) == case["shape"]
    assert str(y.dtype).split(".")[-1] == case["dtype"]
    assert list(y.stride()) == case["stride"], case["expr"]
    assert y.is_contiguous() == case["is_contiguous"]
    if case["values"] is not None:
        assert y.tolist() == case["values"]


def test_transposed_results_run_as_contiguous_storage():
    x = rstorch.randn(64, 48).t()
    y = x.exp()
    assert y.stride() == (1, 48)
    # The storage is the input's storage mapped elementwise, in the same order.
    assert y.t().contiguous().view(-1).tolist() == x.t().contiguous().view(-1).exp().tolist()
    # A view PyTorch refuses on such a result is refused here; reshape copies.
    with pytest.raises(RuntimeError):
        y.view(-1)
    assert y.reshape(-1).tolist() == x.reshape(-1).exp().tolist()


@pytest.mark.parametrize("make", [
    lambda: rstorch.randn(5, 4, dtype=rstorch.float64).t(),
    lambda: rstorch.randn(2, 3, 4, dtype=rstorch.float64).permute(2, 0, 1),
    lambda: rstorch.randn(2, 3, 4, 5, dtype=rstorch.float64).permute(0, 2, 3, 1),
    lambda: rstorch.randn(6, 5, dtype=rstorch.float64).t()[::2],
], ids=["t", "p3", "channels_last", "sliced_t"])
def test_gradients_through_permuted_results(make):
    x = make().requires_grad_()
    other = make()
    assert gradcheck(lambda a: (a.sin() * a.transpose(0, 1).transpose(0, 1) + a.exp()).tanh(), (x,))
    assert gradcheck(lambda a: rstorch.where(other > 0, a * 2, -a) / (a.abs() + 1), (x,))
    assert gradcheck(lambda a: (a.clone() + other).sigmoid().to(rstorch.float64), (x,))
    y = (x * 3).exp()
    y.sum().backward()
    assert rstorch.allclose(x.grad, 3 * (x * 3).exp().detach())


def test_numpy_save_and_tolist_of_permuted_results():
    x = rstorch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)
    y = x * 2
    assert y.stride() == (1, 12, 4)
    assert (y.numpy() == x.numpy() * 2).all()
    buf = io.BytesIO()
    rstorch.save(y, buf)
    buf.seek(0)
    z = rstorch.load(buf)
    assert z.tolist() == y.tolist()


def test_clone_memory_formats():
    x = rstorch.zeros(2, 3, 4, 5)
    assert x.clone(memory_format=rstorch.channels_last).stride() == (60, 1, 15, 3)
    assert x.permute(0, 2, 3, 1).clone(memory_format=rstorch.contiguous_format).is_contiguous()
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        rstorch.zeros(3, 4).clone(memory_format=rstorch.channels_last)
    assert repr(rstorch.preserve_format) == "torch.preserve_format"
    assert isinstance(rstorch.contiguous_format, rstorch.memory_format)


def test_like_factories_keep_requires_grad_and_dtype():
    x = rstorch.zeros(3, 4).t()
    y = rstorch.zeros_like(x, requires_grad=True)
    assert y.requires_grad and y.is_leaf and y.stride() == (1, 4)
    assert rstorch.ones_like(x, dtype=rstorch.int32).dtype == rstorch.int32
    assert rstorch.empty_like(x, memory_format=rstorch.contiguous_format).stride() == (3, 1)


needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")


@needs_gpu
@pytest.mark.parametrize("expr", ["x.t().exp()", "x.t() + x.t()", "x.t() * 2 - x.t().contiguous()",
                                  "rstorch.where(x.t() > 0, x.t(), 0.)", "x.t().clone()"])
def test_wgpu_results_have_the_cpu_values(expr):
    x = rstorch.randn(33, 17)
    want = eval(expr, {"x": x, "rstorch": rstorch})
    got = eval(expr, {"x": x.to("wgpu"), "rstorch": rstorch})
    assert got.shape == want.shape
    assert rstorch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-6)
