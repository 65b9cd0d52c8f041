"""HY410 has_loop_carried_shape_changes: a tf.while_loop carries a tensor whose shape changes."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.loop_shapes import loop_carried_shape_changes
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasLoopCarriedShapeChanges(Check):
    """A loop AutoGraph makes a `tf.while_loop` changes the static shape of a loop variable.

    What it detects
    ---------------
    A `for` over a tensor (`tf.range(n)`, a tensor value) or a `while` whose test is a tensor,
    whose body rebinds a tensor that is bound before the loop (a parameter, or a local not
    itself of data-dependent size) to a value whose static shape may differ, on positive
    evidence (the op table `hybridize/analyzer/frameworks/output_shapes.py`):

    * an op whose output size depends on the data: `tf.boolean_mask`, one-argument
      `tf.where`, `tf.unique`, `tf.dynamic_partition`, non-max suppression, and `tf.gather`
      / `tf.gather_nd` on indices computed so;
    * an op sized by a tensor: `tf.slice` with a tensor `size`, `tf.image.crop_to_bounding_box`
      / `pad_to_bounding_box` / `resize` with tensor sizes, `tf.math.top_k` with a tensor `k`,
      slicing `x[:k]` with a tensor bound;
    * an op that grows the variable itself: `tf.concat([x, y], 0)`, `tf.stack`, `tf.tile`,
      `tf.pad` of it.

    Values are followed through locals, arithmetic and ops that keep their input's shape
    (`tf.clip_by_value`, `tf.cast`, `tf.squeeze`...). A function that calls such a function
    is flagged too: the callee is traced inside its graph. Not covered: values computed by a
    project helper called in the loop (its own loop is), rank changes by reductions or
    constant reshapes, constant-bound slices that shrink (`x = x[1:]`), a Python number
    before the loop broadcast to a tensor in it, and callbacks (`tf.map_fn`).

    Why it matters in graph mode
    ----------------------------
    Every local the body rebinds that is bound before the loop becomes a loop variable of the
    `tf.while_loop`, and TensorFlow requires its static shape after one iteration to be
    compatible with its shape before it: tracing raises `ValueError: 'boxes' has shape (20, 4)
    before the loop, but shape (None, 4) after one iteration`. Eagerly nothing checks this.
    Measured with TensorFlow 2.21, `x` of shape (5, 4) traced with its static shape:

    =================================================  ===========================
    loop body (under `for _ in tf.range(n)`)           traced
    =================================================  ===========================
    `x = tf.concat([x, x[:1]], 0)`, `tf.stack([x, x])`  fails (grows)
    `tf.pad(x, [[0, 1], [0, 0]])`, `tf.tile(x, [2, 1])` fails (grows)
    `tf.gather(x, tf.squeeze(tf.where(m), 1))`          fails (None, 4)
    `tf.boolean_mask`, one-arg `tf.where`, `tf.unique`  fails (None, ...)
    `tf.dynamic_partition`, `non_max_suppression`       fails (None, ...)
    `x[:k]`, `tf.slice(x, b, s)` with tensor `k`, `s`   fails
    `crop_to_bounding_box`/`resize`, tensor sizes       fails
    `top_k(v, k=tensor)`                                fails
    `tf.reshape(x, [4, 5])`, `tf.reduce_sum(x, 0)`      fails (not detected)
    `x = x[1:]` (constant bound, shrinking)             fails (not detected)
    `x = 0.0` before, `x = x + tf.ones([3])` in it      fails (not detected)
    `tf.gather(x, [4, 3, 2, 1, 0])`, indices param      passes (static indices)
    three-argument `tf.where`, `x * 0.5 + 1`            passes
    `clip_by_value`, square `matmul`, `x - mean(x)`     passes
    `tf.reshape(x, [-1, tf.shape(x)[1]])`               passes (inferred)
    crop/resize/`x[:5]` with constant same sizes        passes
    `tf.ensure_shape(tf.boolean_mask(...), [5, 4])`     passes
    variable bound only inside the loop                 passes (even used after)
    `x = None` before the loop                          passes
    the same under `while tf.reduce_sum(x) > 0`, `i<n`  fails like `for`
    the same inside `if <tensor>:` (a `tf.cond`)        passes
    the same under a Python `for _ in range(3)`         passes (unrolled)
    a `for` over a `tf.data.Dataset`                    passes (a reduction)
    with `break` (conditional or not) after it          fails all the same
    `x` not used after the loop (read in the body)      fails all the same
    `input_signature` `[None, 4]` for `x`               passes (rank change fails)
    `reduce_retracing=True`                             fails (first trace static)
    `set_loop_options(shape_invariants=...)`            passes
    a function calling one that fails                   fails
    =================================================  ===========================

    Example
    -------
        def keep_positive(boxes, n):
            for _ in tf.range(n):
                mask = boxes[:, 0] > 0
                boxes = tf.boolean_mask(boxes, mask)
            return boxes

    Instead
    -------
    Declare the dimension that changes as unknown at the top of the loop body, or collect
    results in a `tf.TensorArray` (or pass the tensors with an `input_signature` whose
    changing dimensions are None):

        @tf.function
        def keep_positive(boxes, n):
            for _ in tf.range(n):
                tf.autograph.experimental.set_loop_options(
                    shape_invariants=[(boxes, tf.TensorShape([None, 4]))]
                )
                boxes = tf.boolean_mask(boxes, boxes[:, 0] > 0)
            return boxes

    Not for torch.compile
    ---------------------
    The hazard is AutoGraph's `tf.while_loop`, whose loop variables keep one static shape;
    Dynamo unrolls a Python loop (or breaks the graph), so no loop variable has a fixed shape.
    """

    code = "HY410"
    unblock = (
        "declare the changing dimension unknown in the loop, or collect results in a tf.TensorArray"
    )
    frameworks = TENSORFLOW_ONLY
    name = "has_loop_carried_shape_changes"
    severity = "error"
    summary = (
        "A loop that becomes a tf.while_loop changes a carried tensor's static shape; "
        "tracing raises ValueError."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_loop_carried_shape_changes"
    fact_meaning = "an AutoGraph loop rebinds a tensor to a value of another static shape"
    report_order = 120
    decision_order = 120

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """In the function, or in a project function traced with it."""
        return cls.findings(loop_carried_shape_changes(context.index, context.facts, context.key))
