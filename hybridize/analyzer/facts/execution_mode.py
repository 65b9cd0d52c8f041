"""Reads of the execution mode: code that asks whether it runs eagerly or is being compiled.

`tf.executing_eagerly()` is True in an eager call and False while `tf.function` traces the
function, and in every function its trace calls (`tf.inside_function()` the other way round;
`torch.compiler.is_compiling()` is True while Dynamo traces): measured under TF 2.21 and
torch 2.13. Eager callers only ever ran the eager side of every branch on it; compiling the
function (or a caller of it) switches every such branch it reaches at once, to code its
callers never ran (zfit's `Parameter.set_value` raises eagerly and adds an assert op in a
graph; its `z.function` runs the body directly once already in a graph).

A read is any call of the framework's `Framework.execution_mode_reads`; the two sides of the
branch are not compared (conservative): code reads the mode to do something else.
"""

from __future__ import annotations

from typing import cast

from hybridize.analyzer.facts.call_closure import traced_hazards
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.summaries.keys import FunctionKey

MEMO = "execution_mode_reads"
OWN = "execution_mode_reads_own"


def execution_mode_reads(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The function's reads of the execution mode, or its calls of project functions whose
    trace reads it (each with the chain of calls down to the read). Memoised per project."""
    return traced_hazards(index, facts, key, lambda current: _own(index, facts, current), MEMO)


def _own(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The function's own reads of the execution mode, memoised per project."""
    memo = cast(dict[FunctionKey, list[Evidence]], facts.cache.setdefault(OWN, {}))
    found = memo.get(key)
    if found is None:
        found = memo[key] = _own_reads(index, facts, key)
    return found


def _own_reads(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    reads = index.function_framework(key).execution_mode_reads
    if not reads:
        return []
    found = []
    for resolved in facts.calls.get(key, []):
        name = next((info.name for info in resolved.api if info.name in reads), None)
        if name is not None:
            found.append(
                Evidence(
                    f"`{written_name(name)}()` is read ({reads[name]}): compiled, every "
                    "branch on it takes the side its eager callers never ran",
                    resolved.site.span,
                )
            )
    return found
