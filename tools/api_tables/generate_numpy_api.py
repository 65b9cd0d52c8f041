"""Generate ``numpy_api.json``: the public names of numpy, numpy.linalg, numpy.random, numpy.fft.

Run by hand whenever the pinned NumPy version changes::

    .venv/bin/python -m tools.api_tables.generate_numpy_api

Same format as ``tensorflow_api.json`` (see ``generate_tensorflow_api``). Roles: classes are
"numpy" (``ndarray`` and the scalar types: calling them yields NumPy values), "dtype"
(``numpy.dtype``), "rng" (``Generator``, ``RandomState``) or "object"; constants are "python".
``role_members`` lists the members of ``ndarray`` ("numpy") and of the random generators ("rng").
``parameters`` holds the positional parameter names of functions and classes
(``numpy.zeros`` -> ``["shape","dtype","order"]``); ufuncs and C functions without a text
signature are absent when NumPy gives them no inspectable signature.
Other submodules (numpy.ma, numpy.char, numpy.polynomial, ...) are recorded as modules but not
walked: ``lookup()`` treats unknown names below ``numpy`` as NumPy functions.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

from ._apiwalk import (
    Walk,
    choose_canonical,
    member_kinds,
    positional_parameters,
    walk_modules,
    write_api_json,
)

OUTPUT = (
    Path(__file__).resolve().parents[2] / "hybridize" / "analyzer" / "frameworks" / "numpy_api.json"
)

WALKED = ("numpy", "numpy.linalg", "numpy.random", "numpy.fft")


def _rank(name: str) -> tuple[int, int, str]:
    return (name.count("."), len(name), name)


def _role_of_class(cls: type) -> str:
    import numpy as np

    if issubclass(cls, np.ndarray | np.generic):
        return "numpy"
    if issubclass(cls, np.dtype):
        return "dtype"
    if issubclass(cls, np.random.Generator | np.random.RandomState):
        return "rng"
    return "object"


def build() -> tuple[dict[str, object], dict[str, dict[str, Any]]]:
    """Walk NumPy; return (header, sections) of the JSON file."""
    import numpy as np

    def recurse_into(module: types.ModuleType) -> bool:
        return module.__name__ in WALKED

    walk: Walk = walk_modules(
        [("numpy", np)],
        skip=lambda name: name.startswith("numpy.typing") or name.startswith("numpy.f2py."),
        recurse_into=recurse_into,
        class_members=lambda _name, cls: cls is np.ndarray,
        skip_members=frozenset(),
    )
    canonical_of: dict[str, str] = {}
    for names in walk.names_of.values():
        # np.float32 over np.single, np.absolute over np.abs: the object's own __name__.
        own = getattr(walk.objects[names[0]], "__name__", None)
        preferred = sorted((n for n in names if n.rsplit(".", 1)[-1] == own), key=_rank)
        canonical = choose_canonical(names, preferred, _rank)
        for name in names:
            canonical_of[name] = canonical

    entries: dict[str, list[str]] = {}
    aliases: dict[str, str] = {}
    parameters: dict[str, list[str]] = {}
    for name, obj in walk.objects.items():
        canonical = canonical_of.get(name, name)
        if canonical != name:
            aliases[name] = canonical
            continue
        kind = walk.kinds[name]
        if kind in ("function", "class"):
            positional = positional_parameters(obj)
            if positional is not None:
                parameters[name] = positional
        role = ""
        if kind == "class":
            assert isinstance(obj, type)
            role = _role_of_class(obj)
        elif kind == "constant":
            role = "python"
        elif name in walk.members:
            owner = walk.objects[walk.members[name]]
            assert isinstance(owner, type)
            role = _role_of_class(owner)
        entries[name] = [kind, role]

    rng_members = member_kinds(np.random.Generator)
    for member, kind in member_kinds(np.random.RandomState).items():
        rng_members.setdefault(member, kind)
    role_members = {"numpy": member_kinds(np.ndarray), "rng": rng_members}
    header: dict[str, object] = {
        "format": 1,
        "generated_by": "python -m tools.api_tables.generate_numpy_api",
        "versions": {"numpy": np.__version__},
    }
    sections: dict[str, dict[str, Any]] = {
        "entries": entries,
        "aliases": aliases,
        "role_members": role_members,
        "parameters": parameters,
    }
    return header, sections


def main() -> int:
    header, sections = build()
    write_api_json(OUTPUT, header, sections)
    print(
        f"wrote {OUTPUT}: {len(sections['entries'])} canonical names, "
        f"{len(sections['aliases'])} aliases, {len(sections['parameters'])} signatures",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
