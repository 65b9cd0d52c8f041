"""HY403 has_tensor_parameter_iteration: a Python for loop over a tensor parameter."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.safety import tensor_parameter_iteration
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasTensorParameterIteration(Check):
    """Iterates over a tensor parameter with a Python `for` loop.

    What it detects
    ---------------
    A `for` statement whose iterable is a parameter that receives a tensor (directly or
    through a local variable bound to it, or wrapped in `enumerate`). Loops over
    `tf.range(...)`, over Python ranges and over lists of tensors are not affected. Also a
    parameter a caller passes a NumPy array, whatever the other callers pass: `tf.function`
    converts an array argument to a tensor (m3gnet 0.2.4's `_block_repeat`, `for i, b in
    enumerate(block_size)` with `2 * np.arange(max_l) + 1`: eager fine, compiled
    "OperatorNotAllowedInGraphError"; a list of Python ints stays Python; measured, TF 2.21,
    tests/analyzer/test_m3gnet_rules_measured.py). Also a
    tensor handed to an op in place of the list of tensors it takes, which the op iterates
    eagerly (`tf.strings.join(tf.gather(words, ids), " ")`, `tf.add_n(t)`,
    `tf.dynamic_stitch`, `tf.identity_n`: `Framework.list_inputs`; `tf.concat` and `tf.stack`
    take a tensor alike in both modes).

    Why it matters in graph mode
    ----------------------------
    Eagerly, iterating a tensor yields its rows. While tracing, AutoGraph turns the loop
    into a `tf.while_loop` only in some shapes of code; otherwise Python iterates a symbolic
    tensor: with a static first dimension the loop is unrolled into one copy of the body per
    row (huge graphs, a retrace per batch size), and with an unknown first dimension it
    fails with "iterating over `tf.Tensor` is not allowed". Python state carried across
    iterations (lists, counters) makes AutoGraph's conversion fail too. An op taking a list
    iterates an eager tensor into its rows; traced, `tf.strings.join(t, " ")` raises
    "Expected list for 'inputs' argument to 'string_join' Op" and `tf.add_n(t)` "Iterating
    over a symbolic `tf.Tensor` is not allowed" (seqio 0.0.20's
    `UnigramVocabulary._decode_tf`; measured, TF 2.21,
    tests/analyzer/test_seqio_rules_measured.py).

    Example
    -------
        def sum_rows(x):
            total = tf.zeros(x.shape[1:])
            for row in x:
                total += row
            return total

    Instead
    -------
    Use a vectorised operation (`tf.reduce_sum`, `tf.map_fn`, `tf.scan`) or loop over
    `tf.range` so AutoGraph builds one `tf.while_loop`:

        @tf.function
        def sum_rows(x):
            total = tf.zeros(tf.shape(x)[1:])
            for i in tf.range(tf.shape(x)[0]):
                total += x[i]
            return total

    Not for torch.compile
    ---------------------
    Dynamo unrolls a Python loop over a tensor's first axis (guarding on its size): a
    recompilation per size, not a failure.
    """

    code = "HY403"
    unblock = "use a vectorised operation (tf.map_fn, tf.scan) or loop over tf.range"
    frameworks = TENSORFLOW_ONLY
    name = "has_tensor_parameter_iteration"
    severity = "error"
    summary = "Loops over a tensor parameter in Python; in a graph this unrolls or fails."
    EXAMPLE_FUNCTION = "f"
    fact = "has_tensor_parameter_iteration"
    fact_meaning = "a Python `for` over a tensor parameter"
    report_order = 50
    decision_order = 50

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        return cls.findings(tensor_parameter_iteration(context.scan))
