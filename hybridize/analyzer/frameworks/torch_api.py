"""What a PyTorch API is, by its canonical qualified name: `TORCH`'s answer to `lookup`
(`Framework.lookup_api`).

The generated table (`torch_api.json`) gives every public name's kind and what calling it
returns; the curated rules (`torch_rules`) give the behaviours it cannot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import methods, torch_rules
from ._tables import Entry, torch_table
from .api_info import OBJECT, RETURNS, UNKNOWN, ApiInfo, Behaviour
from .members import table_returns

if TYPE_CHECKING:
    from .framework import Framework


def lookup_torch(framework: Framework, name: str) -> ApiInfo | None:
    """The PyTorch API `name` (normalised) names; None when unknown. A member of a known
    class answers as `framework` answers the member of the class's role
    (`torch.Tensor.add(x, y)`)."""
    table = torch_table()
    canonical = table.resolve(name)
    if canonical is not None:
        entry = table.entries[canonical]
        return ApiInfo.of(
            canonical, torch_rules.API_NAMESPACE, entry.kind, _torch_behaviour(canonical, entry)
        )
    parent = table.nearest_known_parent(name)
    if parent is None:
        return None
    parent_name, suffix, parent_entry = parent
    member = suffix[1:]
    if parent_entry.kind == "class" and "." not in member:
        # `torch.Tensor.add(x, y)`, `nn.Module.train(m)`: the member of the class's role.
        role = methods.ROLE_SYNONYMS.get(parent_entry.role, parent_entry.role)
        info = framework.method_of(role, member) or framework.attribute_of(role, member)
        if info is None:
            return None
        return ApiInfo.of(f"{parent_name}.{member}", torch_rules.API_NAMESPACE, info.kind, info)
    if parent_entry.kind != "module":
        return None
    guess = parent_name + suffix
    behaviour = _torch_namespace_default(guess)
    if behaviour is None or member[:1].isupper():
        return None  # no safe guess (an unknown class, a namespace without a default)
    return ApiInfo.of(guess, torch_rules.API_NAMESPACE, "function", behaviour)


def _torch_class_behaviour(role: str) -> Behaviour:
    behaviour = torch_rules.CLASS_ROLE_BEHAVIOUR.get(role)
    if behaviour is not None:
        return behaviour
    return Behaviour(role) if role in RETURNS else OBJECT


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
            return table_returns(entry.role, False)
        return _torch_namespace_default(name) or UNKNOWN
    if entry.kind == "constant":
        return Behaviour(entry.role if entry.role in RETURNS else "object")
    return OBJECT
