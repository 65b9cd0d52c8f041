"""Wasserstein GAN with gradient penalty on a ring of eight 2-D Gaussians.

Separate critic and generator steps with their own Adam optimizers, five critic steps per
generator step, and the WGAN-GP penalty computed with torch.autograd.grad.
"""
import argparse
import math

import torch
from torch import nn

NOISE_DIM = 8
HIDDEN = 64
BATCH_SIZE = 128
STEPS = 40
CRITIC_STEPS = 5
PENALTY_WEIGHT = 10.0

torch.manual_seed(0)


def sample_ring(batch_size, generator):
    modes = torch.randint(0, 8, (batch_size,), generator=generator)
    angles = modes.float() * (2 * math.pi / 8)
    centers = torch.stack([torch.cos(angles), torch.sin(angles)], dim=1) * 2.0
    return centers + 0.05 * torch.randn(batch_size, 2, generator=generator)


def sample_noise(batch_size, noise_dim):
    return torch.randn(batch_size, noise_dim)


def mlp(input_dim, output_dim):
    return nn.Sequential(nn.Linear(input_dim, HIDDEN), nn.ReLU(),
                         nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                         nn.Linear(HIDDEN, output_dim))


class Generator(nn.Module):
    def __init__(self, noise_dim):
        super().__init__()
        self.net = mlp(noise_dim, 2)

    def forward(self, noise):
        return self.net(noise)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp(2, 1)

    def forward(self, points):
        return self.net(points).squeeze(-1)


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.shape[0], 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    grads, = torch.autograd.grad(scores.sum(), mixed, create_graph=True)
    return ((grads.norm(dim=1) - 1.0) ** 2).mean()


def critic_step(critic, generator, critic_opt, real):
    fake = generator(sample_noise(real.shape[0], NOISE_DIM)).detach()
    loss = critic(fake).mean() - critic(real).mean()
    loss = loss + PENALTY_WEIGHT * gradient_penalty(critic, real, fake)
    critic_opt.zero_grad()
    loss.backward()
    critic_opt.step()
    return loss.detach()


def generator_step(critic, generator, generator_opt, batch_size):
    fake = generator(sample_noise(batch_size, NOISE_DIM))
    loss = -critic(fake).mean()
    generator_opt.zero_grad()
    loss.backward()
    generator_opt.step()
    return loss.detach()


def mode_coverage(samples):
    angles = torch.atan2(samples[:, 1], samples[:, 0])
    modes = torch.round(angles / (2 * math.pi / 8)).long() % 8
    return torch.bincount(modes, minlength=8).float() / samples.shape[0]


def main():
    data_generator = torch.Generator().manual_seed(1)
    generator, critic = Generator(NOISE_DIM), Critic()
    generator_opt = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
    for iteration in range(STEPS):
        for _ in range(CRITIC_STEPS):
            critic_loss = critic_step(critic, generator, critic_opt,
                                      sample_ring(BATCH_SIZE, data_generator))
        generator_loss = generator_step(critic, generator, generator_opt, BATCH_SIZE)
        if iteration % 10 == 0:
            print(f"iteration {iteration}: critic {critic_loss.item():.4f} "
                  f"generator {generator_loss.item():.4f}")
    with torch.no_grad():
        samples = generator(sample_noise(1024, NOISE_DIM))
    coverage = mode_coverage(samples)
    radius = samples.norm(dim=1).mean().item()
    print(f"digest: {critic_loss.item():.4f} {generator_loss.item():.4f} {radius:.4f} "
          f"{coverage.max().item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="WGAN-GP on a ring of Gaussians.")
    parser.add_argument("--steps", type=int, default=STEPS,
                        help="number of generator iterations")
    args = parser.parse_args()
    STEPS = int(args.steps)
    main()
