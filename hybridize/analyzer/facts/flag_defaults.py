"""Command-line flags read at run time, and the default each is defined with.

An absl flag (`flags.DEFINE_boolean("tfg_add_asserts_to_graph", False, ...)`, or TensorFlow's
re-export of absl's flags) holds its default until the command line is parsed
(`app.run`, `FLAGS(argv)`) or a program assigns it (`FLAGS.name = v`, `FLAGS[name].value = v`,
a test's `flagsaver`). A body reading one (`if not FLAGS[NAME].value: return x`,
`if FLAGS.debug: ...`) reads it at every call, so neither its value nor a path it switches is
fixed: the safety analysis must take both. The benefit estimate may take the default instead,
as the value a program has unless it sets the flag (tensorflow-graphics' debug assertions,
off by default and turned on by its own tests' `setUp`): an assumption its reason states
(`decisions/benefit.py`, `BenefitModel._returns_before_its_work`).

`flag_read` tells a flag read from the switch's symbolic value; `flag_defaults` gathers the
project's definitions whose name and default are literals the evaluator reads as one value
each (a name defined twice with different defaults has none).
"""

from __future__ import annotations

from hybridize.analyzer.facts.evaluator import Evaluator, TensorFacts, argument_at
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atoms, ext_name, is_ext_atom, is_lit_atom
from hybridize.analyzer.frameworks.python_stdlib import COMMAND_LINE_FLAGS, FLAG_DEFINITIONS
from hybridize.analyzer.summaries.syms import (
    Sym,
    attr_base,
    attr_name,
    is_attr,
    is_item,
    item_base,
    item_index,
)

FLAG_VALUE_TYPES = frozenset({"bool", "int", "float", "str", "none"})
"""The literal types a flag's default is read as (a flag of another type has none here)."""

_DEFINING_MODULES = frozenset(name.rsplit(".", 1)[0] for name in COMMAND_LINE_FLAGS)


def flag_read(evaluator: Evaluator, switch: Sym) -> str | None:
    """The name of the command-line flag a switch reads at run time, else None: `FLAGS.name`
    or `FLAGS[NAME].value`, `FLAGS` an object of `COMMAND_LINE_FLAGS` and `NAME` one string
    literal as the evaluator reads it (a module constant holding the name)."""
    if not is_attr(switch):
        return None
    base = attr_base(switch)
    if is_item(base):
        if attr_name(switch) != "value" or not _is_flags(evaluator.eval(item_base(base))):
            return None
        names = evaluator.eval(item_index(base))
        if len(names) != 1:
            return None
        (atom,) = names
        if not is_lit_atom(atom) or atom[1] != "str" or not isinstance(atom[2], str):
            return None
        return atom[2]
    if _is_flags(evaluator.eval(base)):
        return attr_name(switch)
    return None


def _is_flags(atoms: Atoms) -> bool:
    return bool(atoms) and all(
        is_ext_atom(atom) and ext_name(atom) in COMMAND_LINE_FLAGS for atom in atoms
    )


_NO_DEFAULT = object()


def flag_defaults(index: ProjectIndex, facts: TensorFacts) -> dict[str, object]:
    """The default of each flag the project defines (`FLAG_DEFINITIONS` called with a name
    and a default that are literals), by its name and its `short_name`; a flag defined twice
    with different defaults is left out."""
    found: dict[str, object] = {}
    for key in index.function_keys():
        for resolved in facts.calls.get(key, ()):
            if not any(_defines_flag(info.name) for info in resolved.api):
                continue
            name = _one_literal(
                argument_at(resolved.args, resolved.kwargs, (0, "name")) or frozenset()
            )
            default = _one_literal(
                argument_at(resolved.args, resolved.kwargs, (1, "default")) or frozenset()
            )
            if not isinstance(name, str) or default is _NO_DEFAULT:
                continue
            short = _one_literal(resolved.kwargs.get("short_name", frozenset()))
            for flag in (name, short) if isinstance(short, str) else (name,):
                if flag in found and found[flag] != default:
                    found[flag] = _NO_DEFAULT
                else:
                    found.setdefault(flag, default)
    return {name: value for name, value in found.items() if value is not _NO_DEFAULT}


def _defines_flag(api_name: str) -> bool:
    module, _, member = api_name.rpartition(".")
    return member in FLAG_DEFINITIONS and module in _DEFINING_MODULES


def _one_literal(atoms: Atoms) -> object:
    """The value of the one literal `atoms` hold, else `_NO_DEFAULT`."""
    if len(atoms) != 1:
        return _NO_DEFAULT
    (atom,) = atoms
    if not is_lit_atom(atom) or atom[1] not in FLAG_VALUE_TYPES:
        return _NO_DEFAULT
    if atom[1] != "none" and atom[2] is None:
        return _NO_DEFAULT  # a computed value of the type
    return atom[2]
