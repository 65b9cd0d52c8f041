"""LSTM forecaster on noisy sine waves: predict the next value from a window of 24 steps.

Windows are cut from NumPy series, the model is nn.LSTM plus a linear head on the last
hidden state, and training uses gradient clipping and a step learning-rate schedule. The
evaluation rolls the model forward autoregressively for a fixed horizon.
"""
import argparse

import numpy as np
import torch
from torch import nn

WINDOW = 24
HIDDEN = 32
EPOCHS = 4
BATCH_SIZE = 64
HORIZON = 12

torch.manual_seed(0)


def make_series(length, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(length, dtype=np.float32)
    return np.sin(0.2 * t) + 0.5 * np.sin(0.05 * t) + rng.normal(scale=0.1, size=length)


def make_windows(series, window):
    starts = range(len(series) - window)
    inputs = np.stack([series[s:s + window] for s in starts])
    targets = np.array([series[s + window] for s in starts])
    return (torch.tensor(inputs, dtype=torch.float32).unsqueeze(-1),
            torch.tensor(targets, dtype=torch.float32).unsqueeze(-1))


class Forecaster(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size=1, hidden_size=hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, 1)

    def forward(self, window):
        outputs, _ = self.lstm(window)
        return self.head(outputs[:, -1, :])


def train_batch(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    return loss.detach()


def rollout(model, context, steps):
    window = context.clone()
    predictions = []
    with torch.no_grad():
        for _ in range(steps):
            next_value = model(window)
            predictions.append(next_value)
            window = torch.cat([window[:, 1:, :], next_value.unsqueeze(1)], dim=1)
    return torch.cat(predictions, dim=1)


def fit(model, inputs, targets, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    order = torch.randperm(len(inputs), generator=torch.Generator().manual_seed(0))
    losses = []
    for epoch in range(epochs):
        epoch_loss = torch.zeros(())
        for start in range(0, len(inputs), BATCH_SIZE):
            idx = order[start:start + BATCH_SIZE]
            epoch_loss += train_batch(model, optimizer, inputs[idx], targets[idx])
        scheduler.step()
        losses.append(float(epoch_loss) / (len(inputs) // BATCH_SIZE + 1))
        print(f"epoch {epoch}: mse {losses[-1]:.5f} lr {scheduler.get_last_lr()[0]:.5f}")
    return losses


def main():
    series = make_series(400, seed=3)
    inputs, targets = make_windows(series[:300], WINDOW)
    model = Forecaster(HIDDEN)
    losses = fit(model, inputs, targets, EPOCHS)
    context = torch.tensor(series[300 - WINDOW:300], dtype=torch.float32).view(1, WINDOW, 1)
    forecast = rollout(model, context, HORIZON)
    truth = torch.tensor(series[300:300 + HORIZON], dtype=torch.float32)
    error = (forecast.squeeze(0) - truth).abs().mean().item()
    print(f"digest: {losses[-1]:.4f} {error:.4f} {forecast.sum().item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="LSTM sine forecaster.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
