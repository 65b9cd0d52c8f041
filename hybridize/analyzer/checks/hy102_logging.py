"""HY102 has_python_side_effects: logging calls."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class LoggingSideEffect(SideEffectCheck):
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

    Under torch.compile
    -------------------
    `logging` calls are graph breaks under torch.compile (measured: "logging.Logger method
    not supported").
    """

    code = "HY102"
    unblock = (
        "log the returned value in the eager caller (TensorFlow: or record it with tf.summary)"
    )
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Emits Python log records, which are written only while tracing."
    EXAMPLE_FUNCTION = "f"
