"""HY437 defined_in_function: a `def` inside another function's body, compiled anew per run."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class DefinedInFunction(Check):
    """The function is defined inside another function: a decorator on it compiles anew each time that body runs.

    What it detects
    ---------------
    A `def` in the body of another function (a helper closed over the enclosing function's
    locals, a `train_step` written inside `train`), or a method of a class defined there,
    that is not compiled yet. The decorator the refactoring would add runs where the `def`
    runs: on every run of the enclosing body.

    Why it matters in graph mode
    ----------------------------
    `@tf.function` on a nested `def` makes a new `Function` object each time the enclosing
    body runs, and a new object traces at its first call (measured on TF 2.21: a nested
    `tf.function` called once per call of its enclosing function traced at every call,
    about a hundred times slower than its eager body). What it reads of the enclosing
    function (its closure, `self`) is read while tracing and kept: a closed-over value the
    enclosing body changes between two calls of the same definition is frozen in the graph
    (measured). In edward2, the helper `sample` of `LSTMCellRank1._sample_weights`, given
    random variables and an initializer layer, failed compiled in the lookup of its trace
    ("The truth value of an array with more than one element is ambiguous"). The analysis cannot tell how many calls each
    definition serves, or what the enclosing body rebinds between them; the rewrite leaves
    nested definitions alone, with `--include-low-benefit` too.

    Example
    -------
        class Cell(tf.keras.layers.Layer):
            def sample_weights(self, batch_size):
                def sample(weight, shape):
                    return tf.tile(weight, [1, batch_size])

                self.alpha_sample = sample(self.alpha, self.alpha_shape)

    Instead
    -------
    Define the function at module level (or as a method) and pass what it closed over as
    arguments; or compile the enclosing function, whose graph then holds the helper:

        def sample(weight, batch_size):
            return tf.tile(weight, [1, batch_size])

    Not for torch.compile
    ---------------------
    Dynamo keeps what it compiled on the code object, which every definition shares: a
    nested `torch.compile` function compiles once across calls of the enclosing one
    (measured on torch 2.13: 1 frame in 5 calls), and its guards check the closure's values.
    """

    code = "HY437"
    name = "defined_in_function"
    severity = "warning"
    frameworks = TENSORFLOW_ONLY
    summary = (
        "Defined inside another function: a decorator there makes a new tf.function, traced "
        "again, each time the enclosing body runs."
    )
    unblock = "define it at module level or as a method, passing what it closes over as arguments"
    fact = "is_defined_in_function"
    fact_meaning = (
        "defined inside another function's body: each run of that body makes a new "
        "tf.function, traced again"
    )
    decision_order = 153
    EXAMPLE_FUNCTION = "train.step"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """A function the rewrite would decorate, defined in another function's body (or a
        method of a class defined there): its owner (`ProjectIndex.owner_key`) is a function."""
        if not context.changes_on_compiling:
            return []
        reason = context.framework.compiles_per_definition
        owner = context.index.owner_key(context.key)
        if reason is None or owner.is_module_code:
            return []
        fn = context.function
        if fn.is_lambda:
            return []
        return [cls.finding(reason.format(owner=owner.qualname), fn.span)]
