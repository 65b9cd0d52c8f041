"""What a TensorFlow or Keras API is, by its canonical qualified name: `TENSORFLOW`'s
answer to `lookup` (`Framework.lookup_api`).

The generated table (`tensorflow_api.json`) gives every public name's kind and role; the
curated rules (`tensorflow_rules`, `higher_order`) give the behaviours the roles do not.
"""

from __future__ import annotations

import functools
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from . import higher_order, tensorflow_rules
from ._tables import ApiTable, Entry, tensorflow_table
from .api_info import OBJECT, RETURNS, UNKNOWN, ApiInfo, Behaviour
from .namespaces import namespace_of, normalise

if TYPE_CHECKING:
    from .framework import Framework


def lookup_tensorflow(framework: Framework, name: str) -> ApiInfo | None:
    """The TensorFlow or Keras API `name` (normalised) names; None when unknown.

    An unknown name under a known namespace gets that namespace's default
    (``"tensorflow.raw_ops.Foo"``, a private or newer op, is a tensor op returning a tensor;
    ``"keras.layers.NewLayer"`` is a layer class); an unknown static member of a known class
    answers like the method of its role (``"keras.Model.fit"``), as `framework` answers it.
    """
    table = tensorflow_table()
    canonical = table.resolve(name)
    if canonical is not None:
        entry = table.entries[canonical]
        behaviour = _tensorflow_behaviour(canonical, entry, table)
        return ApiInfo.of(canonical, namespace_of(canonical), entry.kind, behaviour)
    v1 = _tf1_top_level(name, table)
    if v1 is not None:
        return lookup_tensorflow(framework, v1)
    return _lookup_unknown_tensorflow(framework, name, table)


@functools.cache
def _tensorflow_overrides() -> dict[str, Behaviour]:
    """Curated TF/Keras behaviours keyed by both their written and their canonical name."""
    table = tensorflow_table()
    merged: dict[str, Behaviour] = {}
    sources = (
        tensorflow_rules.FUNCTION_OVERRIDES,
        tensorflow_rules.CLASS_OVERRIDES,
        {k: v for k, v in higher_order.HIGHER_ORDER.items() if not k.startswith("numpy.")},
    )
    for source in sources:
        for written, behaviour in source.items():
            spelled = normalise(written)
            merged[spelled] = behaviour
            canonical = table.resolve(spelled)
            if canonical is not None:
                merged[canonical] = behaviour
    return merged


def _rule_names(name: str, table: ApiTable) -> tuple[str, ...]:
    """``name`` and, for a compat.v1 name, its TF2 mirror in both spellings."""
    names = tensorflow_rules.rule_names(name)
    if len(names) == 1:
        return names
    mirror = names[1]
    canonical = table.resolve(mirror)
    if canonical is None or canonical == mirror:
        return names
    return (*names, canonical)


def _class_behaviour(role: str) -> Behaviour:
    behaviour = tensorflow_rules.CLASS_ROLE_BEHAVIOUR.get(role)
    if behaviour is not None:
        return behaviour
    return Behaviour(role) if role in RETURNS else OBJECT


def _tensorflow_behaviour(name: str, entry: Entry, table: ApiTable) -> Behaviour:
    overrides = _tensorflow_overrides()
    names = _rule_names(name, table)
    if entry.kind in ("function", "class"):
        for candidate in names:
            if candidate in overrides:
                return overrides[candidate]
    if entry.kind == "class":
        return _class_behaviour(entry.role)
    if entry.kind == "constant":
        return Behaviour(entry.role if entry.role in RETURNS else "object")
    if entry.kind == "module":
        return OBJECT
    for pattern, behaviour in tensorflow_rules.PATTERNS:
        if any(fnmatchcase(candidate, pattern) for candidate in names):
            return behaviour
    if entry.role:  # a static/class method: answers by the role of its class
        member = tensorflow_rules.MEMBER_ROLE_BEHAVIOUR.get(entry.role)
        if member is not None:
            return member
        if name.rsplit(".", 1)[-1].startswith("from_") and entry.role != "object":
            return _class_behaviour(entry.role)
        return UNKNOWN
    return tensorflow_rules.namespace_default(name) or UNKNOWN


