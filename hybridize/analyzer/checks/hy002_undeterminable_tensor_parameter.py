"""HY002 undeterminable_tensor_parameter: nothing shows whether a parameter gets a tensor."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class UndeterminableTensorParameter(Check):
    """Whether a parameter receives a tensor cannot be decided.

    What it detects
    ---------------
    A function whose parameters have no type hint naming a tensor type, and no call site in
    the analysed code whose argument is known to be a tensor or known not to be one: a
    library function that only other projects call, or a function called only with values
    the analysis cannot type (the result of an unknown third-party call, a parameter of a
    caller that is itself never called). No naming convention (`train_step`, Keras `call`)
    lets the analysis assume tensors either. hybridize makes no change.

    Why it matters in graph mode
    ----------------------------
    Whether `tf.function` helps depends on what the function receives: tensors are traced
    once per shape and dtype and the graph is reused, Python values retrace on every new
    value. Without knowing which it is, adding a decorator could just as well make the code
    slower or change what it does, so the safe answer is to leave it alone.

    Example
    -------
    A helper of a library; nothing in the project calls it:

        def normalize(x):
            return tf.math.l2_normalize(x, axis=-1)

    Instead
    -------
    Give the analysis evidence: a type hint, or a call site (a test counts) that passes a
    tensor:

        def normalize(x: tf.Tensor) -> tf.Tensor:
            return tf.math.l2_normalize(x, axis=-1)

        def test_normalize():
            assert normalize(tf.ones((2, 3))).shape == (2, 3)

    Under torch.compile
    -------------------
    The same fact: without call-site evidence the inputs of a torch.compile'd function are
    unknown as well.
    """

    code = "HY002"
    unblock = "add a tensor type hint (x: tf.Tensor, x: torch.Tensor) or a call site, a test counts, that passes a tensor"
    frameworks = TENSORFLOW_AND_TORCH
    name = "undeterminable_tensor_parameter"
    severity = "info"
    summary = "No call site or type hint shows whether a parameter receives a tensor."
    EXAMPLE_FUNCTION = "f"
