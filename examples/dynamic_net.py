"""A dynamic graph built by plain Python control flow, with weight sharing: the middle layer
is reused a random number of times on every forward pass (`python examples/dynamic_net.py`)."""
import random

import rstorch as torch


class DynamicNet(torch.nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super().__init__()
        self.input_linear = torch.nn.Linear(d_in, hidden)
        self.middle_linear = torch.nn.Linear(hidden, hidden)
        self.output_linear = torch.nn.Linear(hidden, d_out)

    def forward(self, x):
        h = self.input_linear(x).clamp(min=0)
        # The same Linear (the same weights) 0 to 3 times: the graph differs per call.
        for _ in range(random.randint(0, 3)):
            h = self.middle_linear(h).clamp(min=0)
        return self.output_linear(h)


def main(steps=300):
    random.seed(0)
    torch.manual_seed(0)
    x, y = torch.randn(64, 100), torch.randn(64, 10)
    model = DynamicNet(100, 50, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    losses = []
    for step in range(steps):
        loss = torch.nn.functional.mse_loss(model(x), y, reduction="sum")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % 100 == 99:
            print(f"step {step + 1}: loss {loss.item():.2f}")
    return losses


if __name__ == "__main__":
    main()
