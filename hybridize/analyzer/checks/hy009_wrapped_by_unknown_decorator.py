"""HY009 wrapped_by_unknown_decorator: another decorator would receive the compiled function."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class WrappedByUnknownDecorator(Check):
    """A decorator the analysis does not know wraps the function: it is left as it is.

    What it detects
    ---------------
    A function that carries a decorator other than Python's own method decorators and
    markers (`staticmethod`, `classmethod`, `property` and its setters, `abc.abstractmethod`,
    `typing.overload`): a library's or the project's own decorator, `tf.custom_gradient`,
    `functools.lru_cache`.

    Why it matters in graph mode
    ----------------------------
    `@tf.function` must be the innermost decorator, so the others receive a compiled
    `tf.types.experimental.GenericFunction` instead of the Python function they were written
    for. A decorator that runs AutoGraph on its argument needs its `__code__` and raises
    ("Cannot apply autograph to a function that doesn't expose a __code__ object": Sonnet's
    `smart_autograph` broke its tests that way); `tf.custom_gradient` needs the function to
    return a gradient function, which a graph cannot return; a caching or registering
    decorator may key on the function object. What the decorator does with a compiled
    function is unknown, so no change is proposed.

    Example
    -------
        @custom_scope
        def f(x, w):
            return tf.matmul(x, w)

    Instead
    -------
    Compile the caller, or decorate the function yourself where you know what the outer
    decorator does with a `tf.function` (many simply call it):

        @tf.function
        def step(x, w):
            return f(x, w)

    Under torch.compile
    -------------------
    Another decorator would receive the compiled function instead of the Python one under
    torch.compile too.
    """

    code = "HY009"
    unblock = (
        "compile the caller, or decorate it yourself where the outer decorator simply calls it"
    )
    frameworks = TENSORFLOW_AND_TORCH
    name = "wrapped_by_unknown_decorator"
    severity = "info"
    summary = (
        "Another decorator would receive the compiled function (tf.function, torch.compile); "
        "left as it is."
    )
    EXAMPLE_FUNCTION = "f"
