"""HY006 not_tensorflow_code: Keras 3 backend-agnostic code, not TensorFlow code."""

from __future__ import annotations

from . import TENSORFLOW_ONLY, Check


class NotTensorflowCode(Check):
    """The function is Keras 3 backend-agnostic code: a tf.function would tie it to TensorFlow.

    What it detects
    ---------------
    A function whose tensor work is written against Keras 3's backend-agnostic API and not
    against TensorFlow: it computes with `keras.ops` or `keras.random` and reaches no
    TensorFlow op; or it belongs to a project that imports Keras but never TensorFlow; or it
    branches on
    `keras.backend.backend()` (or `keras.config.backend()`) against another backend
    ("jax", "torch", ...) with `==` or `!=`, itself or at its module's top level; or only
    such functions call it. Also code TensorFlow and PyTorch share: a function of a module
    that imports no framework while modules of both import it (directly or through other such
    modules), or that imports modules of both (the core of a multi-framework library:
    einops' `einops.py`), or a function naming neither framework in a module importing both
    (einops' backend classes, each importing its framework when made). A module that imports
    neither TensorFlow nor Keras and reaches neither gets no verdict at all: it is not
    TensorFlow code.

    Why it matters in graph mode
    ----------------------------
    Under Keras 3 the values such code computes on are tensors of whichever backend Keras runs
    on: JAX arrays, PyTorch tensors, or TensorFlow tensors. `tf.function` traces TensorFlow
    code only; around backend-agnostic code it converts JAX or PyTorch inputs to TensorFlow
    tensors (or fails on them), and a branch for another backend is decided once, at trace
    time. The code stops being portable, and under the TensorFlow backend Keras already
    compiles what it runs in `fit` (`jit_compile`, `tf.function` of its own train step).
    Code PyTorch shares is PyTorch's too: the decorator makes its module import TensorFlow,
    which a PyTorch-only user lacks (einops 0.8.2's whole test suite failed to import), and
    where both are installed it turns a shape product into a tf.Tensor and hands the PyTorch
    backend's `torch.from_numpy` a TensorFlow tensor, which it refuses (measured, TF 2.21 and
    torch 2.13: tests/analyzer/test_framework_wiring.py).

    Example
    -------
        from keras import ops

        def f(x):
            return 0.5 * x * (1.0 + ops.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

    Instead
    -------
    Leave it to Keras: `model.compile(jit_compile=True)` compiles with the running backend.
    When the project is TensorFlow-only, write the function with TensorFlow ops, then
    compile it:

        @tf.function
        def f(x):
            return tf.nn.gelu(x, approximate=True)

    Not for torch.compile
    ---------------------
    About Keras 3 backend-agnostic code, which a tf.function ties to TensorFlow; PyTorch
    code has no such split.
    """

    code = "HY006"
    unblock = "compile with the running backend (model.compile(jit_compile=True)), or write it with TensorFlow ops"
    frameworks = TENSORFLOW_ONLY
    name = "not_tensorflow_code"
    severity = "info"
    summary = "Keras 3 backend-agnostic code: a tf.function would tie it to TensorFlow."
    EXAMPLE_FUNCTION = "f"
