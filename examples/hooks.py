"""Module hooks and tensor hooks, and the order they run in:
__call__ -> forward pre-hooks -> forward -> forward hooks, then backward hooks during backward
(`python examples/hooks.py`)."""
import rstorch as torch


def main():
    events = []
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    layer = model[0]
    layer.register_forward_pre_hook(lambda m, inp: events.append("forward pre-hook"))
    layer.register_forward_hook(lambda m, inp, out: events.append(f"forward hook: output {tuple(out.shape)}"))
    layer.register_full_backward_hook(
        lambda m, grad_in, grad_out: events.append(f"backward hook: grad_output {tuple(grad_out[0].shape)}"))
    x = torch.randn(2, 4, requires_grad=True)
    x.register_hook(lambda g: events.append(f"tensor hook on the input: grad {tuple(g.shape)}"))
    model(x).sum().backward()
    for e in events:
        print(e)
    return events


if __name__ == "__main__":
    main()
