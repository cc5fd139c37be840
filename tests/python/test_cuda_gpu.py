"""`rstorch.cuda` on a real GPU: `cuda` names the wgpu adapter, so a program written for CUDA runs
there unchanged. These tests skip without a real GPU (CI, lavapipe); `benches/gpu_device.sh` runs
them on a lent GPU. Their CPU-only counterparts are in test_cuda.py."""
import numpy as np
import pytest

import rstorch as torch

pytestmark = pytest.mark.skipif(torch._C._cuda_device_count() == 0, reason="no real GPU")


def test_namespace_reports_the_gpu():
    assert torch.cuda.is_available() is True
    assert torch.cuda.device_count() >= 1
    assert torch.cuda.is_initialized() is True
    assert torch.cuda.current_device() == 0
    assert torch.cuda.get_device_name() == torch.wgpu.get_device_name()
    assert torch.cuda.get_device_name(0) == torch.cuda.get_device_properties(0).name
    assert torch.accelerator.is_available() is True
    assert torch.accelerator.device_count() == torch.cuda.device_count()
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.cuda.get_device_name(torch.cuda.device_count())


@pytest.mark.parametrize("put", [
    lambda x: x.cuda(),
    lambda x: x.to("cuda"),
    lambda x: x.to("cuda:0"),
    lambda x: x.to(torch.device("cuda", 0)),
    lambda x: torch.tensor(x.tolist(), device="cuda"),
])
def test_tensors_placed_on_cuda_live_on_the_gpu(put):
    x = put(torch.arange(6.0).reshape(2, 3))
    assert x.is_cuda and x.device.type == "wgpu" and x.device.index == 0
    np.testing.assert_array_equal(x.cpu().numpy(), np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert not x.cpu().is_cuda


def test_creation_functions_take_cuda():
    for t in (torch.zeros(3, device="cuda"), torch.ones(2, 2, device=torch.device("cuda")),
              torch.randn(4, device="cuda:0"), torch.arange(5, device="cuda"),
              torch.empty(2, device="cuda").fill_(1.5), torch.full((2,), 3.0, device="cuda")):
        assert t.is_cuda


def test_mixed_cuda_and_cpu_operands_raise_pytorchs_error():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(2, device="cuda") + torch.ones(2)


def test_typical_training_loop_matches_the_cpu():
    """The `device = 'cuda' if torch.cuda.is_available() else 'cpu'` program of most tutorials."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert device.type == "cuda"
    torch.cuda.manual_seed_all(0)
    torch.backends.cudnn.benchmark = True
    results = {}
    for where in ("cpu", device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                    torch.nn.Linear(4 * 6 * 6, 10)).to(where)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        gen = np.random.default_rng(1)
        data = torch.tensor(gen.standard_normal((16, 1, 8, 8)).astype(np.float32))
        target = torch.tensor(gen.integers(0, 10, 16))
        losses = []
        for _ in range(3):
            x, y = data.to(where), target.to(where)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results[str(where)] = (losses, [p.detach().cpu().numpy() for p in model.parameters()])
    (cpu_losses, cpu_params), (gpu_losses, gpu_params) = results["cpu"], results["cuda"]
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-3, atol=1e-3)
    for g, c in zip(gpu_params, cpu_params):
        np.testing.assert_allclose(g, c, rtol=1e-3, atol=1e-3)


def test_module_cuda_and_back():
    model = torch.nn.Linear(3, 2).cuda()
    assert all(p.is_cuda for p in model.parameters())
    assert model(torch.ones(1, 3, device="cuda")).is_cuda
    model.cpu()
    assert not any(p.is_cuda for p in model.parameters())


def test_synchronize_and_memory_counters():
    x = torch.ones(1024, 1024, device="cuda")
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() >= x.numel() * 4
    assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
    assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated()
    del x
    torch.cuda.empty_cache()
    assert isinstance(torch.cuda.memory_stats(), dict)


def test_autocast_and_grad_scaler_on_the_gpu_run_a_step():
    model = torch.nn.Linear(8, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    x = torch.randn(5, 8, device="cuda")
    with torch.autocast(device_type="cuda"):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    assert np.isfinite(loss.item())
    assert all(p.grad is not None and p.grad.is_cuda for p in model.parameters())
