"""HY108 has_python_side_effects: advances an iterator it was given."""

from __future__ import annotations

from . import Check


class IteratorSideEffect(Check):
    """Advances an iterator that the function did not create.

    What it detects
    ---------------
    `next(it)` (or `it.__next__()`) on an iterator or generator that the function received
    as a parameter or reads from module level or an enclosing function, in the function or
    in any user function it calls. Iterators the function creates itself do not count.

    Why it matters in graph mode
    ----------------------------
    A Python iterator is advanced while tracing: the element it yields becomes a constant of
    the graph, and later calls reuse that same element without advancing the iterator. A
    loop that was meant to consume a new batch on every step trains on the first batch
    forever, and the iterator ends up one element ahead of where the eager code would be.

    Example
    -------
        def train_step(batches):
            x, y = next(batches)
            return compute_loss(x, y)

    Instead
    -------
    Advance the iterator in the eager caller and pass the element in, or feed the function
    from a `tf.data.Dataset`:

        @tf.function
        def train_step(x, y):
            return compute_loss(x, y)

        for x, y in dataset:
            train_step(x, y)
    """

    code = "HY108"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Advances an iterator it was given, which happens only while tracing."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # The eager caller iterates and passes the elements.
        """\
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices(tf.ones((8, 3))).batch(4)


def f(x):
    return tf.reduce_mean(x, axis=0)


for batch in dataset:
    f(batch)
""",
        # An iterator created inside the call.
        """\
import tensorflow as tf


def f(xs):
    first = next(iter(xs))
    return tf.add_n(xs) / tf.cast(tf.shape(first)[0], tf.float32)


f([tf.ones((2, 3)), tf.zeros((2, 3))])
""",
    )
    INVALID = (
        # A generator of batches passed in.
        """\
import numpy as np
import tensorflow as tf


def noise_batches():
    while True:
        yield np.full((4, 3), 0.1, dtype=np.float32)


def f(x, noise_source):
    noise = next(noise_source)
    return x + noise


f(tf.ones((4, 3)), noise_batches())
""",
        # A module-level iterator.
        """\
import tensorflow as tf

offsets = iter([tf.constant(0.0), tf.constant(1.0), tf.constant(2.0)])


def f(x):
    return x + next(offsets)


f(tf.ones((2, 3)))
""",
        # A helper advances the iterator the function was given.
        """\
import tensorflow as tf


def take(it):
    return next(it)


def f(x, weights):
    return tf.matmul(x, take(weights))


f(tf.ones((2, 3)), iter([tf.ones((3, 4)), tf.zeros((3, 4))]))
""",
    )
