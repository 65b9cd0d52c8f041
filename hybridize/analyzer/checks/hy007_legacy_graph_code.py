"""HY007 legacy_graph_code: the function builds or runs a TensorFlow 1 graph."""

from __future__ import annotations

from . import TENSORFLOW_ONLY, Check


class LegacyGraphCode(Check):
    """The function builds or runs a TensorFlow 1 graph, which a tf.function cannot hold.

    What it detects
    ---------------
    A function that uses TensorFlow 1's graph-and-session API, itself or through the
    functions it calls: `tf.compat.v1.placeholder`, a `Session` (`InteractiveSession`,
    `MonitoredSession`) and its `run`, `get_variable` and `variable_scope`, graph collections
    (`get_collection`, `add_to_collection`), variable initializers, `train.Saver`,
    a new `tf.Graph()`. TF1 spellings through `import tensorflow as tf` (`tf.placeholder`,
    `tf.Session`) count the same as their `tf.compat.v1` names. Every function of a module
    that switches the program to graph mode (`tf.compat.v1.disable_eager_execution()`,
    `disable_v2_behavior()`) is TF1 code too, and so is a helper that only such graph-building
    code calls (its tensors are placeholders and what is built on them). Reading
    `get_default_graph()` alone is not: in a `tf.function` it is the function's own graph.

    APIs only TensorFlow 1 has: `tf.contrib` (with `tf.contrib.eager`, the `tfe` of TF1's
    opt-in eager mode: `tfe.implicit_gradients`, `tfe.Variable`) and the top-level TF1
    spellings that TF2 keeps under `tf.compat.v1` only (`tf.enable_eager_execution`,
    `tf.Session`, `tf.placeholder`, `tf.logging`, `tf.random_uniform`). TensorFlow 2.21 has
    none of these names (`tf.contrib` is gone, the others raise AttributeError). A module
    that imports one, names one in its own code (which runs at import) or calls TF1's mode
    switch (`tf.enable_eager_execution()`) is a TF1 program: every function of it is TF1
    code. A function naming one in its body (a TF2 module's stale TF1 line) is TF1 code by
    itself. Names under `tf.compat.v1` are TF2's own migration names and do not count.

    Why it matters in graph mode
    ----------------------------
    A TF1 program runs on TensorFlow 1.x, whose `tf.function` (where it exists at all) runs in
    a TF1 graph or in TF1's opt-in eager mode: the analysis, measured on TensorFlow 2, does not
    describe it, and a decorator meant for TF2 is no proposal for it. Within TF2,
    TF1 code builds a graph first and runs it later in a session; `tf.function` builds and
    runs a graph of its own on every call. Placeholders are rejected inside it, a session
    cannot run a graph from inside another graph's trace, `get_variable` relies on the
    variable scopes of a TF1 graph (a `tf.function` may create variables on its first trace
    only), and ops built under `tf.Graph().as_default()` leave the traced function. A
    decorator breaks such code instead of speeding it up.

    Example
    -------
        def f(features):
            x = tf.compat.v1.placeholder(tf.float32, [None, 4])
            with tf.compat.v1.Session() as sess:
                return sess.run(tf.reduce_sum(x), feed_dict={x: features})

    Instead
    -------
    Migrate the code to TensorFlow 2 first (eager tensors in place of placeholders, plain
    calls in place of `sess.run`, `tf.Variable` or Keras layers in place of `get_variable`,
    `tf.GradientTape` in place of `tfe.implicit_gradients`), then compile the migrated
    function:

        @tf.function
        def f(x):
            return tf.reduce_sum(x)

    Not for torch.compile
    ---------------------
    TensorFlow 1 graph and session code does not exist in PyTorch.
    """

    code = "HY007"
    unblock = "migrate the TensorFlow 1 graph/session code to TensorFlow 2 first"
    frameworks = TENSORFLOW_ONLY
    name = "legacy_graph_code"
    severity = "info"
    summary = "TensorFlow 1 graph or session code: a tf.function cannot hold it."
    EXAMPLE_FUNCTION = "f"
