"""Shared machinery of the API generators (``generate_tensorflow_api``, ``generate_numpy_api``).

Only the generators import this module: it inspects live framework objects, so it must never
be imported by the analyzer at analysis time (the analyzer reads the JSON files it writes).

The walk records every public dotted name under some root modules, groups names that denote
the same object, picks one canonical name per object and maps the others to it (aliases).
``positional_parameters`` reads the positional parameter names of a function or constructor.
"""

from __future__ import annotations

import inspect
import json
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Values whose identity says nothing (small ints and strings are interned, ``None`` is shared):
#: names bound to them are never aliases of each other.
_PRIMITIVES = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)

ObjectKey = tuple[Any, ...]


def object_key(obj: object) -> ObjectKey | None:
    """Identity of ``obj`` for alias detection, or None when identity is meaningless."""
    if isinstance(obj, _PRIMITIVES):
        return None
    if isinstance(obj, types.MethodType):
        # Every attribute access creates a new bound method: key by receiver and function.
        return ("method", id(obj.__self__), id(obj.__func__))
    return ("object", id(obj))


@dataclass
class Walk:
    """The result of walking some root modules."""

    #: dotted name -> object (first one wins when two roots disagree on a name)
    objects: dict[str, object] = field(default_factory=dict)
    #: dotted name -> "function" | "class" | "module" | "constant"
    kinds: dict[str, str] = field(default_factory=dict)
    #: object key -> every dotted name bound to the object, in discovery order
    names_of: dict[ObjectKey, list[str]] = field(default_factory=dict)
    #: dotted names of static/class methods reached through a class: name -> owning class name
    members: dict[str, str] = field(default_factory=dict)
    #: keeps walked objects alive so that ``id()`` values stay unique during the walk
    _keep: list[object] = field(default_factory=list)

    def record(self, name: str, obj: object, kind: str) -> bool:
        """Record ``name``; return False when the name was already known."""
        if name in self.objects:
            return False
        self.objects[name] = obj
        self.kinds[name] = kind
        self._keep.append(obj)
        key = object_key(obj)
        if key is not None:
            self.names_of.setdefault(key, []).append(name)
        return True


def kind_of(obj: object) -> str:
    """Classify a public object as "module", "class", "function" or "constant"."""
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "constant"


def public_names(obj: object) -> list[str]:
    """Public attribute names of a module or class, sorted."""
    try:
        names = dir(obj)
    except Exception:  # lazily loaded modules can fail on dir()
        return []
    return sorted(n for n in names if not n.startswith("_"))


def walk_modules(
    roots: Iterable[tuple[str, types.ModuleType]],
    *,
    skip: Callable[[str], bool],
    recurse_into: Callable[[types.ModuleType], bool],
    class_members: Callable[[str, type], bool],
    skip_members: frozenset[str] = frozenset(),
    walk: Walk | None = None,
) -> Walk:
    """Walk ``roots`` (prefix, module) breadth first and record every public name.

    ``skip(name)`` prunes a dotted name (and everything below it); ``recurse_into(module)``
    says whether a module object's own members are walked (modules of other packages are
    recorded but not entered); ``class_members(name, cls)`` says whether the static and class
    methods of a class are recorded as ``Class.method`` names (except ``skip_members``).
    A module reached a second time under another name is recorded as an alias and not walked
    again: names below it resolve through the module alias.
    """
    result = walk if walk is not None else Walk()
    visited: set[tuple[str, int]] = set()
    entered: set[int] = set()
    queue: list[tuple[str, types.ModuleType]] = list(roots)
    for prefix, module in queue:
        result.record(prefix, module, "module")
        entered.add(id(module))
    while queue:
        prefix, module = queue.pop(0)
        if (prefix, id(module)) in visited:
            continue
        visited.add((prefix, id(module)))
        for attr in public_names(module):
            name = f"{prefix}.{attr}"
            if skip(name):
                continue
            try:
                obj = getattr(module, attr)
            except Exception:  # broken lazy imports, deprecated attributes raising
                continue
            kind = kind_of(obj)
            fresh = result.record(name, obj, kind)
            if kind == "module":
                assert isinstance(obj, types.ModuleType)
                # A module already entered under another name is an alias. A module object
                # reached again under the *same* name (a second root spelling the same
                # namespace, e.g. tf.keras walked as keras) is entered to pick up its
                # extra members.
                same_name_again = not fresh and result.objects.get(name) is not obj
                if recurse_into(obj) and (id(obj) not in entered or same_name_again):
                    entered.add(id(obj))
                    queue.append((name, obj))
            elif kind == "class" and fresh:
                assert isinstance(obj, type)
                if class_members(name, obj):
                    _record_class_members(result, name, obj, skip_members)
    return result


def _record_class_members(
    result: Walk, class_name: str, cls: type, skip_members: frozenset[str]
) -> None:
    for attr in public_names(cls):
        if attr in skip_members:
            continue
        try:
            raw = inspect.getattr_static(cls, attr)
        except AttributeError:
            continue
        if isinstance(raw, staticmethod | classmethod):
            name = f"{class_name}.{attr}"
            if result.record(name, getattr(cls, attr), "function"):
                result.members[name] = class_name


