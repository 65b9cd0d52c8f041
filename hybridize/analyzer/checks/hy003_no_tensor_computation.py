"""HY003 no_tensor_computation: no TensorFlow operation runs in the function."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class NoTensorComputation(Check):
    """The function receives tensors but runs no TensorFlow operation.

    What it detects
    ---------------
    A function that takes tensors but neither its body nor anything it calls in user code
    runs a TensorFlow operation: it packs tensors into dicts or tuples, picks one of its
    arguments, or passes them on unchanged. This is an eligibility note, not a hazard.

    Why it matters in graph mode
    ----------------------------
    A graph saves the Python overhead of dispatching operations one by one and lets Grappler
    fuse and prune them. With no operation there is nothing to save: tracing only adds its
    own cost (building a `FuncGraph`, hashing the arguments on each call) and a trace
    boundary that makes debugging harder.

    Example
    -------
        def to_features(image, label):
            return {"image": image, "label": label}

    Instead
    -------
    Leave plain data plumbing eager. Compile the function that computes on the tensors, or
    let the caller that is already compiled inline the helper:

        @tf.function
        def preprocess(image, label):
            return to_features(tf.image.per_image_standardization(image), label)

    Under torch.compile
    -------------------
    A function that runs no torch op gives Dynamo nothing to put in a graph.
    """

    code = "HY003"
    unblock = "compile the function that runs the tensor operations, or let a compiled caller inline this helper"
    frameworks = TENSORFLOW_AND_TORCH
    name = "no_tensor_computation"
    severity = "info"
    summary = "No framework operation runs in the function, so a graph has nothing to speed up."
    EXAMPLE_FUNCTION = "f"
