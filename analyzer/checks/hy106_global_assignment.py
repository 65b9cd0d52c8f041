"""HY106 has_python_side_effects: assignment to a global or nonlocal variable."""

from __future__ import annotations

from . import Check


class GlobalAssignmentSideEffect(Check):
    """Assigns a variable declared `global` or `nonlocal`.

    What it detects
    ---------------
    An assignment (plain, augmented or annotated, or a `del`) to a name the function
    declares `global` or `nonlocal`, in the function or in any user function it calls.

    Why it matters in graph mode
    ----------------------------
    Python assignments run while tracing. A counter incremented in a traced function counts
    traces, not calls; a global that stores a tensor ends up holding a symbolic tensor of a
    finished graph, and using it outside that graph fails with "tf.Graph captured an
    external symbolic tensor" or an out-of-scope error.

    Example
    -------
        steps = 0

        def train_step(x, y):
            global steps
            steps += 1
            return compute_loss(x, y)

    Instead
    -------
    Keep state in a `tf.Variable` and update it with `assign` / `assign_add`, which are graph
    operations that run on every call; or return the value and update Python state in the
    eager caller:

        steps = tf.Variable(0, dtype=tf.int64)

        @tf.function
        def train_step(x, y):
            steps.assign_add(1)
            return compute_loss(x, y)
    """

    code = "HY106"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Assigns a global or nonlocal variable, which happens only while tracing."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # A tf.Variable updated by a graph operation.
        """\
import tensorflow as tf

steps = tf.Variable(0, dtype=tf.int64)


def f(x):
    steps.assign_add(1)
    return tf.reduce_sum(x)


f(tf.ones((2, 3)))
""",
        # A local of the same name shadows the global: nothing outside changes.
        """\
import tensorflow as tf

scale = 2.0


def f(x):
    scale = tf.reduce_max(tf.abs(x))
    return x / scale


f(tf.ones((2, 3)))
""",
        # Reading a module-level constant is fine.
        """\
import tensorflow as tf

EPSILON = 1e-7


def f(x):
    return tf.math.log(x + EPSILON)


f(tf.ones((2, 3)))
""",
    )
    INVALID = (
        # A step counter.
        """\
import tensorflow as tf

steps = 0


def f(x):
    global steps
    steps += 1
    return tf.reduce_sum(x)


f(tf.ones((2, 3)))
""",
        # Keeps the best loss in a global.
        """\
import tensorflow as tf

best_loss = None


def f(y_true, y_pred):
    global best_loss
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    best_loss = loss
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # A helper assigns the global; the function calls it.
        """\
import tensorflow as tf

last_batch_size = 0


def remember(n):
    global last_batch_size
    last_batch_size = n


def f(x):
    remember(x.shape[0])
    return tf.reduce_mean(x, axis=0)


f(tf.ones((2, 3)))
""",
    )