def member_kinds(cls: type) -> dict[str, str]:
    """Public members of a class: name -> "method" or "attribute" (properties, data)."""
    out: dict[str, str] = {}
    for attr in public_names(cls):
        try:
            raw = inspect.getattr_static(cls, attr)
        except AttributeError:
            continue
        if (
            isinstance(raw, staticmethod | classmethod)
            or inspect.isfunction(raw)
            or inspect.isroutine(raw)
            or inspect.ismethoddescriptor(raw)
        ):
            out[attr] = "method"
        else:
            out[attr] = "attribute"
    return out


#: Last element of a parameter list whose function also takes ``*args``.
VAR_POSITIONAL_MARK = "*"

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def positional_parameters(
    obj: object, *, unwrap: Callable[[object], object] | None = None
) -> list[str] | None:
    """Names of the parameters of ``obj`` that can be passed positionally, or None.

    The names are those of the POSITIONAL_ONLY and POSITIONAL_OR_KEYWORD parameters, in
    order, followed by ``VAR_POSITIONAL_MARK`` when ``obj`` also takes ``*args``. None when no
    signature can be found (C types without a text signature, some builtins).

    ``inspect.signature`` already follows ``__wrapped__`` (``tf_export`` and dispatch
    wrappers); when it fails, ``inspect.unwrap(obj)`` and then ``unwrap(obj)`` (a framework's
    own unwrapper, e.g. TF's ``tf_decorator.unwrap``) are tried.

    A class answers for calling it, without ``self``: Python's own choice (metaclass
    ``__call__``, else ``__new__``, else ``__init__``), except that a bare pass-through
    ``(*args, **kwargs)`` (``tf.Variable``'s metaclass, Keras' ``Layer.__new__``) or a missing
    signature gives way to the first ``__init__`` of the MRO when that one says more.
    """
    signature = _signature(obj, unwrap)
    if inspect.isclass(obj) and (signature is None or _is_pass_through(signature)):
        init = _init_signature(obj, unwrap)
        if init is not None and not _is_pass_through(init):
            signature = init
    if signature is None:
        return None
    parameters = signature.parameters.values()
    names = [p.name for p in parameters if p.kind in _POSITIONAL]
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in parameters):
        names.append(VAR_POSITIONAL_MARK)
    return names


def _signature(obj: object, unwrap: Callable[[object], object] | None) -> inspect.Signature | None:
    unwrappers: list[Callable[[Any], object]] = [lambda o: o, inspect.unwrap]
    if unwrap is not None:
        unwrappers.append(unwrap)
    for unwrapper in unwrappers:
        try:
            target = unwrapper(obj)
            if callable(target):
                return inspect.signature(target)
        except Exception:  # no signature, broken wrappers, lazily loaded objects
            continue
    return None


def _is_pass_through(signature: inspect.Signature) -> bool:
    """True for ``(*args, **kwargs)``-like signatures, which say nothing about the call."""
    parameters = signature.parameters.values()
    return bool(parameters) and all(p.kind in _VARIADIC for p in parameters)


def _init_signature(
    cls: type, unwrap: Callable[[object], object] | None
) -> inspect.Signature | None:
    """Signature of the first ``__init__`` of ``cls``'s MRO, without ``self``."""
    for base in cls.__mro__:
        init = vars(base).get("__init__")
        if init is not None:
            break
    else:
        return None
    if base is object:
        return None
    signature = _signature(init, unwrap)
    if signature is None:
        return None
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].kind in _POSITIONAL:
        parameters = parameters[1:]  # self
    return signature.replace(parameters=parameters)


def choose_canonical(names: list[str], preferred: list[str], rank: Callable[[str], Any]) -> str:
    """Pick the canonical spelling among ``names`` (all naming one object).

    The first of ``preferred`` (the framework's own export names) that was reached wins;
    otherwise the smallest by ``rank``.
    """
    reached = set(names)
    for name in preferred:
        if name in reached:
            return name
    return min(names, key=rank)


def write_api_json(
    path: Path, header: dict[str, object], sections: dict[str, dict[str, Any]]
) -> None:
    """Write ``header`` keys then each section as a sorted object with one entry per line."""
    lines = ["{"]
    for key, value in header.items():
        lines.append(f"{json.dumps(key)}: {json.dumps(value, sort_keys=True)},")
    section_items = list(sections.items())
    for index, (section, mapping) in enumerate(section_items):
        lines.append(f"{json.dumps(section)}: {{")
        items = sorted(mapping.items())
        for item_index, (key, value) in enumerate(items):
            comma = "," if item_index < len(items) - 1 else ""
            encoded = json.dumps(value, sort_keys=True, separators=(",", ":"))
            lines.append(f"{json.dumps(key)}: {encoded}{comma}")
        lines.append("}" + ("," if index < len(section_items) - 1 else ""))
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
