"""How TensorFlow ops decide the static shape of their output, for loop-carried tensors.

A `tf.while_loop` (what AutoGraph makes of a loop over a tensor or under a tensor condition)
requires every loop variable's static shape after one iteration to be compatible with its
shape before the loop. Most ops give an output whose static shape is fixed by their inputs'
static shapes; the ops listed here do not keep it, which `loop_shapes` needs to know. Every
rule was measured with TensorFlow 2.21 (see `HY410`'s docstring for the table).

Rules (`OutputShape.kind`):

* "data_dependent" -- the output's size depends on the values, so its static shape has an
  unknown dimension (`tf.boolean_mask`, `tf.unique`, one-argument `tf.where`); `unless` names
  arguments whose presence makes the op shape-preserving (`tf.where(c, x, y)`);
* "sized_by" -- the output's size is given by the `args` arguments (`tf.slice`'s `size`,
  `crop_to_bounding_box`'s target sizes): unknown when one of them is a tensor;
* "follows" -- the output has the shape of the `args` arguments, or a shape derived from it
  with the same unknown dimensions (`tf.gather` follows its `indices`, `tf.clip_by_value` its
  input): data-dependent when they are;
* "grows" -- the output is larger than, or of higher rank than, the `args` arguments
  (`tf.concat`, `tf.stack`, `tf.tile`, `tf.pad`): a loop variable fed to it changes shape.

`args` are parameter names (positions come from `lookup_parameters`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OutputShape:
    """How one op's output shape relates to its inputs (see the module docstring)."""

    kind: str  # "data_dependent" | "sized_by" | "follows" | "grows"
    args: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()


_DATA_DEPENDENT = OutputShape("data_dependent")

OUTPUT_SHAPES: dict[str, OutputShape] = {
    "tensorflow.boolean_mask": _DATA_DEPENDENT,
    "tensorflow.compat.v1.boolean_mask": _DATA_DEPENDENT,
    "tensorflow.unique": _DATA_DEPENDENT,
    "tensorflow.unique_with_counts": _DATA_DEPENDENT,
    "tensorflow.where": OutputShape("data_dependent", unless=("x", "y")),
    "tensorflow.compat.v1.where": OutputShape("data_dependent", unless=("x", "y")),
    "tensorflow.experimental.numpy.nonzero": _DATA_DEPENDENT,
    "tensorflow.dynamic_partition": _DATA_DEPENDENT,
    "tensorflow.image.non_max_suppression": _DATA_DEPENDENT,
    "tensorflow.image.non_max_suppression_with_scores": _DATA_DEPENDENT,
    "tensorflow.image.non_max_suppression_overlaps": _DATA_DEPENDENT,
    "tensorflow.slice": OutputShape("sized_by", ("size",)),
    "tensorflow.image.crop_to_bounding_box": OutputShape(
        "sized_by", ("target_height", "target_width")
    ),
    "tensorflow.image.pad_to_bounding_box": OutputShape(
        "sized_by", ("target_height", "target_width")
    ),
    "tensorflow.image.resize": OutputShape("sized_by", ("size",)),
    "tensorflow.math.top_k": OutputShape("sized_by", ("k",)),
    "tensorflow.gather": OutputShape("follows", ("indices",)),
    "tensorflow.compat.v1.gather": OutputShape("follows", ("indices",)),
    "tensorflow.gather_nd": OutputShape("follows", ("indices",)),
    "tensorflow.squeeze": OutputShape("follows", ("input",)),
    "tensorflow.expand_dims": OutputShape("follows", ("input",)),
    "tensorflow.clip_by_value": OutputShape("follows", ("t",)),
    "tensorflow.cast": OutputShape("follows", ("x",)),
    "tensorflow.identity": OutputShape("follows", ("input",)),
    "tensorflow.stop_gradient": OutputShape("follows", ("input",)),
    "tensorflow.math.abs": OutputShape("follows", ("x",)),
    "tensorflow.math.maximum": OutputShape("follows", ("x", "y")),
    "tensorflow.math.minimum": OutputShape("follows", ("x", "y")),
    "tensorflow.math.add": OutputShape("follows", ("x", "y")),
    "tensorflow.math.subtract": OutputShape("follows", ("x", "y")),
    "tensorflow.math.multiply": OutputShape("follows", ("x", "y")),
    "tensorflow.math.divide": OutputShape("follows", ("x", "y")),
    "tensorflow.concat": OutputShape("grows", ("values",)),
    "tensorflow.stack": OutputShape("grows", ("values",)),
    "tensorflow.tile": OutputShape("grows", ("input",)),
    "tensorflow.pad": OutputShape("grows", ("tensor",)),
}
"""Canonical TensorFlow names (as `lookup` answers them) and their output-shape rule; an op
not listed gives no evidence either way."""
