"""The six parity models, defined once against whichever framework is passed in as `torch`, so
that tests/record_model_fixtures.py (PyTorch) and test_model_parity.py (rstorch) build the same
thing; plus the per-step batch shapes."""
import random


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class MnistNet(nn.Module):
        """The classic MNIST example network, log_softmax without a dim as in the original."""

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
            return F.log_softmax(x)

    class LeNet(nn.Module):
        """The LeNet of the "Neural Networks" tutorial (3x3 convolutions, 32x32 input)."""

        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 6 * 6, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, self.num_flat_features(x))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

        def num_flat_features(self, x):
            size = x.size()[1:]
            num_features = 1
            for s in size:
                num_features *= s
            return num_features

    class DynamicNet(nn.Module):
        """Reuses its middle layer a random 0-3 times per forward; `repeats` replays a draw."""

        def __init__(self, d_in=10, hidden=8, d_out=3):
            super().__init__()
            self.input_linear = nn.Linear(d_in, hidden)
            self.middle_linear = nn.Linear(hidden, hidden)
            self.output_linear = nn.Linear(hidden, d_out)

        def forward(self, x, repeats=None):
            if repeats is None:
                repeats = random.randint(0, 3)
            h_relu = self.input_linear(x).clamp(min=0)
            for _ in range(repeats):
                h_relu = self.middle_linear(h_relu).clamp(min=0)
            return self.output_linear(h_relu)

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                              nn.BatchNorm2d(cout))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + self.shortcut(x))

    class SmallResNet(nn.Module):
        def __init__(self, classes=5):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(8)
            self.layer1 = BasicBlock(8, 8)
            self.layer2 = BasicBlock(8, 16, stride=2)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(16, classes)

        def forward(self, x):
            x = F.relu(self.bn1(self.conv1(x)))
            x = self.layer2(self.layer1(x))
            return self.fc(torch.flatten(self.pool(x), 1))

    class TransformerClassifier(nn.Module):
        def __init__(self, d_model=16, classes=4):
            super().__init__()
            layer = nn.TransformerEncoderLayer(d_model, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2)
            self.head = nn.Linear(d_model, classes)

        def forward(self, x):
            return self.head(self.encoder(x).mean(1))

    class LSTMClassifier(nn.Module):
        def __init__(self, vocab=20, embed=8, hidden=12, classes=3):
            super().__init__()
            self.embedding = nn.Embedding(vocab, embed)
            self.lstm = nn.LSTM(embed, hidden, num_layers=2, batch_first=True)
            self.fc = nn.Linear(hidden, classes)

        def forward(self, tokens):
            _, (h_n, _) = self.lstm(self.embedding(tokens))
            return self.fc(h_n[-1])

    return {"mnist": MnistNet, "lenet": LeNet, "dynamic": DynamicNet, "resnet": SmallResNet,
            "transformer": TransformerClassifier, "lstm": LSTMClassifier}


# Per model: train or eval mode for the numeric comparison, the loss, and how to draw one batch.
# Batch kinds: ("f", shape) normal floats; ("i", shape, high) int64 in [0, high).
SPECS = {
    "mnist": {"train": False, "loss": "nll", "input": ("f", (4, 1, 28, 28)), "target": ("i", (4,), 10)},
    "lenet": {"train": True, "loss": "mse", "input": ("f", (2, 1, 32, 32)), "target": ("f", (2, 10))},
    "dynamic": {"train": True, "loss": "mse_sum", "input": ("f", (4, 10)), "target": ("f", (4, 3))},
    "resnet": {"train": True, "loss": "cross_entropy", "input": ("f", (4, 3, 8, 8)), "target": ("i", (4,), 5)},
    "transformer": {"train": True, "loss": "cross_entropy", "input": ("f", (3, 5, 16)),
                    "target": ("i", (3,), 4)},
    "lstm": {"train": True, "loss": "cross_entropy", "input": ("i", (4, 6), 20), "target": ("i", (4,), 3)},
}
STEPS = 3
LR = 0.01
MOMENTUM = 0.9
# Tensors larger than this are recorded in full only initially and after the last step; after
# the other steps a fixed prefix plus sum and sum of squares is kept (the fixture stays small).
FULL_LIMIT = 10000
PREFIX = 2000


def loss_fn(torch, kind, output, target):
    F = torch.nn.functional
    if kind == "nll":
        return F.nll_loss(output, target)
    if kind == "mse":
        return torch.nn.MSELoss()(output, target)
    if kind == "mse_sum":
        return torch.nn.MSELoss(reduction="sum")(output, target)
    return F.cross_entropy(output, target)


def draw(spec, rng):
    import numpy as np
    if spec[0] == "f":
        return rng.standard_normal(spec[1]).astype(np.float32)
    return rng.integers(0, spec[2], spec[1]).astype(np.int64)
