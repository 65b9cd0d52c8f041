"""A regression training script written like research code, with the usual habits.

A Trainer object counts its steps and logs every few steps with `logging` and `.item()`; the
model counts its own forward calls; a warm-up weight scales the loss per epoch; inference is
timed with the wall clock; gradient norms are printed; an exponential moving average of the
weights is kept; a checkpoint is written to a temporary directory.
"""
import argparse
import logging
import os
import tempfile
import time

import torch
from torch import nn

logger = logging.getLogger("trainer")

INPUT_DIM = 6
EPOCHS = 4
BATCHES_PER_EPOCH = 12
BATCH_SIZE = 48
LOG_EVERY = 10
EMA_DECAY = 0.9

torch.manual_seed(0)

TRUE_WEIGHTS = torch.linspace(-1.0, 1.0, INPUT_DIM)


def make_batch(batch_size):
    x = torch.randn(batch_size, INPUT_DIM)
    y = torch.sin(x @ TRUE_WEIGHTS).unsqueeze(-1) + 0.05 * torch.randn(batch_size, 1)
    return x, y


class CountingRegressor(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(INPUT_DIM, hidden), nn.SiLU(), nn.Linear(hidden, 1))
        self.forward_calls = 0

    def forward(self, x):
        self.forward_calls += 1
        return self.body(x)


def compute_loss(model, x, y):
    return nn.functional.smooth_l1_loss(model(x), y)


def warmup_weight(epoch, epochs):
    return min(1.0, (epoch + 1) / epochs)


def scaled_loss(loss, weight):
    return loss * weight


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.global_step = 0
        self.history = []

    def step(self, x, y, weight):
        self.optimizer.zero_grad()
        loss = scaled_loss(compute_loss(self.model, x, y), weight)
        loss.backward()
        self.optimizer.step()
        self.global_step += 1
        if self.global_step % LOG_EVERY == 0:
            logger.info("step %d loss %.4f", self.global_step, loss.item())
        self.history.append(loss.detach())
        return loss.detach()


def ema_update(ema_model, model, decay):
    with torch.no_grad():
        for ema_param, param in zip(ema_model.parameters(), model.parameters()):
            ema_param.mul_(decay).add_(param, alpha=1.0 - decay)


def gradient_norm(model):
    norms = [p.grad.norm() for p in model.parameters() if p.grad is not None]
    total = torch.stack(norms).norm()
    print(f"gradient norm {total.item():.4f}")
    return total


def timed_predict(model, x):
    start = time.perf_counter()
    with torch.no_grad():
        prediction = model(x)
    elapsed = time.perf_counter() - start
    return prediction, elapsed


def save_checkpoint(model, directory, epoch):
    path = os.path.join(directory, f"model_{epoch}.pt")
    torch.save(model.state_dict(), path)
    return path


def main():
    logging.basicConfig(level=logging.WARNING)
    model = CountingRegressor(hidden=32)
    ema_model = CountingRegressor(hidden=32)
    ema_model.load_state_dict(model.state_dict())
    trainer = Trainer(model, lr=0.05)
    x_test, y_test = make_batch(256)
    with tempfile.TemporaryDirectory() as directory:
        for epoch in range(EPOCHS):
            weight = warmup_weight(epoch, EPOCHS)
            for _ in range(BATCHES_PER_EPOCH):
                x, y = make_batch(BATCH_SIZE)
                trainer.step(x, y, weight)
                ema_update(ema_model, model, EMA_DECAY)
            gradient_norm(model)
            save_checkpoint(model, directory, epoch)
    prediction, _ = timed_predict(ema_model, x_test)
    test_loss = nn.functional.mse_loss(prediction, y_test).item()
    final = torch.stack(trainer.history[-BATCHES_PER_EPOCH:]).mean().item()
    print(f"digest: {final:.4f} {test_loss:.4f} {model.forward_calls}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Regression with research-code habits.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
