"""HY103 has_python_side_effects: file, OS, network or stdin I/O."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class IoSideEffect(SideEffectCheck):
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

    Under torch.compile
    -------------------
    File I/O and `torch.save` are graph breaks or skip the whole frame under torch.compile
    (measured: a function opening a file compiled zero frames).
    """

    code = "HY103"
    unblock = "do the I/O in the eager caller with the returned values"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Performs Python file, OS, network or stdin I/O, which runs only while tracing."
    EXAMPLE_FUNCTION = "f"
