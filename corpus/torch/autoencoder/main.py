"""Denoising autoencoder on synthetic 64-dimensional signals.

Signals are mixtures of four smooth basis curves; the encoder compresses them to an 8-unit
code, the decoder reconstructs the clean signal from a noisy copy. An L1 sparsity penalty on
the code is added to the reconstruction loss.
"""
import argparse

import numpy as np
import torch
from torch import nn

SIGNAL_DIM = 64
CODE_DIM = 8
EPOCHS = 5
BATCH_SIZE = 64
NOISE_STD = 0.3
SPARSITY_WEIGHT = 1e-3

torch.manual_seed(0)


def make_signals(num_signals, seed):
    rng = np.random.default_rng(seed)
    grid = np.linspace(0.0, 1.0, SIGNAL_DIM)
    basis = np.stack([np.sin(2 * np.pi * k * grid) for k in (1, 2, 3)] + [grid ** 2])
    weights = rng.normal(size=(num_signals, basis.shape[0]))
    return torch.tensor(weights @ basis, dtype=torch.float32)


class Encoder(nn.Module):
    def __init__(self, input_dim, code_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_dim, 32), nn.Tanh(), nn.Linear(32, code_dim))

    def forward(self, x):
        return self.net(x)


class Decoder(nn.Module):
    def __init__(self, code_dim, output_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(code_dim, 32), nn.Tanh(), nn.Linear(32, output_dim))

    def forward(self, code):
        return self.net(code)


class Autoencoder(nn.Module):
    def __init__(self, input_dim, code_dim):
        super().__init__()
        self.encoder = Encoder(input_dim, code_dim)
        self.decoder = Decoder(code_dim, input_dim)

    def forward(self, x):
        code = self.encoder(x)
        return self.decoder(code), code


def add_noise(x, std):
    return x + std * torch.randn_like(x)


def loss_fn(reconstruction, target, code):
    mse = nn.functional.mse_loss(reconstruction, target)
    return mse + SPARSITY_WEIGHT * code.abs().mean()


def train_epoch(model, optimizer, data, batch_size):
    permutation = torch.randperm(data.shape[0])
    total = torch.zeros(())
    for start in range(0, data.shape[0], batch_size):
        clean = data[permutation[start:start + batch_size]]
        reconstruction, code = model(add_noise(clean, NOISE_STD))
        loss = loss_fn(reconstruction, clean, code)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total = total + loss.detach() * clean.shape[0]
    return total / data.shape[0]


def reconstruction_error(model, data):
    with torch.no_grad():
        reconstruction, _ = model(data)
        return (reconstruction - data).pow(2).mean(dim=1)


def main():
    train_data = make_signals(640, seed=1)
    test_data = make_signals(128, seed=2)
    model = Autoencoder(SIGNAL_DIM, CODE_DIM)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(EPOCHS):
        loss = train_epoch(model, optimizer, train_data, BATCH_SIZE)
        print(f"epoch {epoch}: loss {loss.item():.5f}")
    errors = reconstruction_error(model, test_data)
    print(f"digest: {loss.item():.4f} {errors.mean().item():.4f} {errors.max().item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Denoising autoencoder.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
