"""Small convolutional classifier on synthetic 16x16 stripe images.

Three classes (horizontal, vertical, diagonal stripes) with Gaussian noise; a two-block CNN
with batch normalisation, random horizontal flips as augmentation, SGD with momentum.
"""
import argparse

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

IMAGE_SIZE = 16
NUM_CLASSES = 3
EPOCHS = 3
BATCH_SIZE = 32

torch.manual_seed(0)


def make_stripes(num_images, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, NUM_CLASSES, size=num_images)
    rows, cols = np.meshgrid(np.arange(IMAGE_SIZE), np.arange(IMAGE_SIZE), indexing="ij")
    patterns = np.stack([np.sin(rows * 1.3), np.sin(cols * 1.3), np.sin((rows + cols) * 0.9)])
    images = patterns[labels] + rng.normal(scale=2.0, size=(num_images, IMAGE_SIZE, IMAGE_SIZE))
    images = torch.tensor(images[:, None, :, :], dtype=torch.float32)
    return images, torch.tensor(labels, dtype=torch.long)


class SmallCNN(nn.Module):
    def __init__(self, channels, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(channels, 2 * channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(2 * channels),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(2 * channels * (IMAGE_SIZE // 4) ** 2, num_classes)

    def forward(self, images):
        features = self.features(images)
        return self.classifier(torch.flatten(features, start_dim=1))


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def random_flip(images):
    flip = torch.rand(images.shape[0], 1, 1, 1) < 0.5
    return torch.where(flip, images.flip(-1), images)


def train_epoch(model, optimizer, loader, loss_fn):
    model.train()
    total, batches = 0.0, 0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(random_flip(images)), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
    return total / batches


def predict(model, images):
    model.eval()
    with torch.no_grad():
        return model(images).argmax(dim=1)


def main():
    x_train, y_train = make_stripes(320, seed=1)
    x_test, y_test = make_stripes(128, seed=2)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=BATCH_SIZE, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = SmallCNN(channels=8, num_classes=NUM_CLASSES)
    print(f"parameters: {count_parameters(model)}")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(EPOCHS):
        loss = train_epoch(model, optimizer, loader, loss_fn)
        print(f"epoch {epoch}: loss {loss:.4f}")
    predictions = predict(model, x_test)
    accuracy = (predictions == y_test).float().mean().item()
    weight_norm = model.classifier.weight.norm().item()
    print(f"digest: {loss:.4f} {accuracy:.4f} {weight_norm:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="CNN on synthetic stripes.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
