"""`rstorch.jit`: scripting and tracing return what they are given and it runs eagerly; what
needs a TorchScript archive says so."""
import pytest

import rstorch as torch


def test_script_and_trace_return_the_module_and_it_runs():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    x = torch.randn(2, 3)
    assert torch.jit.script(model) is model
    assert torch.jit.trace(model, x) is model
    assert torch.jit.trace(model, (x,)) is model
    assert torch.jit.trace_module(model, {"forward": x}) is model
    assert torch.jit.freeze(model) is model and torch.jit.optimize_for_inference(model) is model
    assert not isinstance(model, torch.jit.ScriptModule)
    assert model(x).shape == (2, 4)


def test_trace_runs_the_function_once_on_its_example():
    calls = []

    def double(t):
        calls.append(t.shape)
        return t * 2

    traced = torch.jit.trace(double, torch.ones(3))
    assert calls == [(3,)] and traced is double


def test_decorators_leave_functions_as_they_are():
    @torch.jit.script
    def scaled(x, k: int):
        return x * k

    @torch.jit.ignore
    def ignored(x):
        return x + 1

    @torch.jit.ignore(drop=True)
    def dropped(x):
        return x - 1

    assert scaled(torch.ones(2), 3).tolist() == [3.0, 3.0]
    assert ignored(1) == 2 and dropped(1) == 0
    assert torch.jit.unused(len) is len and torch.jit.export(len) is len
    assert torch.jit.is_scripting() is False and torch.jit.is_tracing() is False
    assert torch.jit.annotate(list, [1]) == [1]
    assert torch.jit.wait(torch.jit.fork(lambda a, b: a + b, 1, 2)) == 3
    with torch.jit.optimized_execution(False), torch.jit.fuser("fuser1"):
        pass


def test_archives_are_refused_with_a_pointer_to_rstorch_save(tmp_path):
    with pytest.raises(NotImplementedError, match="rstorch.save"):
        torch.jit.save(torch.nn.Linear(1, 1), str(tmp_path / "m.pt"))
    with pytest.raises(NotImplementedError, match="rstorch.load"):
        torch.jit.load(str(tmp_path / "m.pt"))
