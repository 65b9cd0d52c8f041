"""Methods and attributes of objects whose role is known: `obj.method(...)`, `obj.attribute`.

The roles ("tensor", "model", "dataset", "list", "file", ...) are shared by every framework,
and so are the curated role tables (`methods`): a framework whose objects differ (a PyTorch
"tensor" is a `torch.Tensor`) says so in its `OwnMembers`, which answer first. A framework
reaches these answers through `Framework.method_of` and `Framework.attribute_of`, which cache them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from . import methods
from ._tables import ApiTable, numpy_table, tensorflow_table
from .api_info import RETURNS, TENSOR_RETURNS, UNKNOWN, ApiInfo, Behaviour
from .namespaces import namespace_of

METHOD = "method"
ATTRIBUTE = "attribute"


@dataclass(frozen=True, slots=True)
class OwnMembers:
    """A framework's own members of the shared roles, consulted before the shared tables."""

    methods: Mapping[str, Mapping[str, Behaviour]]
    """Role -> method -> its curated behaviour."""
    attributes: Mapping[str, Mapping[str, Behaviour]]
    """Role -> attribute -> its curated behaviour."""
    table: Callable[[], ApiTable]
    """The generated table whose `member_returns` say what the other methods return."""
    type_names: Mapping[str, str]
    """Role -> the qualified name of its class (`torch.Tensor`), naming the answers."""


def member(own: OwnMembers | None, receiver_role: str, name: str, kind: str) -> ApiInfo | None:
    """What the member `name` (a METHOD or an ATTRIBUTE) of an object of `receiver_role` is:
    the framework's own members (`own`) first, then the shared role tables. A method of the
    framework's object hides an attribute of that name in the shared tables (`x.size` of a
    PyTorch tensor is not a tf.Tensor's NumPy-behaviour `size`). None when unknown."""
    role = methods.ROLE_SYNONYMS.get(receiver_role, receiver_role)
    if own is not None:
        found = _own_member(own, role, name, kind)
        if found is not None:
            return _member_info(role, name, kind, found, own.type_names)
        if kind == ATTRIBUTE and _own_member(own, role, name, METHOD) is not None:
            return None
    shared = methods.METHODS if kind == METHOD else methods.ATTRIBUTES
    behaviour = _role_lookup(role, name, shared, kind)
    if behaviour is None:
        return None
    return _member_info(role, name, kind, behaviour, methods.ROLE_TYPE_NAMES)


def shared_member(receiver_role: str, name: str, kind: str) -> ApiInfo | None:
    """`member` as the shared role tables alone answer it (NumPy arrays, Keras objects)."""
    return member(None, receiver_role, name, kind)


def table_returns(returns: str, tensor_op: bool) -> Behaviour:
    """What a function or method a generated table says returns `returns` does: computing
    a tensor is a tensor op (`tensor_op` says whether a non-tensor result is one too)."""
    if returns not in RETURNS:
        return UNKNOWN
    return Behaviour(returns, tensor_op=tensor_op or returns in TENSOR_RETURNS)


def _role_lookup(
    role: str, member_name: str, tables: dict[str, dict[str, Behaviour]], member_kind: str
) -> Behaviour | None:
    current: str | None = role
    while current is not None:
        table = tables.get(current)
        if table is not None and member_name in table:
            return table[member_name]
        current = methods.ROLE_PARENTS.get(current)
    # Members the curated tables do not name: answer from the generated member lists.
    current = role
    while current is not None:
        default = methods.MEMBER_DEFAULTS.get((current, member_kind))
        if default is not None and _generated_members(current).get(member_name) == member_kind:
            return default
        current = methods.ROLE_PARENTS.get(current)
    if member_kind == METHOD and role not in methods.PLAIN_ROLES:
        return methods.UNIVERSAL_METHODS.get(member_name)
    return None


def _generated_members(role: str) -> dict[str, str]:
    if role in ("numpy", "rng"):
        return numpy_table().role_members.get(role, {})
    return tensorflow_table().role_members.get(role, {})


def _member_info(
    role: str, name: str, kind: str, behaviour: Behaviour, type_names: Mapping[str, str]
) -> ApiInfo:
    type_name = type_names.get(role, role)
    qualified = f"{type_name}.{name}"
    return ApiInfo.of(qualified, namespace_of(qualified), _KINDS[kind], behaviour)


_KINDS = {METHOD: "function", ATTRIBUTE: "attribute"}
"""The `ApiInfo.kind` of each kind of member."""


def _own_member(own: OwnMembers, role: str, name: str, kind: str) -> Behaviour | None:
    """A member of the framework's object of `role` (its parents' too): the curated
    behaviours, then what the generated table says the method returns."""
    table = own.table()
    overrides = own.methods if kind == METHOD else own.attributes
    current: str | None = role
    while current is not None:
        found = overrides.get(current, {}).get(name)
        if found is not None:
            return found
        if kind == METHOD:
            returns = table.member_returns.get(current, {}).get(name)
            if returns is not None:
                # A tensor's method computing a tensor is a tensor op; a module's or an
                # optimizer's method is bookkeeping (its tensor work is in the curated rules).
                if current in TENSOR_RETURNS:
                    return table_returns(returns, False)
                return Behaviour(returns) if returns in RETURNS else UNKNOWN
        current = methods.ROLE_PARENTS.get(current)
    return None
