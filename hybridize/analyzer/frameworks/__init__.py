"""Framework knowledge as data: what TensorFlow, Keras, NumPy and Python APIs yield and do.

The analyzer never imports TensorFlow, Keras or NumPy. What it knows about them lives in
generated tables (``tensorflow_api.json``, ``numpy_api.json``: every public name, its kind,
its role from the real class hierarchy, its aliases) and hand-curated rules
(``tensorflow_rules``, ``higher_order``, ``methods``, ``numpy_rules``, ``python_stdlib``).

Queries:

* ``lookup(qualified_name)``: a function, class, module or constant by its fully qualified
  name after import resolution (``"tensorflow.reduce_sum"``, ``"keras.layers.Dense"``,
  ``"numpy.mean"``, ``"builtins.print"``, ``"os.path.join"``);
* ``lookup_parameters(qualified_name)``: the names of the parameters of a TensorFlow, Keras or
  NumPy function or class (its constructor) that can be passed positionally
  (``"tensorflow.sqrt"`` -> ``("x", "name")``), to map positional arguments to names;
* ``Framework.method_of(role, method)``: ``obj.method(...)`` where the role of ``obj`` is known
  (``("model", "fit")``, ``("dataset", "map")``, ``("list", "append")``), in the code of
  that framework (``members``);
* ``Framework.attribute_of(role, attribute)``: a non-call attribute read
  (``("model", "trainable_variables")``, ``("tensor", "shape")``);
* ``tensor_spec(api, args, kwargs)``: the dtype and shape of the tensor an op returns;
* ``element_role(role)``: what ``for x in value`` binds;
* ``is_container_mutator(method)``: ``append``, ``update``, ``__setitem__`` ...

A name is answered by the framework whose packages it belongs to (``Framework.lookup_api``),
or by the NumPy, SciPy and Python tables. Every query is memoised: after the first call for a name it is a dict lookup. The JSON
tables are read once, on first use. See ``api_info`` for the vocabulary of the answers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from fnmatch import fnmatchcase

from hybridize.analyzer.facts.values import Atom

from . import framework as framework_module
from . import higher_order, methods, numpy_rules, output_shapes, python_stdlib
from ._tables import ApiTable, Entry, numpy_table
from .api_info import (
    EFFECTS,
    KINDS,
    OBJECT,
    PYTHON_EFFECTS,
    RETURNS,
    TENSOR_LIKE_RETURNS,
    TENSOR_RETURNS,
    UNKNOWN,
    ApiInfo,
    Behaviour,
)
from .framework import api_owner, framework_of_api
from .members import shared_member
from .namespaces import namespace_of, normalise
from .shapes import Shape

__all__ = [
    "EFFECTS",
    "KINDS",
    "PYTHON_EFFECTS",
    "RETURNS",
    "TENSOR_LIKE_RETURNS",
    "TENSOR_RETURNS",
    "VAR_POSITIONAL",
    "ApiInfo",
    "Behaviour",
    "composite_spec",
    "element_role",
    "hinted_kind",
    "is_container_mutator",
    "literal_order_inputs",
    "lookup",
    "lookup_parameters",
    "output_shape_rule",
    "tensor_spec",
    "units_parameter",
    "written_name",
]

#: Last element of a ``lookup_parameters`` answer for a function that also takes ``*args``.
VAR_POSITIONAL = "*"


@functools.cache
def lookup(qualified_name: str) -> ApiInfo | None:
    """Resolve a fully qualified dotted name as written after import resolution.

    Examples: ``"tensorflow.reduce_sum"``, ``"tensorflow.keras.layers.Dense"`` (answered as
    ``keras.layers.Dense``), ``"keras.layers.Dense"``, ``"tensorflow.compat.v2.math.add"``,
    ``"numpy.mean"``, ``"builtins.print"`` (or ``"print"``), ``"logging.info"``,
    ``"time.time"``, ``"os.path.join"``. Aliases resolve to one canonical ``ApiInfo.name``
    (``tensorflow.add`` -> ``tensorflow.math.add``).

    Returns None for unknown names. Prefix-module fallback: an unknown name under a known
    namespace gets that namespace's default (``"tensorflow.raw_ops.Foo"``, a private or newer
    op, is a tensor op returning a tensor; ``"keras.layers.NewLayer"`` is a layer class);
    an unknown static member of a known class answers like the method of its role
    (``"keras.Model.fit"``).
    """
    name = normalise(qualified_name)
    owned = api_owner(name)
    if owned is not None:
        found = owned[1].lookup_api(name)
    else:
        found = _LIBRARY_LOOKUPS.get(namespace_of(name), _lookup_python)(name)
    # Every spelling of one API shares one ApiInfo object.
    return None if found is None else _INTERNED.setdefault(found, found)


_INTERNED: dict[ApiInfo, ApiInfo] = {}


def _table_of(name: str) -> ApiTable | None:
    """The generated table of a name's package (its framework's, NumPy's), None for none."""
    owned = api_owner(name)
    if owned is not None:
        return owned[1].table()
    namespace = namespace_of(name)
    return _LIBRARY_TABLES[namespace]() if namespace in _LIBRARY_TABLES else None


