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
* ``lookup_method(role, method)``: ``obj.method(...)`` where the role of ``obj`` is known
  (``("model", "fit")``, ``("dataset", "map")``, ``("list", "append")``);
* ``lookup_attribute(role, attribute)``: a non-call attribute read
  (``("model", "trainable_variables")``, ``("tensor", "shape")``);
* ``element_role(role)``: what ``for x in value`` binds;
* ``is_container_mutator(method)``: ``append``, ``update``, ``__setitem__`` ...

Every query is memoised: after the first call for a name it is a dict lookup. The JSON
tables are read once, on first use. See ``api_info`` for the vocabulary of the answers.
"""

from __future__ import annotations

import functools
from fnmatch import fnmatchcase

from . import (
    higher_order,
    methods,
    numpy_rules,
    output_shapes,
    python_stdlib,
    tensorflow_rules,
    torch_rules,
)
from ._tables import (
    ApiTable,
    Entry,
    literal_order_table,
    numpy_table,
    tensorflow_table,
    torch_table,
)
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
    "element_role",
    "instance_call_method",
    "is_container_mutator",
    "lookup",
    "lookup_attribute",
    "lookup_method",
    "lookup_parameters",
    "output_shape_rule",
]

#: Last element of a ``lookup_parameters`` answer for a function that also takes ``*args``.
VAR_POSITIONAL = "*"

#: Spellings that name the same API as their canonical prefix (applied until none matches).
_PREFIX_REWRITES: tuple[tuple[str, str], ...] = (
    ("tensorflow.compat.v1.keras.", "keras."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.keras.", "keras."),
    ("tensorflow._api.v2.", "tensorflow."),
    ("tensorflow.python.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras._tf_keras.keras.", "keras."),
    ("keras.api.", "keras."),
)
_EXACT_REWRITES: dict[str, str] = {
    "tensorflow.keras": "keras",
    "tensorflow.compat.v2": "tensorflow",
    "tensorflow.compat.v1.keras": "keras",
    "tf_keras": "keras",
}

_FRAMEWORK_OF_ROOT: dict[str, str] = {
    "tensorflow": "tensorflow",
    "keras": "keras",
    "numpy": "numpy",
    "scipy": "scipy",
    **{root: "torch" for root in torch_rules.TORCH_PACKAGES},
}


def _normalise(name: str) -> str:
    name = name.strip()
    for _ in range(3):
        if name in _EXACT_REWRITES:
            return _EXACT_REWRITES[name]
        for prefix, replacement in _PREFIX_REWRITES:
            if name.startswith(prefix):
                name = replacement + name[len(prefix) :]
                break
        else:
            break
    if "." not in name and name in python_stdlib.BUILTIN_NAMES:
        return "builtins." + name
    return name


def _framework(name: str) -> str:
    return _FRAMEWORK_OF_ROOT.get(name.split(".", 1)[0], "python")


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
    name = _normalise(qualified_name)
    framework = _framework(name)
    if framework in ("tensorflow", "keras"):
        found = _lookup_tensorflow(name)
    elif framework == "numpy":
        found = _lookup_numpy(name)
    elif framework == "scipy":
        found = _lookup_scipy(name)
    elif framework == "torch":
        found = _lookup_torch(name)
    else:
        found = _lookup_python(name)
    # Every spelling of one API shares one ApiInfo object.
    return None if found is None else _INTERNED.setdefault(found, found)


_INTERNED: dict[ApiInfo, ApiInfo] = {}


@functools.cache
def lookup_parameters(qualified_name: str) -> tuple[str, ...] | None:
    """Names of the parameters that can be passed positionally to a TF/Keras/NumPy API.

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
    classes, some C builtins) and for anything outside TensorFlow, Keras and NumPy.
    """
    name = _normalise(qualified_name)
    framework = _framework(name)
    if framework in ("tensorflow", "keras"):
        table = tensorflow_table()
    elif framework == "numpy":
        table = numpy_table()
    elif framework == "torch":
        table = torch_table()
    else:
        return None
    canonical = table.resolve(name)
    if canonical is None:
        return None
    return table.parameters.get(canonical)


@functools.cache
def literal_order_inputs(qualified_name: str) -> tuple[tuple[int, int], frozenset[str]] | None:
    """For an op whose two inputs share one dtype and whose graph builder converts a leading
    Python number to its own default dtype (measured: ``tensorflow_literal_order.json``), the
    positions of those inputs and the literal kinds ("int", "float") that break only in a
    graph; else None. ``tf.maximum(0, x)`` -> ``((0, 1), {"int", "float"})``."""
    name = _normalise(qualified_name)
    if _framework(name) != "tensorflow":
        return None
    canonical = tensorflow_table().resolve(name)
    found = literal_order_table().get(canonical or "")
    if found is None:
        return None
    first, second = found["inputs"]
    return (first, second), frozenset(found["literals"])


@functools.cache
def lookup_method(receiver_role: str, method: str, framework: str = "tensorflow") -> ApiInfo | None:
    """Knowledge about ``obj.method(...)`` where the role of ``obj`` is known.

    Roles: "tensor", "variable", "dataset", "dataset_iterator", "tape", "layer", "model",
    "optimizer", "loss", "metric", "strategy", "checkpoint", "random_generator",
    "summary_writer", "keras_symbolic", "numpy", "rng", "file" (result of ``open()``),
    "logger", "path", "iterator", "list", "dict", "set", "str", "bytes", "tuple".
    A "model" has the methods of a "layer", a "variable" those of a "tensor". A few methods
    are known whatever the receiver (``.numpy()`` is eager-only on any framework object, and
    on a receiver of unknown role: pass "object" or "unknown").
    ``framework`` is the framework of the calling code (``Framework.name``): the roles are
    shared, but a "tensor" of PyTorch code is a ``torch.Tensor`` (``x.item()``, ``.backward()``
    answered from ``torch_api.json`` and ``torch_rules``), a "layer" an ``nn.Module``; what
    PyTorch's tables do not name is answered by the shared tables (Python containers, files).
    Returns None when the method is unknown (or is an attribute: see ``lookup_attribute``).
    """
    role = methods.ROLE_SYNONYMS.get(receiver_role, receiver_role)
    if framework == "torch":
        found = _torch_member(role, method, "method")
        if found is not None:
            return _member_info(role, method, "function", found, torch_rules.ROLE_TYPE_NAMES)
    behaviour = _role_lookup(role, method, methods.METHODS, "method")
    if behaviour is None:
        return None
    return _member_info(role, method, "function", behaviour)


@functools.cache
def lookup_attribute(
    receiver_role: str, attribute: str, framework: str = "tensorflow"
) -> ApiInfo | None:
    """Knowledge about reading ``obj.attribute`` (no call) where the role of ``obj`` is known.

    ``("model", "trainable_variables")`` returns "tensors" (a list of variables);
    ``("tensor", "shape")`` returns "python" (a static ``TensorShape``). ``kind`` is
    "attribute". ``framework`` as for ``lookup_method``. Returns None when unknown.
    """
    role = methods.ROLE_SYNONYMS.get(receiver_role, receiver_role)
    if framework == "torch":
        found = _torch_member(role, attribute, "attribute")
        if found is not None:
            return _member_info(role, attribute, "attribute", found, torch_rules.ROLE_TYPE_NAMES)
        if _torch_member(role, attribute, "method") is not None:
            # A method of the PyTorch object (`x.size`), whatever TensorFlow's tables say
            # of an attribute of that name (a tf.Tensor's NumPy-behaviour `size`).
            return None
    behaviour = _role_lookup(role, attribute, methods.ATTRIBUTES, "attribute")
    if behaviour is None:
        return None
    return _member_info(role, attribute, "attribute", behaviour)


def element_role(receiver_role: str) -> str | None:
    """What iterating a value of ``receiver_role`` binds (``for x in dataset`` -> "tensors").

    None when unknown (e.g. a list: its elements are whatever was put in).
    """
    role = methods.ROLE_SYNONYMS.get(receiver_role, receiver_role)
    return methods.ELEMENT_ROLES.get(role)


#: By ``ApiInfo.framework``: the method that calling an object of a layer class runs.
_INSTANCE_CALL_METHODS: dict[str, str] = {
    "tensorflow": tensorflow_rules.INSTANCE_CALL_METHOD,
    "keras": tensorflow_rules.INSTANCE_CALL_METHOD,
    "torch": torch_rules.INSTANCE_CALL_METHOD,
}


def instance_call_method(framework: str) -> str | None:
    """The method calling a layer object of `framework` (``ApiInfo.framework``) runs:
    "call" for a Keras layer, "forward" for a PyTorch module; None when it has none."""
    return _INSTANCE_CALL_METHODS.get(framework)


def is_container_mutator(method: str) -> bool:
    """True for method names that mutate a Python container in place (``append``,
    ``extend``, ``insert``, ``pop``, ``update``, ``setdefault``, ``add``, ``__setitem__`` ...).
    """
    return method in methods.CONTAINER_MUTATORS


# --- methods and attributes ------------------------------------------------------------------


def _role_lookup(
    role: str, member: str, tables: dict[str, dict[str, Behaviour]], member_kind: str
) -> Behaviour | None:
    current: str | None = role
    while current is not None:
        table = tables.get(current)
        if table is not None and member in table:
            return table[member]
        current = methods.ROLE_PARENTS.get(current)
    # Members the curated tables do not name: answer from the generated member lists.
    current = role
    while current is not None:
        default = methods.MEMBER_DEFAULTS.get((current, member_kind))
        if default is not None and _generated_members(current).get(member) == member_kind:
            return default
        current = methods.ROLE_PARENTS.get(current)
    if member_kind == "method" and role not in methods.PLAIN_ROLES:
        return methods.UNIVERSAL_METHODS.get(member)
    return None


def _generated_members(role: str) -> dict[str, str]:
    if role in ("numpy", "rng"):
        return numpy_table().role_members.get(role, {})
    return tensorflow_table().role_members.get(role, {})


def _member_info(
    role: str,
    member: str,
    kind: str,
    behaviour: Behaviour,
    type_names: dict[str, str] = methods.ROLE_TYPE_NAMES,
) -> ApiInfo:
    type_name = type_names.get(role, role)
    name = f"{type_name}.{member}"
    return ApiInfo.of(name, _framework(name), kind, behaviour)


# --- TensorFlow and Keras --------------------------------------------------------------------


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
            spelled = _normalise(written)
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


def _lookup_tensorflow(name: str) -> ApiInfo | None:
    table = tensorflow_table()
    canonical = table.resolve(name)
    if canonical is not None:
        entry = table.entries[canonical]
        behaviour = _tensorflow_behaviour(canonical, entry, table)
        return ApiInfo.of(canonical, _framework(canonical), entry.kind, behaviour)
    v1 = _tf1_top_level(name, table)
    if v1 is not None:
        return _lookup_tensorflow(v1)
    return _lookup_unknown_tensorflow(name, table)


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


def _lookup_unknown_tensorflow(name: str, table: ApiTable) -> ApiInfo | None:
    parent = table.nearest_known_parent(name)
    if parent is None:
        return None
    parent_name, suffix, parent_entry = parent
    guess = parent_name + suffix
    if parent_entry.kind == "class":
        return _class_member(guess, parent_entry.role)
    if parent_entry.kind != "module":
        return None  # an attribute of a function or constant
    behaviour = tensorflow_rules.namespace_default(guess)
    if behaviour is None:
        return None  # a namespace where no guess is safe (private implementation modules)
    last = guess.rsplit(".", 1)[-1]
    if last[:1].isupper() and not _in_function_case_namespace(guess):
        role = _capitalized_class_role(guess)
        return ApiInfo.of(guess, _framework(guess), "class", _class_behaviour(role))
    return ApiInfo.of(guess, _framework(guess), "function", behaviour)


def _class_member(name: str, class_role: str) -> ApiInfo | None:
    class_name, _, member = name.rpartition(".")
    if "." in member or not member:
        return None
    if member.startswith("from_"):
        behaviour = _class_behaviour(class_role)
        return ApiInfo.of(name, _framework(name), "function", behaviour)
    role = "tensor" if class_role == "tensor_type" else class_role
    info = lookup_method(role, member)
    kind = "function"
    if info is None:
        info = lookup_attribute(role, member)
        kind = "attribute"
    if info is None:
        return None
    return ApiInfo.of(name, _framework(class_name), kind, _behaviour_of(info))


def _behaviour_of(info: ApiInfo) -> Behaviour:
    return Behaviour(
        returns=info.returns,
        tensor_op=info.tensor_op,
        effect=info.effect,
        callback_args=info.callback_args,
        traces_callbacks=info.traces_callbacks,
        callback_input=info.callback_input,
        callback_args_tuple=info.callback_args_tuple,
        callback_accumulator=info.callback_accumulator,
        untraced_callback_args=info.untraced_callback_args,
        concrete_args=info.concrete_args,
        mutates_receiver=info.mutates_receiver,
        mutated_args=info.mutated_args,
        tf1_graph=info.tf1_graph,
        training_update=info.training_update,
        chains_modules=info.chains_modules,
        holds_modules=info.holds_modules,
        global_random=info.global_random,
        note=info.note,
    )


def _in_function_case_namespace(name: str) -> bool:
    return any(name.startswith(ns + ".") for ns in tensorflow_rules.FUNCTION_CASE_NAMESPACES)


def _capitalized_class_role(name: str) -> str:
    end = len(name)
    while (end := name.rfind(".", 0, end)) > 0:
        role = tensorflow_rules.CAPITALIZED_CLASS_ROLES.get(name[:end])
        if role is not None:
            return role
    return "object"


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
        info = lookup_method(parent_entry.role, member) or lookup_attribute(
            parent_entry.role, member
        )
        if info is None:
            return None
        return ApiInfo.of(f"{parent_name}.{member}", "numpy", info.kind, _behaviour_of(info))
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


# --- PyTorch ---------------------------------------------------------------------------------


def _torch_class_behaviour(role: str) -> Behaviour:
    behaviour = torch_rules.CLASS_ROLE_BEHAVIOUR.get(role)
    if behaviour is not None:
        return behaviour
    return Behaviour(role) if role in RETURNS else OBJECT


def _torch_returns(returns: str, tensor_op: bool) -> Behaviour:
    """What a function or method the generated table says returns `returns` does: computing
    a tensor is a tensor op (`tensor_op` says whether a non-tensor result is one too)."""
    if returns not in RETURNS:
        return UNKNOWN
    return Behaviour(returns, tensor_op=tensor_op or returns in TENSOR_RETURNS)


def _torch_namespace_default(name: str) -> Behaviour | None:
    """The behaviour of the longest enclosing namespace of `torch_rules.NAMESPACE_DEFAULTS`."""
    end = len(name)
    while (end := name.rfind(".", 0, end)) > 0:
        namespace = name[:end]
        if namespace in torch_rules.NAMESPACE_DEFAULTS:
            return torch_rules.NAMESPACE_DEFAULTS[namespace]
    return None


def _torch_behaviour(name: str, entry: Entry) -> Behaviour:
    if entry.kind == "class":
        override = torch_rules.CLASS_OVERRIDES.get(name)
        return override if override is not None else _torch_class_behaviour(entry.role)
    if entry.kind == "function":
        override = torch_rules.FUNCTION_OVERRIDES.get(name)
        if override is not None:
            return override
        if entry.role:
            return _torch_returns(entry.role, False)
        return _torch_namespace_default(name) or UNKNOWN
    if entry.kind == "constant":
        return Behaviour(entry.role if entry.role in RETURNS else "object")
    return OBJECT


def _lookup_torch(name: str) -> ApiInfo | None:
    table = torch_table()
    canonical = table.resolve(name)
    if canonical is not None:
        entry = table.entries[canonical]
        return ApiInfo.of(canonical, "torch", entry.kind, _torch_behaviour(canonical, entry))
    parent = table.nearest_known_parent(name)
    if parent is None:
        return None
    parent_name, suffix, parent_entry = parent
    member = suffix[1:]
    if parent_entry.kind == "class" and "." not in member:
        # `torch.Tensor.add(x, y)`, `nn.Module.train(m)`: the member of the class's role.
        role = methods.ROLE_SYNONYMS.get(parent_entry.role, parent_entry.role)
        info = lookup_method(role, member, "torch") or lookup_attribute(role, member, "torch")
        if info is None:
            return None
        return ApiInfo.of(f"{parent_name}.{member}", "torch", info.kind, _behaviour_of(info))
    if parent_entry.kind != "module":
        return None
    guess = parent_name + suffix
    behaviour = _torch_namespace_default(guess)
    if behaviour is None or member[:1].isupper():
        return None  # no safe guess (an unknown class, a namespace without a default)
    return ApiInfo.of(guess, "torch", "function", behaviour)


def _torch_member(role: str, member: str, member_kind: str) -> Behaviour | None:
    """A member of a PyTorch object of `role` (its parents' too): the curated behaviours of
    `torch_rules`, then what the generated table says the method returns."""
    table = torch_table()
    overrides = (
        torch_rules.METHOD_OVERRIDES if member_kind == "method" else torch_rules.ATTRIBUTE_OVERRIDES
    )
    current: str | None = role
    while current is not None:
        found = overrides.get(current, {}).get(member)
        if found is not None:
            return found
        if member_kind == "method":
            returns = table.member_returns.get(current, {}).get(member)
            if returns is not None:
                # A tensor's method computing a tensor is a tensor op; a module's or an
                # optimizer's method is bookkeeping (its tensor work is in `torch_rules`).
                if current in TENSOR_RETURNS:
                    return _torch_returns(returns, False)
                return Behaviour(returns) if returns in RETURNS else UNKNOWN
        current = methods.ROLE_PARENTS.get(current)
    return None


@functools.cache
def output_shape_rule(qualified_name: str) -> output_shapes.OutputShape | None:
    """How a TensorFlow op's output shape relates to its inputs, when it may not keep a loop
    variable's static shape (``output_shapes``): ``"tensorflow.boolean_mask"`` ->
    ``OutputShape("data_dependent")``; None for an op not listed (no evidence)."""
    name = _normalise(qualified_name)
    if _framework(name) != "tensorflow":
        return None
    canonical = tensorflow_table().resolve(name) or name
    return output_shapes.OUTPUT_SHAPES.get(canonical)
