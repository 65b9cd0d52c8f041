"""A function a sorting builtin calls as its key: what it returns is compared in Python.

`min`, `max` and `sorted` call their `key=` function on every element and order the results
with `<` (a tuple of them element by element, `==` first). Compiled, the key returns its
Python values as tensors (measured under TF 2.21):

- a string becomes a string tensor, which has no order: `<` raises `InvalidArgumentError`
  ("Value for attr 'T' of string is not in the list of allowed values"), in an eager caller
  too;
- in a caller that runs as a graph every compared value is a symbolic tensor, and the
  comparison's `bool()` raises `OperatorNotAllowedInGraphError` (tensorflow-gnn's
  `_get_indicative_feature` orders its field specs by `key_fn(item) -> (ragged_rank, name)`:
  with both compiled, collecting `orchestration_test.py` failed so).

An eager caller ordering by a number is fine: an eager scalar tensor compares and converts
to a Python bool.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import Evaluator, TensorFacts
from hybridize.analyzer.facts.predicates import leaf_atoms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import is_lit_atom, is_python_atom
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import kind_of, lit_type

SORTING_BUILTINS = frozenset({"builtins.min", "builtins.max", "builtins.sorted"})
"""The builtins that order the results of their `key=` callback in Python."""


def compared_key_results(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    fn: FunctionSummary,
    evaluator: Evaluator,
    traced: Collection[FunctionKey],
) -> Iterator[str]:
    """Why compiling `key`, a sort key of some caller, breaks that caller's ordering, in
    words: it returns a Python string (or a Python value not known to be a number), or
    Python values to a caller that runs as a graph."""
    leaves = {atom for sym in fn.returns for atom in leaf_atoms(evaluator.eval(sym))}
    # A string, or a Python value not known to be a number (a dict's key, a static shape):
    # compiled, a string tensor (no order), a shape tensor (`bool()` of a comparison of
    # several elements raises), or an object tf.function cannot return.
    text = any(is_python_atom(atom) or atom[:2] == ("lit", "str") for atom in leaves)
    python = text or any(is_lit_atom(atom) and lit_type(atom) != "none" for atom in leaves)
    if not python:
        return
    for caller in sorted(facts.callback_callers.get(key, ()), key=str):
        graph = caller in traced
        if not (text or graph):
            continue
        for resolved in facts.calls.get(caller, []):
            builtin = next((i.name for i in resolved.api if i.name in SORTING_BUILTINS), None)
            if builtin is None:
                continue
            given = resolved.kwargs.get("key", frozenset())
            if not any(kind_of(atom) in ("func", "method") and atom[1] == key for atom in given):
                continue
            name = builtin.removeprefix("builtins.")
            line = resolved.site.span.start_line
            where = f"`{index.function(caller).qualname}` (line {cited_line(caller.file, line)})"
            if text:
                yield (
                    f"returns a Python value not known to be a number (a str, a dict's key) "
                    f"that `{name}` in {where} orders as its key: compiled, a string becomes a "
                    "string tensor, which has no order (`<` raises InvalidArgumentError)"
                )
            else:
                yield (
                    f"returns Python values that `{name}` in {where}, which runs as a graph, "
                    "orders as its key: compiled, symbolic tensors, whose comparison's `bool()` "
                    "raises OperatorNotAllowedInGraphError"
                )
            return
