#!/usr/bin/python3
"""The Python peer of experiments/mnist_lenet_augmented.toml: one augmented LeNet-5 epoch.

Written the way the seeds' scripts do it: a torchvision-style Dataset that turns each 28x28
image into a PIL image and runs a per-sample transform (RandomAffine(15, translate (0.1, 0.1),
scale (0.8, 1.2)), ToTensor, Normalize(0.1307, 0.3081)), a DataLoader (batch 64, shuffle,
`--num-workers` worker processes), LeNet-5 and Adam 1e-3 as in lenet_epoch.py; then a test pass
over the 10k test images (ToTensor and Normalize only, batches of 1000).

Reading the IDX files is not timed; building the DataLoader iterator (starting the workers)
is, as it is part of every epoch of such a script. Output, one `key=value` a line (seconds):
  train_s, epoch_s (train + test pass), data_wait_s (time the loop waited for the loader in the
  train pass), and the losses and accuracies.

Run it with /usr/bin/python3 (Debian's python3-torch and python3-torchvision).
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lenet_epoch import DEFAULT_DATA, LeNet5, load_split  # noqa: E402

MEAN, STD = 0.1307, 0.3081


class IdxImages(Dataset):
    """What torchvision.datasets.MNIST.__getitem__ does: a PIL image per sample, transformed."""

    def __init__(self, images, labels, transform):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = Image.fromarray(self.images[i], mode="L")
        return self.transform(image), int(self.labels[i])


def train_pass(model, optimizer, loader):
    model.train()
    total_loss, correct, seen, wait = 0.0, 0, 0, 0.0
    fetch_start = time.perf_counter()
    for xb, yb in loader:
        wait += time.perf_counter() - fetch_start
        optimizer.zero_grad()
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * yb.size(0)
        correct += (out.argmax(1) == yb).sum().item()
        seen += yb.size(0)
        fetch_start = time.perf_counter()
    return total_loss / seen, correct / seen, wait


def test_pass(model, loader):
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            total_loss += F.cross_entropy(out, yb).item() * yb.size(0)
            correct += (out.argmax(1) == yb).sum().item()
            seen += yb.size(0)
    return total_loss / seen, correct / seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=DEFAULT_DATA)
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads (0: os.cpu_count(), as the runner)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.set_num_threads(args.threads if args.threads > 0 else (os.cpu_count() or 1))
    torch.manual_seed(args.seed)
    normalize = [transforms.ToTensor(), transforms.Normalize((MEAN,), (STD,))]
    augment = transforms.Compose(
        [transforms.RandomAffine(15, translate=(0.1, 0.1), scale=(0.8, 1.2))] + normalize)
    train = IdxImages(*load_split(args.data_dir, "train"), augment)
    test = IdxImages(*load_split(args.data_dir, "t10k"), transforms.Compose(normalize))
    train_loader = DataLoader(train, batch_size=64, shuffle=True, num_workers=args.num_workers)
    test_loader = DataLoader(test, batch_size=1000, num_workers=args.num_workers)
    model = LeNet5()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    start = time.perf_counter()
    train_loss, train_acc, wait = train_pass(model, optimizer, train_loader)
    train_s = time.perf_counter() - start
    test_loss, test_acc = test_pass(model, test_loader)
    epoch_s = time.perf_counter() - start

    print(f"num_workers={args.num_workers}")
    print(f"train_s={train_s:.4f}")
    print(f"epoch_s={epoch_s:.4f}")
    print(f"data_wait_s={wait:.4f}")
    print(f"train_loss={train_loss:.4f}")
    print(f"train_accuracy={train_acc:.4f}")
    print(f"test_loss={test_loss:.4f}")
    print(f"test_accuracy={test_acc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
