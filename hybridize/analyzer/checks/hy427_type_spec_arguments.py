"""HY427 passes_type_specs: a `tf.TypeSpec` as an argument or a result of the function."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.facts.evaluator import get_evaluator
from hybridize.analyzer.facts.predicates import holds_leaf
from hybridize.analyzer.facts.spec_annotations import annotated_spec
from hybridize.analyzer.facts.values import SPEC
from hybridize.analyzer.summaries.syms import param_sym
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext


class PassesTypeSpecs(Check):
    """Receives a `tf.TypeSpec` from a caller, or returns one to its callers.

    What it detects
    ---------------
    A parameter that may receive a type spec, alone or inside a list, tuple or dict: from
    the project's calls (a value made by `tf.TensorSpec`, `tf.RaggedTensorSpec` and the other
    spec classes, `tf.type_spec_from_value`, a dataset's `element_spec`, a tensor's
    `_type_spec`), or by its annotation (a framework spec class, or a project class deriving
    from one such as tensorflow-gnn's `GraphTensorSpec`); or a return value that may be a
    type spec. The framework tables say which constructors and attributes give specs. An
    annotated value keeps its possible specs where it flows: tensorflow-gnn's
    `features_spec: FeaturesSpec` (`Mapping[str, tf.RaggedTensorSpec]`), copied into an
    attribute and mapped as the second structure of `tf.nest.map_structure(fn, tensors,
    specs)`, hands `fn`'s second parameter a spec (parameter i gets structure i's leaves).

    Why it matters in graph mode
    ----------------------------
    `tf.function` reads a `TypeSpec` among its arguments as the placeholder of an input
    (as in an `input_signature`) and then converts the argument itself to a tensor, which
    fails: "ValueError: Attempt to convert a value (TensorSpec(...)) with an unsupported
    type ... to a Tensor", whatever the function does with it (only `spec.dtype` too). A
    RaggedTensorSpec fails with "The two structures don't have the same nested structure".
    A spec returned fails the trace: "Python functions must return zero or more Tensors or
    ExtensionTypes or None values ... found return value of type TensorSpec". A spec made and
    read inside the function is fine. Measured under TF 2.21
    (tests/analyzer/test_hy427_type_specs.py measures it again); tensorflow-gnn's
    `restore_shape_and_dtype(value, value_spec)` (34 tests of its sampler) failed so.

    Example
    -------
        def restore(value, value_spec):
            return tf.cast(value, value_spec.dtype)

        restore(tf.constant([1, 2]), tf.TensorSpec([None], tf.float32))

    Instead
    -------
    Pass what the function needs of the spec (its dtype, its shape as a Python value), or
    compile the caller that holds the spec, whose trace reads it as a Python value.

    Not for torch.compile
    ---------------------
    PyTorch has no type specs.
    """

    code = "HY427"
    frameworks = TENSORFLOW_ONLY
    name = "passes_type_specs"
    severity = "error"
    summary = (
        "receives a tf.TypeSpec (TensorSpec, RaggedTensorSpec...) as an argument, or returns "
        "one: tf.function cannot convert a spec to a tensor and fails when called."
    )
    unblock = "pass the spec's dtype or shape, or compile the caller that holds the spec"
    fact = "passes_type_specs"
    fact_meaning = (
        "a parameter may receive a `tf.TypeSpec` (from a call, or by its annotation), or a "
        "return value may be one: tf.function fails converting it to a tensor"
    )
    decision_order = 147
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """One finding naming each parameter that may receive a spec and whether a return
        may give one, for a function that is not compiled yet."""
        if not context.changes_on_compiling:
            return []
        index, key, fn = context.index, context.key, context.function
        evaluator = get_evaluator(index, context.facts, key)
        reasons: list[str] = []
        for param in fn.explicit_params:
            # The annotation first: the evaluator counts it among what the parameter may
            # receive, and the finding says where the spec comes from.
            named = annotated_spec(index, key.file, param.annotation)
            if named is not None:
                reasons.append(f"`{param.name}` is annotated `{named}`")
            elif holds_leaf(evaluator.eval(param_sym(param.name)), SPEC):
                reasons.append(f"`{param.name}` may receive one from a caller")
        if any(holds_leaf(evaluator.eval(sym), SPEC) for sym in fn.returns):
            reasons.append("it may return one")
        if not reasons:
            return []
        return [
            cls.finding(
                f"a tf.TypeSpec crosses the function's boundary ({'; '.join(reasons)}): "
                "tf.function reads a spec argument as an input's placeholder and fails "
                'converting it to a tensor ("Attempt to convert a value (TensorSpec(...))"), '
                "and a compiled function returns tensors only",
                fn.span,
            )
        ]
