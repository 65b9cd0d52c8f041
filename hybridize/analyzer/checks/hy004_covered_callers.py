"""HY004 has_covered_callers: every caller already runs as a graph."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class HasCoveredCallers(Check):
    """Every caller of the function already runs as a graph.

    What it detects
    ---------------
    A function without `@tf.function` all of whose known callers are already traced: they
    are decorated with `@tf.function`, are callbacks that `tf.data` traces
    (`Dataset.map`, `filter`, ...), are the `train_step`/`test_step`/`predict_step` of a
    Keras Model (Keras compiles them in `fit`/`evaluate`/`predict` unless the project sets
    `run_eagerly`), or are themselves only called from such code; a callback of
    `tf.map_fn`, `tf.cond`, `tf.while_loop` or `strategy.run` runs in its caller's mode and
    counts as called by it. Module level code and tests are eager callers; one of them is
    enough to make this not apply.
    This is an eligibility note, not a hazard.

    Why it matters in graph mode
    ----------------------------
    A function called while its caller is being traced is traced along with it: its
    operations already end up in the caller's graph. A decorator of its own adds nothing but
    a nested function boundary (a separate trace cache, a call op in the outer graph) and
    can get in the way of optimisations across that boundary.

    Example
    -------
        def augment(image, label):
            return tf.image.random_flip_left_right(image), label

        dataset = dataset.map(augment)   # tf.data traces augment already

    Instead
    -------
    Keep the helper plain. Put `@tf.function` on the outermost function that is called
    eagerly, for example the training step that calls the helper:

        def dense_relu(x, w):
            return tf.nn.relu(tf.matmul(x, w))

        @tf.function
        def train_step(x, w):
            return tf.reduce_sum(dense_relu(x, w))

    Under torch.compile
    -------------------
    A function only called from compiled code is traced inline by Dynamo: its own decorator
    adds nothing.
    """

    code = "HY004"
    unblock = "nothing here: the outermost eagerly called function is the one to compile"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_covered_callers"
    severity = "info"
    summary = "Every caller already runs as a graph; its own decorator would add nothing."
    EXAMPLE_FUNCTION = "f"
