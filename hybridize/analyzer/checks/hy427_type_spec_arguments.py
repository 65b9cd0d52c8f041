"""HY427 passes_type_specs: a `tf.TypeSpec` as an argument or a result of the function."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from hybridize.analyzer.facts.evaluator import get_evaluator
from hybridize.analyzer.facts.predicates import leaf_atoms
from hybridize.analyzer.facts.refs import Ref, is_class_ref, is_ext_ref, is_global_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import SPEC
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import is_attr, is_local, is_name, param_sym
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext

DOTTED_NAME = re.compile(r"[A-Za-z_][\w.]*")
MAX_BASE_DEPTH = 8
"""How far up a project class's bases a framework spec class is looked for."""
MAX_ALIAS_DEPTH = 6
"""How many module-level aliases an annotation is followed through."""


def is_spec_class(dotted: str) -> bool:
    """A framework class whose instances are type specs (`tf.TensorSpec`, `tf.TypeSpec`,
    `tf.RaggedTensorSpec`...), as the framework tables know it (role "spec")."""
    info = lookup(dotted)
    return info is not None and info.kind == "class" and info.returns == SPEC_ROLE


SPEC_ROLE = "spec"
"""The role the framework tables give type specs and what makes them."""


def _project_spec_class(index: ProjectIndex, class_key: ClassKey, depth: int = 0) -> bool:
    """A project class deriving from a framework spec class (tensorflow-gnn's
    `GraphTensorSpec`, through `BatchableExtensionTypeSpec`)."""
    if depth > MAX_BASE_DEPTH:
        return False
    for ref in index.base_refs(class_key):
        if is_ext_ref(ref) and is_spec_class(ref[1]):
            return True
        if is_class_ref(ref) and _project_spec_class(index, ref[1], depth + 1):
            return True
    return False


def annotated_spec(index: ProjectIndex, key: FunctionKey, annotation: str | None) -> str | None:
    """The name in an annotation that stands for a spec class (`tf.TensorSpec`,
    `Optional[tf.TypeSpec]`, `GraphTensorSpec`, an alias such as tensorflow-gnn's
    `FeaturesSpec = Mapping[str, tf.RaggedTensorSpec]`), else None: the parameter is declared
    to receive specs."""
    if not annotation:
        return None
    for name in sorted(set(DOTTED_NAME.findall(annotation))):
        if _names_spec(index, index.resolve_dotted(key.file, name), 0):
            return name
    return None


def _names_spec(index: ProjectIndex, ref: Ref, depth: int) -> bool:
    """The name refers to a spec class, or to a module-level alias whose value names one."""
    if depth > MAX_ALIAS_DEPTH:
        return False
    if is_ext_ref(ref):
        return is_spec_class(ref[1])
    if is_class_ref(ref):
        return _project_spec_class(index, ref[1])
    if is_global_ref(ref):
        module = index.modules.get(ref[1])
        values = module.module_code.locals.get(ref[2], []) if module is not None else []
        return any(
            _names_spec(index, index.resolve_dotted(ref[1], dotted), depth + 1)
            for value in values
            for dotted in _dotted_names(value)
        )
    return False


def _dotted_names(value: object) -> Iterator[str]:
    """The dotted names an alias's value spells (`Union[tf.TensorSpec, Spec]`: `Union`,
    `tf.TensorSpec`, `Spec`): the name and attribute chains among its nested syms."""
    if isinstance(value, tuple) and value and isinstance(value[0], str):
        dotted = _dotted(value)
        if dotted is not None:
            yield dotted
            return
        parts: Iterable[object] = value[1:]
    elif isinstance(value, (tuple, list, frozenset)):
        parts = value
    else:
        return
    for part in parts:
        yield from _dotted_names(part)


def _dotted(sym: tuple) -> str | None:
    if (is_name(sym) or is_local(sym)) and isinstance(sym[1], str):
        return sym[1]
    if is_attr(sym) and isinstance(sym[1], tuple):
        base = _dotted(sym[1])
        return f"{base}.{sym[2]}" if base is not None else None
    return None


class PassesTypeSpecs(Check):
    """Receives a `tf.TypeSpec` from a caller, or returns one to its callers.

    What it detects
    ---------------
    A parameter that may receive a type spec, alone or inside a list, tuple or dict: from
    the project's calls (a value made by `tf.TensorSpec`, `tf.RaggedTensorSpec` and the other
    spec classes, `tf.type_spec_from_value`, a dataset's `element_spec`, a tensor's
    `_type_spec`), or by its annotation (a framework spec class, or a project class deriving
    from one such as tensorflow-gnn's `GraphTensorSpec`); or a return value that may be a
    type spec. The framework tables say which constructors and attributes give specs.

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
            if SPEC in leaf_atoms(evaluator.eval(param_sym(param.name))):
                reasons.append(f"`{param.name}` may receive one from a caller")
                continue
            named = annotated_spec(index, key, param.annotation)
            if named is not None:
                reasons.append(f"`{param.name}` is annotated `{named}`")
        if any(SPEC in leaf_atoms(evaluator.eval(sym)) for sym in fn.returns):
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
