"""Project classes TensorFlow converts to a tensor: what tf.function returns of them.

A class registered with `tf.register_tensor_conversion_function(Cls, fn)` (anywhere in the
project: edward2's `RandomVariable`, registered at import of its module), or defining the
`__tf_tensor__` protocol, is a Python value `tf.convert_to_tensor` accepts. `tf.function`
converts every returned leaf with it: eagerly the caller gets the object, compiled an
`EagerTensor` (measured with TensorFlow 2.21, for the class, a subclass of it and a class with
`__tf_tensor__`, alone or in a returned tuple), whose lack of the object's attributes
(`rv.distribution`) raises `AttributeError` in the caller. A plain class not registered
raises `TypeError` while tracing instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.values import Atom, is_class_atom, is_tup_atom, project_key
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey

REGISTER = "tensorflow.register_tensor_conversion_function"
PROTOCOL = "__tf_tensor__"


def tensor_conversion(index: ProjectIndex, facts: TensorFacts, class_key: ClassKey) -> str | None:
    """How TensorFlow converts instances of a project class to a tensor (through a class of
    its MRO registered in the project, or its `__tf_tensor__`), None when it does not."""
    registered = per_function(facts, "tensor_conversion_registrations", _registered)
    classes: set[ClassKey] = set()
    for found in registered.values():
        classes |= found
    for base in index.mro(class_key):
        if base in classes:
            name = "" if base == class_key else f" (as a `{base.qualname}`)"
            return f"registered with `tf.register_tensor_conversion_function`{name}"
    if index.find_method(class_key, PROTOCOL) is not None:
        return f"converted by its `{PROTOCOL}`"
    return None


def _registered(_key: FunctionKey, calls: list[ResolvedCall]) -> frozenset[ClassKey]:
    """The project classes a function's code registers a tensor conversion function for
    (the call's `base_type`: a class or a tuple of classes)."""
    found: set[ClassKey] = set()
    for resolved in calls:
        if not any(info.name == REGISTER for info in resolved.api):
            continue
        given = resolved.kwargs.get("base_type")
        if given is None and resolved.args:
            given = resolved.args[0]
        found.update(_classes(given or ()))
    return frozenset(found)


def _classes(atoms: Iterable[Atom]) -> Iterable[ClassKey]:
    for atom in atoms:
        if is_class_atom(atom):
            yield project_key(atom)
        elif is_tup_atom(atom):
            for part in atom[1]:
                yield from (project_key(a) for a in part if is_class_atom(a))
