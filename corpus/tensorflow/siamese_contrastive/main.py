"""Siamese network with a contrastive loss on synthetic clustered points.

Pairs of points are labelled "same" when both come from the same cluster. A shared encoder
embeds each side; the contrastive loss (Hadsell et al., 2006) pulls same pairs together and
pushes different pairs at least a margin apart. A closure warms the gradient scale up over
the first steps, and the training step counts its steps on the run's config object.
"""
import argparse
import dataclasses

import numpy as np
import tensorflow
from tensorflow.keras import layers

EPOCHS = 6


@dataclasses.dataclass
class Config:
    epochs: int = EPOCHS
    batch_size: int = 64
    step: int = 0


def make_clusters(n):
    rng = np.random.default_rng(11)
    centers = rng.normal(scale=1.0, size=(5, 8))
    labels = rng.integers(0, 5, size=n)
    x = centers[labels] + rng.normal(scale=0.9, size=(n, 8))
    return x.astype(np.float32), labels.astype(np.int32)


def make_pairs(x, labels, n_pairs):
    rng = np.random.default_rng(12)
    by_class = [np.flatnonzero(labels == c) for c in range(labels.max() + 1)]
    first = rng.integers(0, len(x), size=n_pairs)
    same = rng.random(n_pairs) < 0.5
    partner = np.array([rng.choice(by_class[labels[k]]) for k in first])
    second = np.where(same, partner, rng.integers(0, len(x), size=n_pairs))
    y = (labels[first] == labels[second]).astype(np.float32)
    return x[first], x[second], y


def build_encoder(input_dim, embed_dim):
    inputs = tensorflow.keras.Input(shape=(input_dim,))
    h = layers.Dense(32, activation="relu")(inputs)
    h = layers.Dense(embed_dim)(h)
    outputs = layers.UnitNormalization()(h)
    return tensorflow.keras.Model(inputs, outputs, name="encoder")


class SiameseNet(tensorflow.keras.Model):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def call(self, inputs):
        left, right = inputs
        return self.encoder(left), self.encoder(right)


def euclidean_distance(a, b):
    squared = tensorflow.reduce_sum(tensorflow.square(a - b), axis=-1)
    return tensorflow.sqrt(tensorflow.maximum(squared, 1e-9))


def contrastive_loss(y_same, dist, margin=1.0):
    pull = y_same * tensorflow.square(dist)
    push = (1.0 - y_same) * tensorflow.square(tensorflow.maximum(margin - dist, 0.0))
    return tensorflow.reduce_mean(pull + push)


def pair_accuracy(y_same, dist, threshold=0.5):
    pred_same = tensorflow.cast(dist < threshold, tensorflow.float32)
    return tensorflow.reduce_mean(tensorflow.cast(tensorflow.equal(pred_same, y_same),
                                                  tensorflow.float32))


def compute_gradients(model, xa, xb, y):
    with tensorflow.GradientTape() as tape:
        ea, eb = model((xa, xb))
        loss = contrastive_loss(y, euclidean_distance(ea, eb))
    return loss, tape.gradient(loss, model.trainable_variables)


def make_warmup(warmup_steps):
    step = 0

    def scale(grads):
        nonlocal step
        step += 1
        factor = min(1.0, step / warmup_steps)
        return [g * factor for g in grads]

    return scale


def train_step(model, optimizer, xa, xb, y, config, warmup):
    loss, grads = compute_gradients(model, xa, xb, y)
    optimizer.apply_gradients(zip(warmup(grads), model.trainable_variables))
    config.step += 1
    return loss


def embed(model, x):
    return model.encoder(x, training=False)


def nearest_neighbor_accuracy(emb, labels):
    sims = tensorflow.matmul(emb, emb, transpose_b=True)
    sims -= 3.0 * tensorflow.eye(tensorflow.shape(emb)[0])
    nearest = tensorflow.argmax(sims, axis=1, output_type=tensorflow.int32)
    hits = tensorflow.equal(tensorflow.gather(labels, nearest), labels)
    return tensorflow.reduce_mean(tensorflow.cast(hits, tensorflow.float32))


def main():
    tensorflow.keras.utils.set_random_seed(0)
    config = Config(epochs=EPOCHS)

    x, labels = make_clusters(400)
    xa, xb, y = make_pairs(x[:300], labels[:300], 512)
    ds = tensorflow.data.Dataset.from_tensor_slices((xa, xb, y))
    ds = ds.shuffle(512, seed=0).batch(config.batch_size)

    model = SiameseNet(build_encoder(8, 4))
    optimizer = tensorflow.keras.optimizers.Adam(learning_rate=0.01)
    warmup = make_warmup(10)
    for epoch in range(config.epochs):
        for xa_b, xb_b, y_b in ds:
            loss = train_step(model, optimizer, xa_b, xb_b, y_b, config, warmup)
        print(f"epoch {epoch}  step {config.step:3d}  loss {float(loss):.4f}")

    ta, tb, ty = make_pairs(x[300:], labels[300:], 256)
    ea, eb = model((tensorflow.constant(ta), tensorflow.constant(tb)))
    dist = euclidean_distance(ea, eb)
    test_loss = float(contrastive_loss(tensorflow.constant(ty), dist))
    test_acc = float(pair_accuracy(tensorflow.constant(ty), dist))
    emb = embed(model, tensorflow.constant(x[300:]))
    nn_acc = float(nearest_neighbor_accuracy(emb, tensorflow.constant(labels[300:])))
    print(f"test contrastive loss {test_loss:.4f}  pair acc {test_acc:.4f}  1-NN acc {nn_acc:.4f}")
    print("digest:", " ".join(f"{v:.4f}" for v in (
        float(loss), test_loss, test_acc, nn_acc, float(config.step))))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Siamese encoder with a contrastive loss.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = args.epochs
    main()
