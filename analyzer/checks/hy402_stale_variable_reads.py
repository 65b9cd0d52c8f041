"""HY402 has_stale_variable_reads: trainable_variables read before the model is built."""

from __future__ import annotations

from . import Check


class HasStaleVariableReads(Check):
    """Reads a model's variables before the model's first call in the function.

    What it detects
    ---------------
    A function that reads `model.trainable_variables` (or `trainable_weights`, `variables`)
    before it first calls the model, and feeds that list to `tape.gradient`,
    `optimizer.apply_gradients` or `optimizer.minimize`. Keras creates a model's weights on
    its first call, so the list read before it may be empty or incomplete.

    Why it matters in graph mode
    ----------------------------
    Eagerly, only the first step sees the empty list; every later step reads the built
    weights afresh. In a graph the list is read while tracing and frozen into the graph, and
    TensorFlow traces a function that creates variables more than once on its first call.
    Which list each trace captures, and so which variables the compiled step differentiates
    and updates, then depends on tracing internals instead of on the program. In practice
    the compiled step updates the weights on the first call where the eager step did not,
    and the two runs diverge from there.

    Example
    -------
        def train_step(x, y):
            variables = model.trainable_variables     # empty before the first call
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))

    Instead
    -------
    Read the variables after the forward pass, and build the model eagerly (call it once or
    `model.build(input_shape)`) before the first traced call:

        model.build((None, 3))

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
    """

    code = "HY402"
    name = "has_stale_variable_reads"
    severity = "error"
    summary = "Reads model.trainable_variables before the model's first call and trains on them."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # Variables read after the forward pass.
        """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)


def f(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


f(tf.ones((4, 3)), tf.zeros((4, 1)))
""",
        # Plain variables exist before any call: nothing to go stale.
        """\
import tensorflow as tf

w = tf.Variable(tf.random.normal((3, 1)))
b = tf.Variable(tf.zeros((1,)))
optimizer = tf.keras.optimizers.SGD(0.01)


def f(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    grads = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b]))
    return loss


f(tf.ones((4, 3)), tf.zeros((4, 1)))
""",
    )
    INVALID = (
        # The variable list is read before the model's first call and differentiated.
        """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def f(x, y):
    variables = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, variables)
    for grad, variable in zip(grads, variables):
        variable.assign_sub(0.1 * grad)
    return loss


for _ in range(3):
    f(tf.ones((4, 3)), tf.ones((4, 1)))
""",
        # The same with a layer's trainable_weights.
        """\
import tensorflow as tf

dense = tf.keras.layers.Dense(1)


def f(x, y):
    weights = dense.trainable_weights
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(dense(x) - y))
    grads = tape.gradient(loss, weights)
    for grad, weight in zip(grads, weights):
        weight.assign_sub(0.1 * grad)
    return loss


for _ in range(3):
    f(tf.ones((4, 3)), tf.ones((4, 1)))
""",
    )
