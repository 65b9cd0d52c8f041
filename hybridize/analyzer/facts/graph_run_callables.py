"""The project functions a layer library runs inside graphs of its own because the project
hands them over: Keras's `Model.compile(loss=f, metrics=[g])` (`Framework.
graph_run_arguments`; tf-keras's `add_loss(f)` of a loss callable). Keras calls the losses
and metrics it is given inside the train and test steps that `fit` and `evaluate` trace
(issue 34's class 4: already running in a graph), so for that use a decorator of the
function's own changes nothing.

A call counts when it is written `receiver.compile(...)` (the method names of
`graph_run_arguments`), the receiver's method is no project function (a project's own
`compile` wrapper hands the function on to Keras in its body, found there), and an argument
of the method's holds the function itself, or a list, tuple or dict of them (`metrics=[g]`,
`metrics={"output": [g]}`). Read from the resolved calls only, never by importing the code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, argument_at
from hybridize.analyzer.facts.predicates import leaf_atoms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.values import is_func_atom, is_method_atom, project_key
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import attr_name, is_attr


@dataclass(frozen=True, slots=True, order=True)
class GraphRunUse:
    """One hand-over: the function handed, the file and line of the call, its method and
    keyword (`compile`, `loss`), and the function making it."""

    target: FunctionKey
    file: str
    line: int
    method: str
    keyword: str
    caller: FunctionKey

    def call(self) -> str:
        """The call in words: "`Model.compile(loss=)`", "`add_loss(...)`" (a positional
        argument, `keyword` empty)."""
        if not self.keyword:
            return f"`{self.method}(...)`"
        return f"`Model.{self.method}({self.keyword}=)`"


def graph_run_callables(
    index: ProjectIndex, facts: TensorFacts, is_test_code: Callable[[FunctionKey], bool]
) -> dict[FunctionKey, GraphRunUse]:
    """Function -> its first hand-over to a graph of the layer library (by file and line),
    for every project function the project's code hands to one (a test's hand-over says
    nothing of how the program runs it)."""
    found: dict[FunctionKey, GraphRunUse] = {}
    uses = per_function(facts, "graph_run_callables", lambda k, c: _handed(index, k, c))
    for caller, caller_uses in uses.items():
        if is_test_code(caller):
            continue
        for use in caller_uses:
            known = found.get(use.target)
            if known is None or use < known:
                found[use.target] = use
    return found


def handed_functions(index: ProjectIndex, key: FunctionKey, calls: object) -> set[FunctionKey]:
    """The functions one function's calls (`calls`: its resolved calls, or what stood for
    them before an edit) hand to a layer library's graphs: their verdicts read that function
    (`verdict_scope.seeds`)."""
    if not isinstance(calls, list):
        return set()
    return {use.target for use in _handed(index, key, calls)}


def _handed(index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]) -> list[GraphRunUse]:
    """The hand-overs of one function's calls."""
    arguments = index.function_framework(key).graph_run_arguments
    if not arguments:
        return []
    found = []
    for resolved in calls:
        callee = resolved.site.callee
        if not is_attr(callee) or resolved.targets:
            continue  # not a method call, or the project's own method
        method = attr_name(callee)
        for where in arguments.get(method, ()):
            atoms = argument_at(resolved.args, resolved.kwargs, (where,))
            keyword = where if isinstance(where, str) else ""
            for atom in () if atoms is None else leaf_atoms(atoms):
                if is_func_atom(atom) or is_method_atom(atom):
                    line = resolved.site.span.start_line
                    found.append(
                        GraphRunUse(project_key(atom), key.file, line, method, keyword, key)
                    )
    return found
