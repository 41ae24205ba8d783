#!/usr/bin/python3
"""The Python peer of `runner experiments/quickstart.toml`: one LeNet-5 epoch on Fashion-MNIST.

Does the same work as one runner epoch (framework/src/train/trainer.cpp), written the way a
student's PyTorch script would be:
  - the IDX gz files are read once into tensors, normalised like the runner's mnist plugin:
    (x/255 - mean)/std with the mean and std of the whole training set;
  - LeNet-5 as plugins/models/lenet5: conv 5x5 6 (pad 2), relu, maxpool 2, conv 5x5 16, relu,
    maxpool 2, 400 -> 120 -> 84 -> 10 with relu between;
  - Adam lr 1e-3, batches of 64 in a torch.randperm order; per batch zero_grad, forward,
    cross_entropy, backward, step, and the running loss and accuracy (loss.item(), as the runner);
  - then a test pass over the 10k test samples in batches of 1000 under no_grad.

Loading is not timed. Output, one `key=value` a line (times in seconds):
  train_s=...        the train pass (60k samples)
  epoch_s=...        train pass + test pass: what the runner writes as epochs/duration_s
  step_median_s=...  median wall time of one train step (batch + forward/backward/step + metrics)
  ... and the losses, accuracies and thread count.

Run it with /usr/bin/python3 (Debian's python3-torch: the libtorch the runner links).
"""
import argparse
import gzip
import os
import statistics
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """An IDX file (plain or .gz) as a numpy uint8 array of its declared shape."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype != 0x08:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    shape = struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def find_file(data_dir, stem):
    for name in (stem + ".gz", stem):
        path = os.path.join(data_dir, name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"no {stem}[.gz] in {data_dir}")


def load_split(data_dir, prefix):
    images = read_idx(find_file(data_dir, f"{prefix}-images-idx3-ubyte"))  # (N, 28, 28) uint8
    labels = read_idx(find_file(data_dir, f"{prefix}-labels-idx1-ubyte"))  # (N) uint8
    return images, labels


def load_data(data_dir):
    """(train_x, train_y, test_x, test_y): float32 (N, 1, 28, 28) normalised, int64 (N)."""
    train_images, train_labels = load_split(data_dir, "train")
    test_images, test_labels = load_split(data_dir, "t10k")
    scaled = train_images.astype(np.float64) / 255.0
    mean, std = scaled.mean(), scaled.std()  # population std, as the runner's plugin

    def inputs(images):
        x = torch.from_numpy(images.copy()).unsqueeze(1).float()  # (N, 1, 28, 28)
        return (x / 255.0 - mean) / std

    def targets(labels):
        return torch.from_numpy(labels.astype(np.int64))  # (N)

    return inputs(train_images), targets(train_labels), inputs(test_images), targets(test_labels)


class LeNet5(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # (N, 6, 14, 14)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # (N, 16, 5, 5)
        x = torch.flatten(x, 1)  # (N, 400)
        x = F.relu(self.fc1(x))  # (N, 120)
        x = F.relu(self.fc2(x))  # (N, 84)
        return self.fc3(x)  # (N, 10)


def train_pass(model, optimizer, x, y, batch_size):
    model.train()
    perm = torch.randperm(x.size(0))
    total_loss, correct, seen = 0.0, 0, 0
    step_times = []
    for start in range(0, x.size(0), batch_size):
        step_start = time.perf_counter()
        idx = perm[start : start + batch_size]
        xb, yb = x[idx], y[idx]
        optimizer.zero_grad()
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * yb.size(0)
        correct += (out.argmax(1) == yb).sum().item()
        seen += yb.size(0)
        step_times.append(time.perf_counter() - step_start)
    return total_loss / seen, correct / seen, step_times


def test_pass(model, x, y, batch_size):
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for start in range(0, x.size(0), batch_size):
            xb, yb = x[start : start + batch_size], y[start : start + batch_size]
            out = model(xb)
            total_loss += F.cross_entropy(out, yb).item() * yb.size(0)
            correct += (out.argmax(1) == yb).sum().item()
    return total_loss / x.size(0), correct / x.size(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=DEFAULT_DATA)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads (0: os.cpu_count(), as the runner)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--test-batch-size", type=int, default=1000)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    threads = args.threads if args.threads > 0 else (os.cpu_count() or 1)
    torch.set_num_threads(threads)
    torch.manual_seed(args.seed)

    train_x, train_y, test_x, test_y = load_data(args.data_dir)
    model = LeNet5()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    start = time.perf_counter()
    train_loss, train_acc, step_times = train_pass(model, optimizer, train_x, train_y,
                                                   args.batch_size)
    train_s = time.perf_counter() - start
    test_loss, test_acc = test_pass(model, test_x, test_y, args.test_batch_size)
    epoch_s = time.perf_counter() - start

    print(f"threads={torch.get_num_threads()}")
    print(f"openblas_num_threads={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"train_s={train_s:.4f}")
    print(f"epoch_s={epoch_s:.4f}")
    print(f"steps={len(step_times)}")
    print(f"step_median_s={statistics.median(step_times):.6f}")
    print(f"step_sum_s={sum(step_times):.4f}")
    print(f"train_loss={train_loss:.4f}")
    print(f"train_accuracy={train_acc:.4f}")
    print(f"test_loss={test_loss:.4f}")
    print(f"test_accuracy={test_acc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
