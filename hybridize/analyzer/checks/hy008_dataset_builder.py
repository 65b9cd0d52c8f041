"""HY008 dataset_builder: the function builds and returns a tf.data pipeline."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class DatasetBuilder(Check):
    """The function builds and returns a tf.data pipeline: there is nothing to compile.

    What it detects
    ---------------
    A function that returns a `tf.data.Dataset` (or several, or an iterator over one): it
    creates one (`from_tensor_slices`, `TFRecordDataset`, `range`, ...) or takes one, and
    chains transformations (`map`, `filter`, `shuffle`, `batch`, `prefetch`). Transforming a
    dataset is not tensor computation either, and a dataset argument is not a tensor
    argument: a function that only builds a pipeline also fails `no_tensor_computation`.

    Why it matters in graph mode
    ----------------------------
    A dataset is a Python object describing a pipeline; it is built once, and tf.data runs it
    in its own runtime, tracing the callbacks handed to `map`, `filter` and the like into
    graphs of their own whether the builder is compiled or not. A `tf.function` around the
    builder adds a trace per new argument (every NumPy array is a new constant) and returns
    the same pipeline: the work it would speed up happens elsewhere.

    Example
    -------
        def f(images, labels, batch_size):
            ds = tf.data.Dataset.from_tensor_slices((images, labels))
            return ds.map(augment).shuffle(1024).batch(batch_size).prefetch(tf.data.AUTOTUNE)

    Instead
    -------
    Leave the builder eager; compile the step that consumes the batches, and keep the
    per-element work in the `map` callbacks, which tf.data already traces:

        @tf.function
        def train_step(images, labels):
            ...

        for images, labels in f(x, y, 32):
            train_step(images, labels)

    Under torch.compile
    -------------------
    A function returning a torch DataLoader builds a Python object whose iteration Dynamo
    does not trace (labelling policy, corpus/README.md).
    """

    code = "HY008"
    unblock = "compile the step that consumes the batches, not the pipeline builder"
    frameworks = TENSORFLOW_AND_TORCH
    name = "dataset_builder"
    severity = "info"
    summary = (
        "Builds a data pipeline (tf.data, a PyTorch DataLoader): the builder gains nothing from "
        "compiling."
    )
    EXAMPLE_FUNCTION = "f"
