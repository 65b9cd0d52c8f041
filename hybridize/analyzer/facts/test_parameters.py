"""Arguments a test runner passes to a parameterized test, read from its decorator.

`@parameterized.parameters((16, 8, _sharded_nms, True), ...)` (absl) and
`@pytest.mark.parametrize("shape,top", [...])` call the decorated test once per case with
those values: they are call sites like any other. Without them a test's parameters are of
unknown kind and what a test does with them (`algorithm(tf_keras.Input(...), ...)` calls
`_sharded_nms` with Keras symbolic tensors) never reaches the functions it tests.

Only literal cases are read: a tuple display gives positional arguments, a single value one
argument; dictionaries (keyword cases) are skipped, their keys are not kept by the summary.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from hybridize.analyzer.facts.values import is_dict_atom, is_lit_atom, is_seq_atom, is_tup_atom
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.syms import is_seq, lit_type, seq_kind

if TYPE_CHECKING:
    from hybridize.analyzer.facts.values import Atom, Atoms

ABSL_CASES = {
    "absl.testing.parameterized.parameters": False,
    "absl.testing.parameterized.named_parameters": True,
}
"""absl's decorators -> whether each case starts with its test name."""
PYTEST_PARAMETRIZE = "pytest.mark.parametrize"


def _cases_of(atoms: Atoms) -> Iterator[Atom]:
    """The cases an iterable of cases holds (a list display, a list kept in a name)."""
    for atom in atoms:
        if is_seq_atom(atom):
            yield from atom[2]
        elif is_tup_atom(atom):
            for part in atom[1]:
                yield from part


def _positions(case: Atom, drop_name: bool) -> list[Atoms] | None:
    """A case's positional arguments: a tuple's elements, else the value itself."""
    if is_dict_atom(case):
        return None
    parts = [frozenset(p) for p in case[1]] if is_tup_atom(case) else [frozenset({case})]
    return parts[1:] if drop_name else parts


def absl_cases(
    decorator_name: str, args: list[Atoms], single_display: bool
) -> list[list[Atoms]] | None:
    """Positional arguments of each case of an absl parameterized decorator (None: not one).

    `parameters(a, b)` has one case per argument; `parameters(CASES)` or `parameters([...])`,
    a single iterable argument that is not a tuple display, has one case per element."""
    drop_name = ABSL_CASES.get(decorator_name)
    if drop_name is None:
        return None
    if len(args) == 1 and not single_display:
        cases = list(_cases_of(args[0]))
    else:
        cases = [atom for atoms in args for atom in atoms]
    out = []
    for case in cases:
        positions = _positions(case, drop_name)
        if positions is not None:
            out.append(positions)
    return out


def pytest_cases(names: Atoms, values: Atoms) -> list[dict[str, Atoms]]:
    """Keyword arguments of each case of `pytest.mark.parametrize("a,b", [...])`."""
    texts = {
        a[2] for a in names if is_lit_atom(a) and lit_type(a) == "str" and isinstance(a[2], str)
    }
    if len(texts) != 1:
        return []
    argnames = [n.strip() for n in texts.pop().split(",") if n.strip()]
    out = []
    for case in _cases_of(values):
        if len(argnames) == 1:
            out.append({argnames[0]: frozenset({case})})
        elif is_tup_atom(case) and len(case[1]) == len(argnames):
            out.append({n: frozenset(p) for n, p in zip(argnames, case[1], strict=True)})
    return out


def is_tuple_display(sym: Sym) -> bool:
    return is_seq(sym) and seq_kind(sym) == "tuple"


def receives_cases(fn: FunctionSummary) -> bool:
    """Whether any decorator of `fn` could be a parameterizing one (a cheap name test)."""
    return any(
        d.called and d.name.rsplit(".", 1)[-1] in ("parameters", "named_parameters", "parametrize")
        for d in fn.decorators
    )
