"""Three-class MLP on synthetic Gaussian blobs, trained with a hand-written PyTorch loop.

A DataLoader over a TensorDataset, nn.Sequential, Adam, and per-epoch logging of the mean
loss (collected with .item()) and the validation accuracy.
"""
import argparse

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 3
INPUT_DIM = 8
HIDDEN_UNITS = 32
EPOCHS = 4
BATCH_SIZE = 64

torch.manual_seed(0)
np.random.seed(0)

CENTERS = np.random.RandomState(1).normal(scale=0.8, size=(NUM_CLASSES, INPUT_DIM))


def make_blobs(num_samples, rng):
    labels = rng.integers(0, NUM_CLASSES, size=num_samples)
    features = CENTERS[labels] + rng.normal(scale=1.0, size=(num_samples, INPUT_DIM))
    return torch.from_numpy(features.astype(np.float32)), torch.from_numpy(labels.astype(np.int64))


def build_mlp(hidden_units, num_classes):
    return nn.Sequential(
        nn.Linear(INPUT_DIM, hidden_units),
        nn.ReLU(),
        nn.Linear(hidden_units, hidden_units),
        nn.ReLU(),
        nn.Linear(hidden_units, num_classes),
    )


def make_loader(features, labels, batch_size):
    generator = torch.Generator().manual_seed(0)
    return DataLoader(TensorDataset(features, labels), batch_size=batch_size, shuffle=True,
                      generator=generator)


def cross_entropy(logits, labels):
    return nn.functional.cross_entropy(logits, labels)


def accuracy(logits, labels):
    predictions = logits.argmax(dim=-1)
    return (predictions == labels).float().mean()


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    logits = model(x)
    loss = cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
    return loss.detach()


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        result = cross_entropy(logits, y), accuracy(logits, y)
    model.train()
    return result


def log_metrics(split, epoch, metrics):
    parts = [f"{name}={value:.4f}" for name, value in sorted(metrics.items())]
    print(f"[{split}] epoch {epoch:02d} " + " ".join(parts))


def train(model, optimizer, loader, x_val, y_val, epochs):
    history = []
    for epoch in range(1, epochs + 1):
        losses = []
        for xb, yb in loader:
            losses.append(train_step(model, optimizer, xb, yb).item())
        train_loss = sum(losses) / len(losses)
        val_loss, val_acc = evaluate(model, x_val, y_val)
        log_metrics("train", epoch, {"loss": train_loss})
        log_metrics("val", epoch, {"loss": val_loss.item(), "acc": val_acc.item()})
        history.append(train_loss)
    return history


def main():
    rng = np.random.default_rng(42)
    x_train, y_train = make_blobs(768, rng)
    x_val, y_val = make_blobs(256, rng)
    model = build_mlp(HIDDEN_UNITS, NUM_CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loader = make_loader(x_train, y_train, BATCH_SIZE)
    history = train(model, optimizer, loader, x_val, y_val, EPOCHS)
    val_loss, val_acc = evaluate(model, x_val, y_val)
    with torch.no_grad():
        probs = torch.softmax(model(x_val[:32]), dim=-1)
    checksum = probs.max(dim=-1).values.mean().item()
    print(f"digest: {history[-1]:.4f} {val_loss.item():.4f} {val_acc.item():.4f} {checksum:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="MLP on Gaussian blobs.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
