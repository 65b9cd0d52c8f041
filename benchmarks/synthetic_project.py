"""Generate a synthetic TensorFlow project shaped like real code, of a given size in lines.

Modules import each other (absolute and relative), define Keras layers and models with
`call`, losses, training steps with GradientTape, tf.data pipelines, training loops that print
and log, and NumPy data helpers. Deterministic for a given seed, so runs compare.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

MODULE_TEMPLATE = '''\
"""Module {name}: part of a synthetic training project."""
import logging
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras

from {pkg} import {dep1} as dep_a
from {pkg}.{dep2} import scale_{dep2}, Block_{dep2}
from .{dep3} import normalize_{dep3}

logger = logging.getLogger(__name__)
HISTORY_{name} = []


class Block_{name}(keras.layers.Layer):
    def __init__(self, units={units}, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return tf.nn.relu(tf.matmul(inputs, self.kernel) + self.bias)


class Model_{name}(keras.Model):
    def __init__(self, hidden={units}, classes={classes}):
        super().__init__()
        self.block = Block_{name}(hidden)
        self.other = Block_{dep2}(hidden)
        self.head = keras.layers.Dense(classes)

    def build(self, input_shape):
        self.block.build(input_shape)
        self.other.build((input_shape[0], self.block.units))
        self.head.build((input_shape[0], self.other.units))

    def call(self, x, training=False):
        h = self.block(x)
        h = self.other(h)
        if training:
            h = tf.nn.dropout(h, rate=0.1)
        return self.head(h)


def scale_{name}(x, factor):
    return x * tf.cast(factor, x.dtype)


def normalize_{name}(x):
    mean = tf.reduce_mean(x, axis=0, keepdims=True)
    std = tf.math.reduce_std(x, axis=0, keepdims=True)
    return (x - mean) / (std + 1e-6)


def loss_{name}(labels, logits):
    per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.reduce_mean(per_example)


def accuracy_{name}(labels, logits):
    predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))


def train_step_{name}(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        logits = model(normalize_{dep3}(x), training=True)
        loss = loss_{name}(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, accuracy_{name}(y, logits)


def eval_step_{name}(model, x, y):
    logits = model(dep_a.normalize_{dep1}(x), training=False)
    return loss_{name}(y, logits)


def make_data_{name}(n, dim={dim}):
    rng = np.random.default_rng({seed})
    x = rng.normal(size=(n, dim)).astype(np.float32)
    y = rng.integers(0, {classes}, size=n).astype(np.int32)
    return x, y


def make_dataset_{name}(x, y, batch_size):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    return ds.shuffle(256, seed={seed}).batch(batch_size)


def log_epoch_{name}(epoch, loss):
    logger.info("epoch %d loss %.4f", epoch, loss)
    HISTORY_{name}.append(loss)


def train_{name}(epochs=2):
    x, y = make_data_{name}(512)
    dataset = make_dataset_{name}(x, y, 32)
    model = Model_{name}()
    optimizer = keras.optimizers.Adam(1e-3)
    start = time.time()
    for epoch in range(epochs):
        losses = []
        for bx, by in dataset:
            loss, acc = train_step_{name}(model, optimizer, bx, by)
            losses.append(float(loss))
        log_epoch_{name}(epoch, sum(losses) / len(losses))
        print("epoch", epoch, "took", time.time() - start)
    scaled = scale_{dep2}(tf.ones((4, {dim})), 2.0)
    return eval_step_{name}(model, x, y), scaled


def summarize_{name}(values):
    total = 0.0
    for value in values:
        total += value
    return total / max(len(values), 1)


def power_{name}(m, k):
    if k == 0:
        return tf.eye(tf.shape(m)[0])
    half = power_{name}(m, k // 2)
    return tf.matmul(half, half) if k % 2 == 0 else tf.matmul(m, tf.matmul(half, half))


if __name__ == "__main__":
    train_{name}()
'''


def generate(root: Path, total_lines: int, seed: int = 0) -> int:
    """Write the project below root; returns the number of lines written."""
    rng = random.Random(seed)
    package = root / "synthproj"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Synthetic project."""\n', encoding="utf-8")
    per_module = MODULE_TEMPLATE.count("\n") + 1
    count = max(3, total_lines // per_module)
    names = [f"m{i:04d}" for i in range(count)]
    written = 1
    for i, name in enumerate(names):
        deps = rng.sample([n for n in names if n != name], 3)
        text = MODULE_TEMPLATE.format(
            name=name,
            pkg="synthproj",
            dep1=deps[0],
            dep2=deps[1],
            dep3=deps[2],
            units=rng.choice([16, 32, 64]),
            classes=rng.choice([2, 4, 10]),
            dim=rng.choice([8, 16, 32]),
            seed=i,
        )
        (package / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
        written += text.count("\n")
    return written


def write_large_module(root: Path, total_lines: int, name: str = "large", seed: int = 1) -> Path:
    """Write one module of about `total_lines` lines into the project `generate` wrote below
    root (an editor's large file: one header, then the template's definitions again and again
    under distinct names, each with its own imports of other modules); returns its path.

    Its definitions use the project's other modules as the generated modules do; no module
    imports it.
    """
    rng = random.Random(seed)
    package = root / "synthproj"
    others = sorted(p.stem for p in package.glob("m*.py"))
    if len(others) < 3:
        raise ValueError("generate the project first: the large module imports its modules")
    parts: list[str] = []
    written = 0
    index = 0
    while written < total_lines:
        deps = rng.sample(others, 3)
        text = MODULE_TEMPLATE.format(
            name=f"{name}{index:03d}",
            pkg="synthproj",
            dep1=deps[0],
            dep2=deps[1],
            dep3=deps[2],
            units=rng.choice([16, 32, 64]),
            classes=rng.choice([2, 4, 10]),
            dim=rng.choice([8, 16, 32]),
            seed=seed * 1000 + index,
        )
        if index:  # the docstring and standard imports once; each part's own project imports
            text = text[text.index(f"from synthproj import {deps[0]}") :]
            text = text.replace("dep_a", f"dep_{index:03d}").replace(
                "logger = logging.getLogger(__name__)\n", ""
            )
        text = text.split('\nif __name__ == "__main__":\n', 1)[0]
        parts.append(text)
        written += text.count("\n")
        index += 1
    path = package / f"{name}.py"
    path.write_text("".join(parts), encoding="utf-8")
    return path