@functools.cache
def lookup_parameters(qualified_name: str) -> tuple[str, ...] | None:
    """Names of the parameters that can be passed positionally to a framework's or NumPy's API.

    ``qualified_name`` is resolved exactly as ``lookup`` resolves it (prefix rewrites such as
    ``tensorflow.keras.`` -> ``keras.``, then aliases to the canonical name), so every spelling
    of one API answers alike: ``"tensorflow.sqrt"`` and ``"tensorflow.math.sqrt"`` ->
    ``("x", "name")``; ``"tensorflow.constant"`` -> ``("value", "dtype", "shape", "name")``.

    The answer lists the positional-only and positional-or-keyword parameters in order, as
    recorded from ``inspect.signature`` by the generators. A class answers for its
    constructor, without ``self`` (``"tensorflow.keras.layers.Dense"`` -> ``("units",
    "activation", ...)``). When the API also takes ``*args`` the last element is
    ``VAR_POSITIONAL`` (``"*"``): ``"tensorflow.print"`` -> ``("*",)``. An empty tuple means
    keyword arguments only (every ``tensorflow.raw_ops`` op).

    Returns None for unknown names, for names known only by ``lookup``'s prefix fallback, for
    modules and constants, for APIs without an inspectable signature (protobuf message
    classes, some C builtins) and for anything outside the frameworks' and NumPy's tables.
    """
    name = normalise(qualified_name)
    table = _table_of(name)
    if table is None:
        return None
    canonical = table.resolve(name)
    if canonical is None:
        return None
    return table.parameters.get(canonical)


@functools.cache
def literal_order_inputs(qualified_name: str) -> tuple[tuple[int, int], frozenset[str]] | None:
    """For an op whose two inputs share one dtype and whose graph builder converts a leading
    Python number to its own default dtype (its framework's `Framework.literal_orders`,
    measured: ``tensorflow_literal_order.json``), the positions of those inputs and the
    literal kinds ("int", "float") that break only in a graph; else None.
    ``tf.maximum(0, x)`` -> ``((0, 1), {"int", "float"})``."""
    name = normalise(qualified_name)
    owned = api_owner(name)
    if owned is None:
        return None
    owner = owned[1]
    return owner.literal_order_inputs(owner.table().resolve(name) or "")


@functools.cache
def output_shape_rule(qualified_name: str) -> output_shapes.OutputShape | None:
    """How an op's output shape relates to its inputs, when it may not keep a loop
    variable's static shape (its framework's `Framework.output_shapes`):
    ``"tensorflow.boolean_mask"`` -> ``OutputShape("data_dependent")``; None for an op not
    listed (no evidence)."""
    name = normalise(qualified_name)
    owned = api_owner(name)
    if owned is None:
        return None
    owner = owned[1]
    return owner.output_shapes.get(owner.table().resolve(name) or name)


