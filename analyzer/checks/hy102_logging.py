"""HY102 has_python_side_effects: logging calls."""

from __future__ import annotations

from . import Check


class LoggingSideEffect(Check):
    """Python logging inside a function that would be traced.

    What it detects
    ---------------
    A call that emits a log record through Python's `logging` (module functions such as
    `logging.info`, or the methods of a logger from `logging.getLogger` or
    `tf.get_logger()`), in the function or in any user function it calls.

    Why it matters in graph mode
    ----------------------------
    Logging is Python code: under `tf.function` it runs while tracing, so the record is
    written once per trace instead of once per call, and any tensor in the message is a
    symbolic placeholder without a value. Logs that monitor training silently stop after
    the first step.

    Example
    -------
        def train_step(x, y):
            loss = compute_loss(x, y)
            logging.info("loss %s", loss)
            return loss

    Instead
    -------
    Return the value and log it in the eager caller, or record it from the graph with
    `tf.print` or `tf.summary`:

        @tf.function
        def train_step(x, y):
            loss = compute_loss(x, y)
            tf.summary.scalar("loss", loss, step=optimizer.iterations)
            return loss

        loss = train_step(x, y)
        logging.info("loss %.4f", float(loss))
    """

    code = "HY102"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Emits Python log records, which are written only while tracing."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # tf.print writes from the graph on every call.
        """\
import sys

import tensorflow as tf


def f(x):
    norm = tf.norm(x)
    tf.print("gradient norm", norm, output_stream=sys.stderr)
    return x / norm


f(tf.ones((2, 3)))
""",
        # The eager caller logs the returned value.
        """\
import logging

import tensorflow as tf

logger = logging.getLogger(__name__)


def f(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


loss = f(tf.ones((4, 1)), tf.zeros((4, 1)))
logger.info("loss %.4f", float(loss))
""",
        # A Keras metric keeps its state in variables: updating it is a graph operation.
        """\
import tensorflow as tf

mean_loss = tf.keras.metrics.Mean(name="loss")


def f(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    mean_loss.update_state(loss)
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
print("mean loss", float(mean_loss.result()))
""",
    )
    INVALID = (
        # The logging module's functions.
        """\
import logging

import tensorflow as tf


def f(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    logging.info("loss %s", loss)
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # A module-level logger.
        """\
import logging

import tensorflow as tf

logger = logging.getLogger(__name__)


def f(x):
    logger.warning("clipping a batch of shape %s", x.shape)
    return tf.clip_by_norm(x, 1.0)


f(tf.ones((2, 3)))
""",
        # TensorFlow's own Python logger.
        """\
import tensorflow as tf


def f(x):
    tf.get_logger().info("normalising")
    return tf.math.l2_normalize(x, axis=-1)


f(tf.ones((2, 3)))
""",
    )
