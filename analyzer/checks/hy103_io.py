"""HY103 has_python_side_effects: file, OS, network or stdin I/O."""

from __future__ import annotations

from . import Check


class IoSideEffect(Check):
    """File, OS, network or standard-input I/O in Python.

    What it detects
    ---------------
    Python I/O in the function or in any user function it calls: opening and writing files
    (`open(...)`, `json.dump`, `pickle.dump`, `np.save`), changing the file system (`os.*`,
    `shutil.*`, `pathlib.Path.write_text`), starting processes (`subprocess`), sockets and
    HTTP requests, and reading standard input (`input()`).

    Why it matters in graph mode
    ----------------------------
    Under `tf.function` the Python body runs only while tracing. A file is written once per
    trace, not once per call, and with symbolic tensors rather than values; a prompt for
    input appears once and its answer is frozen into the graph as a constant. Work that
    must happen on every step silently stops happening.

    Example
    -------
        def train_step(x, y):
            loss = compute_loss(x, y)
            with open("losses.txt", "a") as fh:
                fh.write(f"{loss}\\n")
            return loss

    Instead
    -------
    Do I/O in the eager caller with the returned values, or use TensorFlow's own graph
    operations (`tf.summary`, `tf.train.Checkpoint` in the caller, `tf.io` ops):

        @tf.function
        def train_step(x, y):
            return compute_loss(x, y)

        loss = train_step(x, y)
        with open("losses.txt", "a") as fh:
            fh.write(f"{float(loss)}\\n")
    """

    code = "HY103"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Performs Python file, OS, network or stdin I/O, which runs only while tracing."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # Data is read eagerly at module level, and the function gets tensors.
        """\
import json
import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "stats.json")
with open(path, "w") as fh:
    json.dump({"mean": 0.5, "std": 2.0}, fh)
with open(path) as fh:
    stats = json.load(fh)


def f(x, mean, std):
    return (x - mean) / std


f(tf.ones((2, 3)), tf.constant(stats["mean"]), tf.constant(stats["std"]))
""",
        # The function returns a message; the eager caller writes it.
        """\
import os
import tempfile

import tensorflow as tf


def f(loss):
    return tf.strings.format("loss={}", loss)


line = f(tf.constant(0.25))
with open(os.path.join(tempfile.mkdtemp(), "log.txt"), "a") as fh:
    fh.write(line.numpy().decode() + "\\n")
""",
    )
    INVALID = (
        # Appends to a file.
        """\
import tensorflow as tf


def f(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    with open("losses.txt", "a") as fh:
        fh.write(f"{loss}\\n")
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # Changes the file system.
        """\
import os
import shutil

import tensorflow as tf


def f(x):
    os.makedirs("debug", exist_ok=True)
    shutil.rmtree("debug")
    return tf.nn.relu(x)


f(tf.ones((2, 3)))
""",
        # Starts a process.
        """\
import subprocess

import tensorflow as tf


def f(x):
    subprocess.run(["echo", "step"], check=False)
    return tf.reduce_sum(x)


f(tf.ones((2, 3)))
""",
    )