def tensor_spec(
    api: ApiInfo, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> tuple[str | None, Shape] | None:
    """(dtype, shape) of the tensor an op returns, or None when nothing is known, by its
    framework's rules (`Framework.result_dtype`, `Framework.result_shape`)."""
    owner = framework_of_api(api.framework)
    if owner is None:
        return None
    dtype = owner.result_dtype(api.name, args, kwargs)
    shape = owner.result_shape(api.name, args, kwargs)
    if dtype is None and shape is None:
        return None
    return dtype, shape


def hinted_kind(name: str, written: str) -> str | None:
    """ "tensor" or "variable" for a type hint naming a framework's tensor or variable type
    (`Framework.hinted_kind`: `name` resolved, `written` as the annotation spells it)."""
    for framework in framework_module.FRAMEWORKS:
        kind = framework.hinted_kind(name, written)
        if kind is not None:
            return kind
    return None


def written_name(canonical: str) -> str:
    """An API's canonical name as its framework's documentation writes it
    (`Framework.written`: `tensorflow.random.uniform` -> `tf.random.uniform`)."""
    for framework in framework_module.FRAMEWORKS:
        if canonical.startswith(framework.module + "."):
            return framework.written(canonical)
    return canonical


def composite_spec(api_name: str) -> str | None:
    """The spec of the composite tensor an op builds (`Framework.composite_spec`:
    `SparseTensorSpec`, `RaggedTensorSpec`), None for a plain tensor."""
    for framework in framework_module.FRAMEWORKS:
        spec = framework.composite_spec(api_name)
        if spec is not None:
            return spec
    return None


def units_parameter(api_name: str) -> str | None:
    """The constructor parameter of a layer class that is its output's last axis
    (`Framework.units_layers`: `units` of a Keras `Dense`), None for other classes."""
    for framework in framework_module.FRAMEWORKS:
        found = framework.units_layers.get(api_name)
        if found is not None:
            return found
    return None


def element_role(receiver_role: str) -> str | None:
    """What iterating a value of ``receiver_role`` binds (``for x in dataset`` -> "tensors").

    None when unknown (e.g. a list: its elements are whatever was put in).
    """
    role = methods.ROLE_SYNONYMS.get(receiver_role, receiver_role)
    return methods.ELEMENT_ROLES.get(role)


def is_container_mutator(method: str) -> bool:
    """True for method names that mutate a Python container in place (``append``,
    ``extend``, ``insert``, ``pop``, ``update``, ``setdefault``, ``add``, ``__setitem__`` ...).
    """
    return method in methods.CONTAINER_MUTATORS


# --- NumPy and SciPy -------------------------------------------------------------------------


@functools.cache
def _numpy_overrides() -> dict[str, Behaviour]:
    table = numpy_table()
    merged: dict[str, Behaviour] = {}
    sources = (
        numpy_rules.NUMPY_OVERRIDES,
        {k: v for k, v in higher_order.HIGHER_ORDER.items() if k.startswith("numpy.")},
    )
    for source in sources:
        for written, behaviour in source.items():
            merged[written] = behaviour
            canonical = table.resolve(written)
            if canonical is not None:
                merged[canonical] = behaviour
    return merged


def _lookup_numpy(name: str) -> ApiInfo | None:
    table = numpy_table()
    overrides = _numpy_overrides()
    canonical = table.resolve(name)
    if canonical is not None:
        entry = table.entries[canonical]
        behaviour = overrides.get(canonical)
        if behaviour is None:
            behaviour = _numpy_entry_behaviour(canonical, entry)
        return ApiInfo.of(canonical, "numpy", entry.kind, behaviour)
    parent = table.nearest_known_parent(name)
    if parent is None:
        return None
    parent_name, suffix, parent_entry = parent
    member = suffix[1:]
    if parent_entry.kind == "class" and parent_entry.role in ("numpy", "rng") and "." not in member:
        info = shared_member(parent_entry.role, member, "method") or shared_member(
            parent_entry.role, member, "attribute"
        )
        if info is None:
            return None
        return ApiInfo.of(f"{parent_name}.{member}", "numpy", info.kind, info)
    if parent_entry.kind != "module":
        return None
    guess = parent_name + suffix
    behaviour = overrides.get(guess) or numpy_rules.namespace_default(guess)
    if behaviour is None:
        return None
    return ApiInfo.of(guess, "numpy", "function", behaviour)


def _numpy_entry_behaviour(name: str, entry: Entry) -> Behaviour:
    if entry.kind == "class":
        return numpy_rules.CLASS_ROLE_BEHAVIOUR.get(entry.role, OBJECT)
    if entry.kind == "constant":
        return Behaviour("python")
    if entry.kind == "module":
        return OBJECT
    return numpy_rules.namespace_default(name) or UNKNOWN


def _lookup_scipy(name: str) -> ApiInfo | None:
    behaviour = numpy_rules.SCIPY_OVERRIDES.get(name)
    if behaviour is None:
        for pattern, candidate in numpy_rules.SCIPY_PATTERNS:
            if fnmatchcase(name, pattern):
                behaviour = candidate
                break
    if behaviour is None:
        behaviour = numpy_rules.namespace_default(name)
    if behaviour is None:
        return None
    return ApiInfo.of(name, "scipy", "function", behaviour)


# --- Python ----------------------------------------------------------------------------------


def _lookup_python(name: str) -> ApiInfo | None:
    behaviour = python_stdlib.STDLIB.get(name) or higher_order.THIRD_PARTY.get(name)
    if behaviour is None:
        behaviour = python_stdlib.namespace_default(name)
    if behaviour is None:
        return None
    kind = "class" if name in python_stdlib.CLASSES else "function"
    return ApiInfo.of(name, "python", kind, behaviour)


_LIBRARY_LOOKUPS: dict[str, Callable[[str], ApiInfo | None]] = {
    "numpy": _lookup_numpy,
    "scipy": _lookup_scipy,
}
"""How the libraries outside the frameworks answer their names (the rest: `_lookup_python`)."""

_LIBRARY_TABLES: dict[str, Callable[[], ApiTable]] = {"numpy": numpy_table}
"""The generated tables of the libraries outside the frameworks."""
