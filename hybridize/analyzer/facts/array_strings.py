"""NumPy values used as Python strings: the text in an array, read with string methods.

Eagerly a NumPy bytes value (an element of `np.array([b"a b"])`, of an array loaded from a
file) is a Python bytes object, with `.decode()`, `.split()` and friends, and `re` searches
it. A traced function converts its NumPy arguments to tensors first, a bytes scalar
included, and a string tensor has none of those methods: `AttributeError: 'SymbolicTensor'
object has no attribute 'decode'` while tracing (measured under TF 2.21,
tests/analyzer/test_hy415_array_strings.py). A NumPy str scalar (`np.str_`) is kept as the
Python str it subclasses; the analysis cannot tell the two apart, and keeps such a function
eager.
"""

from __future__ import annotations

from collections.abc import Iterable

from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import made_of, walk_syms
from hybridize.analyzer.facts.safety import SafetyScan
from hybridize.analyzer.facts.values import Atom, is_numpy_atom
from hybridize.analyzer.frameworks.python_stdlib import REGEX_STRING_ARGUMENTS, STRING_METHODS
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.syms import (
    attr_name,
    is_attr,
    is_local,
    is_param,
    kind_of,
    sym_name,
)

NUMERIC_DTYPE_PREFIXES = ("float", "int", "uint", "bool", "complex", "bfloat")
"""NumPy dtypes that hold no text: their values are never read as strings."""


def array_string_reads(scan: SafetyScan) -> list[Evidence]:
    """Each string method called on, and each `re` search of, a parameter (or an element of
    one) that some caller fills with a NumPy value that may hold text."""
    evidence = scan.facts.param_atoms.get(scan.key, {})
    texts = {name for name, atoms in evidence.items() if _may_hold_text(atoms)}
    if not texts:
        return []
    found: list[Evidence] = []
    for resolved in scan.facts.calls.get(scan.key, []):
        site = resolved.site
        read: str | None = None
        if is_attr(site.callee) and attr_name(site.callee) in STRING_METHODS:
            name = _parameter_read(scan, site.callee[1], texts)
            if name is not None:
                read = f"calls `.{site.callee[2]}()` on `{name}`"
        for info in resolved.api:
            position = REGEX_STRING_ARGUMENTS.get(info.name)
            if read is None and position is not None and position < len(site.args):
                name = _parameter_read(scan, site.args[position], texts)
                if name is not None:
                    read = f"searches `{name}` with `{info.name}`"
        if read is not None:
            found.append(
                Evidence(
                    f"{read}, which a caller fills with a NumPy value: eagerly its text "
                    "is a Python bytes or str, but a traced function receives it as a string "
                    "tensor, which has no string methods (AttributeError or TypeError while "
                    "tracing)",
                    site.span,
                )
            )
    return found


def _may_hold_text(atoms: Iterable[Atom]) -> bool:
    """Some atom is a NumPy value whose dtype is text or not known."""
    return any(
        is_numpy_atom(atom) and not (atom[1] or "").startswith(NUMERIC_DTYPE_PREFIXES)
        for atom in atoms
    )


def _parameter_read(scan: SafetyScan, sym: Sym, names: set[str]) -> str | None:
    """The parameter among `names` that `sym` is, or an element of, through locals (any of
    their values), indexing and iteration; None for anything computed from it."""

    def follow(current: Sym) -> Iterable[Sym]:
        if is_local(current):
            return scan.fn.locals.get(current[1], ())
        return made_of(current) if kind_of(current) in ("item", "iter") else ()

    for current in walk_syms((sym,), follow):
        if is_param(current) and sym_name(current) in names and sym_name(current) != scan.receiver:
            return str(current[1])
    return None
