"""Recursive computations over tensors.

A tiny recursive (tree-structured) encoder scores random binary parse trees, a
recursive reduction computes the L2 penalty over a nested dict of weights, and a
Markov chain over the vocabulary is mixed with matrix powers by repeated squaring.
"""
import argparse
import random

import numpy as np
import tensorflow

VOCAB = 12
EMBED_DIM = 8
TEMPERATURE = 2.0
TRAIN_STEPS = 20

random.seed(0)
np.random.seed(0)
tensorflow.random.set_seed(0)

embeddings = tensorflow.random.stateless_normal([VOCAB, EMBED_DIM], seed=[1, 2], stddev=0.5)
composer = tensorflow.keras.layers.Dense(EMBED_DIM, activation="tanh")
readout = tensorflow.keras.layers.Dense(1)
composer.build((None, 2 * EMBED_DIM))
readout.build((None, EMBED_DIM))


def random_tree(depth):
    """Random binary tree of token ids (nested tuples)."""
    if depth == 0 or random.random() < 0.25:
        return random.randrange(VOCAB)
    return (random_tree(depth - 1), random_tree(depth - 1))


def tree_score(tree, depth):
    """Teacher signal: polarity of the tokens, discounted by depth."""
    if isinstance(tree, int):
        return (1.0 if tree < VOCAB // 2 else -1.0) * 0.8 ** depth
    return sum(tree_score(child, depth + 1) for child in tree)


def embed_leaves(tree):
    if isinstance(tree, int):
        return tensorflow.gather(embeddings, tree)
    return tuple(embed_leaves(child) for child in tree)


def compose(left, right):
    pair = tensorflow.concat([left, right], axis=-1)
    return composer(pair[None, :])[0]


def encode_tree(node):
    if isinstance(node, tuple):
        return encode_internal(node)
    return node


def encode_internal(node):
    left, right = node
    return compose(encode_tree(left), encode_tree(right))


def predict(forest):
    codes = tensorflow.stack([encode_tree(tree) for tree in forest])
    return readout(codes)[:, 0]


def tree_squared_norm(tree):
    if isinstance(tree, dict):
        return tree_squared_norm(list(tree.values()))
    if isinstance(tree, (list, tuple)):
        return tensorflow.add_n([tree_squared_norm(t) for t in tree])
    return tensorflow.reduce_sum(tensorflow.square(tree))


def train_step(forest, targets, optimizer):
    with tensorflow.GradientTape() as tape:
        predictions = predict(forest)
        weights = {"composer": composer.trainable_variables, "readout": readout.trainable_variables}
        mse = tensorflow.reduce_mean(tensorflow.square(predictions - targets))
        loss = mse + 1e-3 * tree_squared_norm(weights)
    variables = composer.trainable_variables + readout.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return mse


def similarity_transition(table):
    logits = tensorflow.matmul(table, table, transpose_b=True) / TEMPERATURE
    return tensorflow.nn.softmax(logits, axis=-1)


def matrix_power(matrix, n):
    """matrix ** n by repeated squaring (n is a Python int)."""
    if n == 0:
        return tensorflow.eye(tensorflow.shape(matrix)[0], dtype=matrix.dtype)
    if n % 2 == 0:
        half = matrix_power(matrix, n // 2)
        return tensorflow.matmul(half, half)
    return tensorflow.matmul(matrix, matrix_power(matrix, n - 1))


def total_variation(p, q):
    return 0.5 * tensorflow.reduce_sum(tensorflow.abs(p - q), axis=-1)


def main():
    id_forest = [random_tree(3) for _ in range(10)]
    targets = tensorflow.constant([tree_score(t, 0) for t in id_forest], dtype=tensorflow.float32)
    forest = [embed_leaves(t) for t in id_forest]

    optimizer = tensorflow.keras.optimizers.Adam(learning_rate=0.03)
    first_mse = train_step(forest, targets, optimizer)
    mse = first_mse
    for step in range(1, TRAIN_STEPS):
        mse = train_step(forest, targets, optimizer)
        if step % 5 == 0:
            print(f"step {step:2d}  mse {float(mse):.4f}")

    transition = similarity_transition(embeddings)
    p3 = matrix_power(transition, 3)
    p64 = matrix_power(transition, 64)
    mixing_gap = tensorflow.reduce_max(total_variation(p64[0], p64))
    early_gap = tensorflow.reduce_max(total_variation(p3[0], p3))
    print(f"mixing: TV after 3 steps {float(early_gap):.4f}, after 64 steps {float(mixing_gap):.2e}")
    checksum = float(tensorflow.reduce_sum(predict(forest)))
    print(
        f"digest: {float(first_mse):.4f} {float(mse):.4f} {checksum:.4f} "
        f"{float(early_gap):.4f} {float(tensorflow.reduce_max(p64)):.4f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Recursive tree encoder.")
    parser.add_argument("--steps", type=int, default=TRAIN_STEPS,
                        help="optimisation steps (default: %(default)s)")
    args = parser.parse_args()
    TRAIN_STEPS = int(args.steps)
    main()
