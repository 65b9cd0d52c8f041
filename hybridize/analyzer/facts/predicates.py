"""Questions asked of atoms (`values.py`) all over the analysis: is this value tensor-like, a
Python primitive, unknown, a foreign library's object, and what are the leaves of a nested
one; and the walk over a function's symbolic values (`walk_syms`) that many facts make,
each following its own edges.

They are in a module of their own because nearly every fact (effects, safety, retracing,
candidacy, the evaluator and the solver) asks them, and because the answer must be one
answer: a value the evaluator counts as a tensor is a tensor to every check. Kept below the
evaluator and the bounds (`atom_bounds.py`), which both ask them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from hybridize.analyzer.facts.values import (
    FOREIGN_CALL,
    MAX_NESTING,
    TENSOR_LIKE_KINDS,
    Atom,
    AtomKind,
    is_dict_atom,
    is_ext_atom,
    is_lit_atom,
    is_seq_atom,
    is_tup_atom,
    is_unknown_kind,
)
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.syms import SymKind, is_local, sym_name


def is_tensor_like(atom: Atom, depth: int = 0) -> bool:
    """A tensor, variable, NumPy array, Keras symbolic tensor, or a container holding one."""
    kind: AtomKind = atom[0]
    if kind in TENSOR_LIKE_KINDS:
        return True
    if depth < 3 and kind == "seq":
        return any(is_tensor_like(a, depth + 1) for a in atom[2])
    if depth < 3 and kind == "tup":
        return any(is_tensor_like(a, depth + 1) for part in atom[1] for a in part)
    if depth < 3 and kind == "dict":
        return any(is_tensor_like(a, depth + 1) for a in atom[1])
    return False


def is_primitive(atom: Atom, depth: int = 0) -> bool:
    """A Python int/float/str literal or a container of only such (booleans and None excluded).

    Containers include dicts (their values): `tf.function` keys its cache on every Python
    leaf of a nested argument, so `{"scale": 2.0}` retraces per value like `2.0` does.
    """
    if is_lit_atom(atom):
        return atom[1] in ("int", "float", "str")
    if depth < 3 and is_seq_atom(atom):
        return bool(atom[2]) and all(is_primitive(a, depth + 1) for a in atom[2])
    if depth < 3 and is_dict_atom(atom):
        return bool(atom[1]) and all(is_primitive(a, depth + 1) for a in atom[1])
    if depth < 3 and is_tup_atom(atom):
        return bool(atom[1]) and all(
            part and all(is_primitive(a, depth + 1) for a in part) for part in atom[1]
        )
    return False


def is_foreign_object(atom: Atom) -> bool:
    """A value a foreign library's call gave, or a member of one (`values.foreign_object`)."""
    return is_ext_atom(atom) and FOREIGN_CALL in atom[1]


def is_unknown(atom: Atom) -> bool:
    """A value of unknown kind: ("?",), or a foreign library's object, which is no better
    known (it is kept apart only to tell that calling its methods runs that library).
    `is_unknown_kind` or `is_foreign_object`, with the kind read once: the solver asks it of
    every atom of every argument."""
    kind: AtomKind = atom[0]
    return kind == "?" or (kind == "ext" and FOREIGN_CALL in atom[1])


def is_known_non_tensor(atom: Atom) -> bool:
    """Known to be no tensor: neither tensor-like nor ("?",)."""
    return not is_tensor_like(atom) and not is_unknown_kind(atom)


def leaf_atoms(atoms: Iterable[Atom], depth: int = 0) -> Iterator[Atom]:
    """The atoms a value may hold, looking into lists, tuples and dicts (to MAX_NESTING).

    Keras tracks layers kept in a list or dict attribute (`self.blocks = [Dense(8) for _ in
    range(3)]`) as sub-layers, and tf.function converts every leaf of a returned structure:
    both ask what the leaves are."""
    if depth >= MAX_NESTING:
        yield from atoms
        return
    for atom in atoms:
        kind: AtomKind = atom[0]
        # Most atoms are no container: one set test lets them through (asked of every atom
        # of every returned or compared value).
        if kind not in _NESTING_KINDS:
            yield atom
        elif kind == "seq":
            yield from leaf_atoms(atom[2], depth + 1)
        elif kind == "tup":
            for part in atom[1]:
                yield from leaf_atoms(part, depth + 1)
        else:
            yield from leaf_atoms(atom[1], depth + 1)


_NESTING_KINDS: frozenset[AtomKind] = frozenset({"seq", "tup", "dict"})
"""The container kinds `leaf_atoms` looks into."""


def holds_leaf(atoms: Iterable[Atom], leaf: Atom) -> bool:
    """Whether `leaf`, an atom of no container kind, is among the `leaf_atoms` of `atoms`:
    at once when it is one of them or none of them is a container (most values), else
    through their leaves."""
    atoms = atoms if isinstance(atoms, frozenset) else frozenset(atoms)
    if leaf in atoms:
        return True
    for atom in atoms:
        kind: AtomKind = atom[0]
        if kind in ("seq", "tup", "dict"):
            return leaf in leaf_atoms(atoms)
    return False


def walk_syms(roots: Iterable[Sym], follow: Callable[[Sym], Iterable[Sym]]) -> Iterator[Sym]:
    """Every value reachable from `roots` along the edges `follow` gives, each once, depth
    first (the last root and the last edge first).

    The facts ask many reachability questions of a function's values (which parameters a value
    may be, whether it is made from a call's result, whether it varies per iteration): each
    follows its own edges (locals, items, calls' arguments...), but all visit each value once,
    since a walk of every path takes exponential time on long loops that reassign many locals.
    A question answered early stops iterating; the edges of a value are read only when the
    walk goes on past it."""
    seen: set[Sym] = set()
    stack = list(roots)
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        yield current
        stack.extend(follow(current))


def local_values(fn: FunctionSummary, sym: Sym) -> list[Sym] | tuple[()]:
    """The values a local of `fn` may hold: those of a `("local", name)`, and of a free
    `("name", name)` bound inside an expression (a comprehension's target), which is local
    too unless the function declares it global; nothing for any other value."""
    kind: SymKind = sym[0]
    if kind == "local" or (
        kind == "name" and sym[1] in fn.locals and sym[1] not in fn.globals_declared
    ):
        return fn.locals.get(sym[1], ())
    return ()


def assigned_once(fn: FunctionSummary, sym: Sym, steps: int) -> Sym:
    """The value a local of `fn` assigned once holds, as written, followed through up to
    `steps` such locals (`d = defaultdict(float); f(d)` -> the `defaultdict(float)` call);
    `sym` itself where it is no local, or one assigned more than once."""
    for _ in range(steps):
        if not is_local(sym):
            break
        values = fn.locals.get(sym_name(sym), ())
        if len(values) != 1:
            break
        sym = values[0]
    return sym


def made_of(sym: Sym) -> Sequence[Sym]:
    """The values `sym` is built from, one step down: the base of an attribute, item,
    iteration or `with` value; an operation's operands; a conditional's alternatives; a
    display's elements; the values an f-string shows (`!s`/`!r`). Nothing for the others: a
    local's values are the function's (`local_values`), a call's are its call site's.

    The edges `walk_syms` callers share; each follows the kinds its question goes through
    (whether an attribute of a value is still "that value" is the caller's to say)."""
    kind: SymKind = sym[0]
    if kind in ("attr", "item", "iter", "enter"):
        return (sym[1],)
    if kind in ("op", "cond", "dict", "fstr"):
        return sym[1]
    if kind == "seq":
        return sym[2]
    return ()
