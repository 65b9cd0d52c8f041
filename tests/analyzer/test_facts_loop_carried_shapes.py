"""Loop variables whose static shape a `tf.while_loop` cannot keep (`has_loop_carried_shape_changes`).

Each expectation was measured with TensorFlow 2.21 (`tf.function` of the same body, called
with a (5, 4) tensor): a loop AutoGraph converts (a `for` over `tf.range` or a tensor, a
`while` with a tensor test) raises "'x' has shape (5, 4) before the loop, but shape (None, 4)
after one iteration" when the body gives a variable bound before the loop a data-dependent
or grown size; a Python `range` loop (unrolled), a tensor `if` (a `tf.cond`), same-shape
updates and variables first bound inside the loop trace fine.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

FACT = "has_loop_carried_shape_changes"

CALL = "\n        f(tf.ones((5, 4)), tf.constant(3))\n"

CASES = [
    # --- flagged -------------------------------------------------------------------------
    case(
        "crop-with-boxes-gather-clip-break",
        """
        import tensorflow as tf

        def f(img, boxes, labels, max_retry):
            for _ in tf.range(max_retry):
                top = tf.random.uniform([], 0, 4, dtype=tf.int32)
                left = tf.random.uniform([], 0, 4, dtype=tf.int32)
                bottom = top + 4
                right = left + 4
                mask = boxes[:, 0] > 0.5
                if tf.reduce_sum(tf.cast(mask, dtype=tf.int32)) > 0:
                    indices = tf.squeeze(tf.where(mask), axis=1)
                    filtered_boxes = tf.gather(boxes, indices)
                    boxes = tf.clip_by_value(filtered_boxes[..., :] * 2.0 - 1.0, 0.0, 1.0)
                    img = tf.image.crop_to_bounding_box(img, top, left, bottom - top, right - left)
                    labels = tf.gather(labels, indices)
                    break
            return img, boxes, labels

        f(tf.ones((8, 8, 3)), tf.ones((5, 4)), tf.ones((5,)), tf.constant(3))
        """,
        "f",
        True,
    ),
    case(
        "concat-growth",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in tf.range(n):
                x = tf.concat([x, x[:1]], 0)
            return x
        """
        + CALL,
        "f",
        True,
    ),
    case(
        "accumulate-from-empty",
        """
        import tensorflow as tf

        def f(x, n):
            acc = tf.zeros((0, 4))
            for i in tf.range(n):
                acc = tf.concat([acc, x[:1] * tf.cast(i, tf.float32)], axis=0)
            return acc
        """
        + CALL,
        "f",
        True,
    ),
    case(
        "boolean-mask-under-tensor-while",
        """
        import tensorflow as tf

        def f(x, n):
            while tf.reduce_sum(x) > 0:
                x = tf.boolean_mask(x, x > 1)
            return x
        """
        + CALL,
        "f",
        True,
    ),
    case(
        "slice-with-tensor-bound",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in tf.range(n):
                k = tf.shape(x)[0] - 1
                x = x[:k]
            return x
        """
        + CALL,
        "f",
        True,
    ),
    case(
        "iterating-a-tensor",
        """
        import tensorflow as tf

        def f(x, n):
            for row in tf.ones((3, 4)) * tf.cast(n, tf.float32):
                x = tf.concat([x, row[None]], 0)
            return x
        """
        + CALL,
        "f",
        True,
    ),
    case(
        "caller-traces-the-helper",
        """
        import tensorflow as tf

        def helper(x, n):
            for _ in tf.range(n):
                x = tf.boolean_mask(x, x[:, 0] > 0)
            return x

        def f(x, n):
            if n > 0:
                x = helper(x, n)
            return x
        """
        + CALL,
        "f",
        True,
    ),
    # --- not flagged ---------------------------------------------------------------------
    case(
        "python-range-is-unrolled",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in range(3):
                x = tf.concat([x, x[:1]], 0)
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "same-shape-update",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in tf.range(n):
                x = x * 0.5
                x = tf.clip_by_value(x, 0.0, 1.0)
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "tensor-if-is-a-cond",
        """
        import tensorflow as tf

        def f(x, n):
            if n > 0:
                x = tf.boolean_mask(x, x[:, 0] > 0)
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "bound-only-inside-the-loop",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in tf.range(n):
                kept = tf.boolean_mask(x, x[:, 0] > 0)
                x = x + tf.reduce_sum(kept)
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "three-argument-where-keeps-the-shape",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in tf.range(n):
                x = tf.where(x > 0, x, -x)
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "gather-with-constant-indices",
        """
        import tensorflow as tf

        def f(x, n):
            for _ in tf.range(n):
                x = tf.gather(x, [4, 3, 2, 1, 0])
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "already-data-dependent-before-the-loop",
        """
        import tensorflow as tf

        def f(x, n):
            x = tf.boolean_mask(x, x[:, 0] > 0)
            for _ in tf.range(n):
                x = tf.boolean_mask(x, x[:, 1] > 0)
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "none-before-the-loop",
        """
        import tensorflow as tf

        def f(x, n):
            kept = None
            for _ in tf.range(n):
                kept = tf.boolean_mask(x, x[:, 0] > 0)
            return kept
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "while-with-a-python-test",
        """
        import tensorflow as tf

        def f(x, n):
            i = 0
            while i < 3:
                x = tf.concat([x, x[:1]], 0)
                i += 1
            return x
        """
        + CALL,
        "f",
        False,
    ),
    case(
        "crop-with-constant-sizes",
        """
        import tensorflow as tf

        def f(x, n):
            img = tf.ones((8, 8, 3))
            for _ in tf.range(n):
                img = tf.image.crop_to_bounding_box(img, 0, 0, 8, 8)
            return img + tf.reduce_sum(x)
        """
        + CALL,
        "f",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_loop_carried_shapes(files, qualname, expected):
    assert verdict(files, qualname).fact(FACT) == expected


def test_the_finding_names_the_variable_and_the_op():
    found = verdict(
        """
        import tensorflow as tf

        def f(boxes, n):
            for _ in tf.range(n):
                boxes = tf.boolean_mask(boxes, boxes[:, 0] > 0)
            return boxes
        """
        + CALL,
        "f",
    )
    assert FACT in found.failures
    messages = [f.message for f in found.findings if f.code == "HY410"]
    assert messages and "`boxes`" in messages[0] and "`tf.boolean_mask`" in messages[0]


def test_a_caller_is_told_which_helper_fails():
    found = verdict(
        """
        import tensorflow as tf

        def grow(x, n):
            for _ in tf.range(n):
                x = tf.concat([x, x], 0)
            return x

        def f(x, n):
            return grow(x, n) * 2.0
        """
        + CALL,
        "f",
    )
    messages = [f.message for f in found.findings if f.code == "HY410"]
    assert messages and "`grow`" in messages[0] and "`tf.concat`" in messages[0], messages


def test_a_cyclic_chain_of_helpers_is_walked_once_per_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each helper calls the next twice and the first again (a cycle through the chain); the
    last has the loop. The walk of every path doubled per helper (found on `keras/src`); now
    each helper's own loops are looked at once, and the caller is told the way down."""
    import hybridize.analyzer.facts.loop_shapes as loop_shapes

    depth = 20
    steps = ["import tensorflow as tf\n"]
    for i in range(depth - 1):
        steps.append(
            f"def step{i}(x, n):\n    if n > 9:\n        return step0(x, n - 1)\n"
            f"    return step{i + 1}(x, n) + step{i + 1}(x * 2.0, n)\n"
        )
    steps.append(
        f"def step{depth - 1}(x, n):\n    for _ in tf.range(n):\n"
        "        x = tf.concat([x, x], 0)\n    return x\n"
    )
    looked: list[str] = []
    real = loop_shapes._own_findings

    def counting(*args: object) -> object:
        looked.append(str(args[2]))
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(loop_shapes, "_own_findings", counting)
    found = verdict("\n".join(steps) + "\nstep0(tf.ones((2, 3)), tf.constant(3))\n", "step0")
    messages = [f.message for f in found.findings if f.code == "HY410"]
    down = [m for m in messages if m.startswith("calls `step1`")]
    assert down and f"`step{depth - 1}`" in down[0] and "`tf.concat`" in down[0], messages
    assert len(looked) == len(set(looked)) == depth
