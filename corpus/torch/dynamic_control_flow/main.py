"""Modules whose computation depends on the values of their tensors.

A gated residual block picks a branch from the batch mean, an adaptive-depth network stops
early when its update is small, a pondering loop runs until a halting budget is spent, a
masked mean selects elements with a boolean mask, and a recursive tree reduction halves its
input. The same model is also written branch-free (torch.where, clamp) for comparison.
"""
import argparse

import torch
from torch import nn

WIDTH = 16
STEPS = 40
BATCH_SIZE = 32
MAX_DEPTH = 4
TOLERANCE = 1e-2

torch.manual_seed(0)


class GatedBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.positive = nn.Linear(width, width)
        self.negative = nn.Linear(width, width)

    def forward(self, x):
        if x.mean() > 0:
            return x + torch.relu(self.positive(x))
        return x - torch.relu(self.negative(x))


class SmoothGatedBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.positive = nn.Linear(width, width)
        self.negative = nn.Linear(width, width)

    def forward(self, x):
        gate = (x.mean(dim=-1, keepdim=True) > 0).float()
        return x + gate * torch.relu(self.positive(x)) - (1 - gate) * torch.relu(self.negative(x))


class AdaptiveDepthNet(nn.Module):
    def __init__(self, width, max_depth, tolerance):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(max_depth))
        self.tolerance = tolerance

    def forward(self, x):
        for layer in self.layers:
            update = torch.tanh(layer(x)) * 0.1
            x = x + update
            if update.abs().max() < self.tolerance:
                break
        return x


def ponder(x, step_fn, budget):
    remaining = torch.ones(x.shape[0])
    steps = 0
    while remaining.sum() > budget:
        x = step_fn(x)
        remaining = remaining * torch.sigmoid(x.mean(dim=1))
        steps += 1
    return x, steps


def masked_mean(x, mask):
    return x[mask].mean()


def clipped_mean(x, limit):
    return torch.clamp(x, -limit, limit).mean()


def tree_sum(x):
    if x.shape[0] == 1:
        return x[0]
    half = x.shape[0] // 2
    return tree_sum(x[:half]) + tree_sum(x[half:2 * half])


def make_batch(batch_size):
    x = torch.randn(batch_size, WIDTH)
    target = torch.tanh(x.roll(1, dims=1))
    return x, target


def train(model, steps):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        x, target = make_batch(BATCH_SIZE)
        loss = nn.functional.mse_loss(model(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.detach()


def main():
    gated = nn.Sequential(GatedBlock(WIDTH), AdaptiveDepthNet(WIDTH, MAX_DEPTH, TOLERANCE))
    smooth = nn.Sequential(SmoothGatedBlock(WIDTH), nn.Linear(WIDTH, WIDTH))
    gated_loss = train(gated, STEPS)
    smooth_loss = train(smooth, STEPS)
    x, _ = make_batch(64)
    with torch.no_grad():
        pondered, steps = ponder(x, gated, budget=8.0)
        summary = masked_mean(pondered, pondered > 0) + clipped_mean(pondered, 1.0)
        total = tree_sum(smooth(x)).sum()
    print(f"ponder steps {steps}")
    print(f"digest: {gated_loss.item():.4f} {smooth_loss.item():.4f} {summary.item():.4f} "
          f"{total.item():.4f} {steps}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Data-dependent control flow.")
    parser.add_argument("--steps", type=int, default=STEPS, help="number of training steps")
    args = parser.parse_args()
    STEPS = int(args.steps)
    main()
