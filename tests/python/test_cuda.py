"""`rstorch.cuda` and friends: PyTorch's names for the GPU. Here (CI, lavapipe or no Vulkan) no
real GPU exists, so the namespace must behave as PyTorch's CPU-only build: the expected errors
are those of torch/cuda/__init__.py's `_lazy_init` in a build without CUDA, the warnings those of
torch/amp. Which adapter counts as a real GPU is unit-tested in Rust (src/wgpu/context.rs)."""
import subprocess
import sys
import warnings

import pytest

import rstorch as torch

NOT_COMPILED = "Torch not compiled with CUDA enabled"
pytestmark = pytest.mark.skipif(torch._C._cuda_device_count() > 0, reason="a real GPU is present")


def test_lavapipe_is_not_cuda():
    assert torch.cuda.is_available() is False
    assert torch.cuda.device_count() == 0
    assert torch.cuda.is_initialized() is False
    assert torch.accelerator.is_available() is False
    assert torch.accelerator.device_count() == 0
    assert torch.accelerator.current_accelerator() is None
    if torch.wgpu.is_available():  # lavapipe: a wgpu device, never a cuda one
        assert torch.zeros(2, device="wgpu").is_cuda is False


def test_typical_device_selection_runs_on_cpu():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert device == torch.device("cpu")
    torch.cuda.manual_seed(1)
    torch.cuda.manual_seed_all(1)
    torch.cuda.seed()
    torch.cuda.seed_all()
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.matmul.allow_tf32 = True
    model = torch.nn.Linear(3, 2)
    if torch.cuda.is_available():
        model.cuda()
    with torch.autocast(device_type="cpu", enabled=False):
        assert model(torch.ones(4, 3, device=device)).shape == (4, 2)


def test_cuda_device_objects_exist_without_a_gpu():
    d = torch.device("cuda")
    assert d.type == "cuda" and d.index is None and str(d) == "cuda"
    d1 = torch.device("cuda", 1)
    assert str(d1) == "cuda:1" and d1.index == 1 and repr(d1) == "device(type='cuda', index=1)"
    assert torch.device("cuda:0") == "cuda:0" and torch.device("cuda:0") != torch.device("wgpu:0")
    with pytest.raises(RuntimeError):
        torch.device("cuda:x")


@pytest.mark.parametrize("put", [
    lambda: torch.zeros(2, device="cuda"),
    lambda: torch.ones(2, device=torch.device("cuda:1")),
    lambda: torch.zeros(2).to("cuda"),
    lambda: torch.zeros(2).to(torch.device("cuda", 0)),
    lambda: torch.zeros(2).cuda(),
    lambda: torch.zeros(2).cuda(0),
    lambda: torch.nn.Linear(2, 2).cuda(),
    lambda: torch.nn.Linear(2, 2).to("cuda"),
])
def test_placing_on_cuda_raises_the_cpu_only_error(put):
    with pytest.raises(AssertionError, match=NOT_COMPILED):
        put()


@pytest.mark.parametrize("query", [
    torch.cuda.synchronize, torch.cuda.current_device, torch.cuda.get_device_name,
    torch.cuda.get_device_capability, torch.cuda.initial_seed, torch.cuda.init,
    lambda: torch.cuda.set_device(0), torch.accelerator.current_device_index,
])
def test_device_queries_raise_the_cpu_only_error(query):
    with pytest.raises(AssertionError, match=NOT_COMPILED):
        query()


def test_memory_counters_read_zero():
    assert torch.cuda.memory_allocated() == 0
    assert torch.cuda.max_memory_allocated() == 0
    assert torch.cuda.memory_reserved() == 0
    assert torch.cuda.max_memory_reserved() == 0
    assert torch.cuda.memory_stats() == {}
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.is_bf16_supported() is False


def test_backend_flags():
    assert torch.backends.cudnn.is_available() is False
    assert torch.backends.cudnn.enabled is True
    assert torch.backends.mps.is_available() is False
    import rstorch.backends.cudnn as cudnn
    assert cudnn is torch.backends.cudnn
    old = cudnn.benchmark
    cudnn.benchmark = True
    assert torch.backends.cudnn.benchmark is True
    cudnn.benchmark = old


def test_tensor_device_flags():
    t = torch.zeros(2)
    assert (t.is_cuda, t.is_xpu, t.is_mps) == (False, False, False)


def test_autocast_on_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        ac = torch.autocast(device_type="cuda")
    with ac:
        assert torch.is_autocast_enabled("cuda") is False
    with pytest.warns(FutureWarning, match="torch.cuda.amp.autocast"):
        with torch.cuda.amp.autocast(enabled=False):
            pass
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        torch.autocast(device_type=torch.device("cpu"))


def test_autocast_cpu_state_and_decorator():
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert torch.is_autocast_enabled("cpu")
        assert not torch.is_autocast_enabled("cpu")

        @torch.amp.autocast("cpu", enabled=False)
        def f(x):
            return torch.is_autocast_enabled("cpu"), x + 1
        assert f(torch.ones(1))[0] is False


def test_grad_scaler_is_disabled_without_a_gpu():
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        scaler = torch.amp.GradScaler()
    assert scaler.is_enabled() is False and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.weight.detach().clone()
    loss = model(torch.ones(3, 2)).sum()
    assert scaler.scale(loss) is loss
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert model.weight.tolist() != before.tolist()  # the step was taken
    with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
        torch.cuda.amp.GradScaler(enabled=False)


def test_enabled_cpu_grad_scaler_keeps_bookkeeping():
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    assert scaler.is_enabled() and scaler.get_scale() == 4.0
    scaler.update()
    scaler.update()
    assert scaler.get_scale() == 8.0
    other = torch.amp.GradScaler("cpu")
    other.load_state_dict(scaler.state_dict())
    assert other.get_scale() == 8.0 and other.get_growth_interval() == 2


def test_cuda_namespace_loads_lazily():
    code = "import sys, rstorch; assert 'rstorch.cuda' not in sys.modules and 'rstorch.amp' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