def _tf1_top_level(name: str, table: ApiTable) -> str | None:
    """The `tensorflow.compat.v1` name of a TF1 top-level name that TF2 dropped.

    TF1 code written against `import tensorflow as tf` spells `tf.placeholder`,
    `tf.Session`, `tf.get_variable`: TF2 keeps exactly those under `tf.compat.v1`, so a
    `tensorflow.X` unknown to the table but known as `tensorflow.compat.v1.X` is that API.
    """
    prefix = "tensorflow."
    if not name.startswith(prefix) or name.startswith("tensorflow.compat."):
        return None
    v1 = "tensorflow.compat.v1." + name[len(prefix) :]
    return v1 if table.resolve(v1) is not None else None


TF1_ONLY_NAMESPACES: tuple[str, ...] = ("tensorflow.contrib",)
"""Namespaces TensorFlow 2 removed without a `tf.compat.v1` mirror: `tf.contrib` (and with it
`tf.contrib.eager`, the `tfe` of TF1's eager mode: `tfe.implicit_gradients`, `tfe.Variable`)."""


@functools.lru_cache(maxsize=8192)
def is_tf1_only_name(name: str) -> bool:
    """Whether the (normalised) name exists in TensorFlow 1 only: under `tf.contrib`, or a
    top-level TF1 spelling TF2 keeps under `tf.compat.v1` alone (`tf.Session`,
    `tf.enable_eager_execution`, `tf.placeholder`, `tf.log`): TF 2.21 raises AttributeError
    on it, so code naming it runs on TensorFlow 1.x. `tf.compat.v1` names are TF2's.
    Memoised: the candidacy asks it of every external callee of every function, and the
    answer reads the fixed tables alone."""
    if any(name == ns or name.startswith(ns + ".") for ns in TF1_ONLY_NAMESPACES):
        return True
    table = tensorflow_table()
    return table.resolve(name) is None and _tf1_top_level(name, table) is not None


def _lookup_unknown_tensorflow(framework: Framework, name: str, table: ApiTable) -> ApiInfo | None:
    parent = table.nearest_known_parent(name)
    if parent is None:
        return None
    parent_name, suffix, parent_entry = parent
    guess = parent_name + suffix
    if parent_entry.kind == "class":
        return _class_member(framework, guess, parent_entry.role)
    if parent_entry.kind != "module":
        return None  # an attribute of a function or constant
    behaviour = tensorflow_rules.namespace_default(guess)
    if behaviour is None:
        return None  # a namespace where no guess is safe (private implementation modules)
    last = guess.rsplit(".", 1)[-1]
    if last[:1].isupper() and not _in_function_case_namespace(guess):
        role = _capitalized_class_role(guess)
        return ApiInfo.of(guess, namespace_of(guess), "class", _class_behaviour(role))
    return ApiInfo.of(guess, namespace_of(guess), "function", behaviour)


def _class_member(framework: Framework, name: str, class_role: str) -> ApiInfo | None:
    class_name, _, member = name.rpartition(".")
    if "." in member or not member:
        return None
    if member.startswith("from_"):
        behaviour = _class_behaviour(class_role)
        return ApiInfo.of(name, namespace_of(name), "function", behaviour)
    role = "tensor" if class_role == "tensor_type" else class_role
    info = framework.method_of(role, member)
    kind = "function"
    if info is None:
        info = framework.attribute_of(role, member)
        kind = "attribute"
    if info is None:
        return None
    return ApiInfo.of(name, namespace_of(class_name), kind, info)


def _in_function_case_namespace(name: str) -> bool:
    return any(name.startswith(ns + ".") for ns in tensorflow_rules.FUNCTION_CASE_NAMESPACES)


def _capitalized_class_role(name: str) -> str:
    end = len(name)
    while (end := name.rfind(".", 0, end)) > 0:
        role = tensorflow_rules.CAPITALIZED_CLASS_ROLES.get(name[:end])
        if role is not None:
            return role
    return "object"
