"""Loading of the generated API tables (``tensorflow_api.json``, ``numpy_api.json``,
``torch_api.json``).

Each file is read once, on first use (``functools.cache``). Loading never imports the
framework: the files were written by ``tools/api_tables/generate_tensorflow_api.py`` and
``generate_numpy_api.py`` and ``generate_torch_api.py``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Entry:
    """One canonical name of a generated table."""

    kind: str  # "function" | "class" | "module" | "constant"
    #: see generate_tensorflow_api; "" when the kind has no role. In torch_api.json the role
    #: of a function that is not a class member is what calling it returns (generate_torch_api).
    role: str


@dataclass(frozen=True, slots=True)
class ApiTable:
    """A generated table: canonical entries, aliases, the members of role classes, and the
    positional parameter names of functions and classes."""

    entries: dict[str, Entry]
    aliases: dict[str, str]
    role_members: dict[str, dict[str, str]]
    versions: dict[str, str]
    #: canonical name of a function or class -> the names of its parameters that can be
    #: passed positionally, in order (a class: its constructor, without ``self``), ending in
    #: ``"*"`` when it also takes ``*args``. Names without an inspectable signature are absent.
    parameters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: receiver role -> method -> what calling it yields (a ``returns`` value); only tables
    #: whose framework documents its methods' results have it (``torch_api.json``).
    member_returns: dict[str, dict[str, str]] = field(default_factory=dict)
    #: receiver role -> method -> positional parameter names without ``self`` (same source).
    member_parameters: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def resolve(self, name: str) -> str | None:
        """Canonical name of ``name``, or None when no known name or module alias covers it.

        A module alias stands for every name below it: ``tensorflow.compat.v1.raw_ops.Add``
        resolves through the alias ``tensorflow.compat.v1.raw_ops`` -> ``tensorflow.raw_ops``.
        """
        for _ in range(4):  # alias chains are one step long; the bound guards cycles
            if name in self.entries:
                return name
            target = self.aliases.get(name)
            if target is not None:
                name = target
                continue
            rewritten = self._through_module_alias(name)
            if rewritten is None:
                return None
            name = rewritten
        return None

    def _through_module_alias(self, name: str) -> str | None:
        end = len(name)
        while True:
            end = name.rfind(".", 0, end)
            if end <= 0:
                return None
            prefix = name[:end]
            target = self.aliases.get(prefix)
            if target is not None:
                return target + name[end:]
            if prefix in self.entries:
                # A known, non-aliased parent: nothing above it can be an alias of it.
                return None

    def nearest_known_parent(self, name: str) -> tuple[str, str, Entry] | None:
        """The longest proper prefix of ``name`` that resolves to an entry, as
        (canonical name of the prefix, the rest of ``name`` starting with ".", entry)."""
        end = len(name)
        while (end := name.rfind(".", 0, end)) > 0:
            canonical = self.resolve(name[:end])
            if canonical is not None:
                return canonical, name[end:], self.entries[canonical]
        return None


def _load(filename: str) -> ApiTable:
    text = Path(__file__).with_name(filename).read_text(encoding="utf-8")
    raw: dict[str, Any] = json.loads(text)
    entries = {name: Entry(kind, role) for name, (kind, role) in raw["entries"].items()}
    return ApiTable(
        entries=entries,
        aliases=dict(raw["aliases"]),
        role_members={role: dict(members) for role, members in raw["role_members"].items()},
        versions=dict(raw.get("versions", {})),
        parameters={name: tuple(names) for name, names in raw.get("parameters", {}).items()},
        member_returns={
            role: dict(members) for role, members in raw.get("member_returns", {}).items()
        },
        member_parameters={
            role: {member: tuple(names) for member, names in members.items()}
            for role, members in raw.get("member_parameters", {}).items()
        },
    )


@functools.cache
def tensorflow_table() -> ApiTable:
    """TensorFlow and Keras (``tensorflow_api.json``)."""
    return _load("tensorflow_api.json")


@functools.cache
def literal_order_table() -> dict[str, Any]:
    """TensorFlow ops where a leading Python number breaks only in a graph
    (``tensorflow_literal_order.json``, measured by ``generate_literal_order.py``)."""
    path = Path(__file__).with_name("tensorflow_literal_order.json")
    ops: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["ops"]
    return ops


@functools.cache
def numpy_table() -> ApiTable:
    """NumPy (``numpy_api.json``)."""
    return _load("numpy_api.json")


@functools.cache
def torch_table() -> ApiTable:
    """PyTorch (``torch_api.json``): the ``TORCH`` compile target reads ``torch.compile``'s
    parameters from it; ``lookup`` does not read it yet."""
    return _load("torch_api.json")
