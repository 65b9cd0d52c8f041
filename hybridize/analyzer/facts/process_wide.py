"""What compiling anything changes for the whole process, and the projects it concerns.

A compiler can change global state the first time it is used, whichever function it
compiles: the first `torch.compile` turns off `torch.distributions` argument validation for
the whole process (`torch_rules.PROCESS_WIDE_EFFECTS`). Adding the decorator to any function
then changes what every distribution in the program does with invalid arguments: they are no
longer rejected. That is no fact of the function, so it does not block it; it is an
assumption every addition in a project that uses the module rests on, stated in its comment.

A project uses such a module when one of its files imports it (`from torch.distributions
import Normal`, `import torch.distributions as D`, `from torch import distributions`) or one
of its calls reaches it through the framework's top-level name (`torch.distributions.Normal(
mu, sigma)`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function, per_module
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import ModuleSummary, module_imports
from hybridize.analyzer.summaries.keys import FunctionKey


def process_wide_assumptions(
    index: ProjectIndex, facts: TensorFacts, framework: Framework
) -> list[str]:
    """The assumptions an added decorator of `framework` rests on in this project: one per
    module whose global state compiling changes and that the project uses. The same for every
    function of the framework: worked out once per solution (`facts.cache`, emptied on every
    update), not once per verdict (each walked every module and function again)."""
    if not framework.process_wide_effects:
        return []
    memo = cast(dict[str, list[str]], facts.cache.setdefault("process_wide_assumptions", {}))
    known = memo.get(framework.name)
    if known is not None:
        return known
    memo[framework.name] = found = _assumptions(index, facts, framework)
    return found


def _assumptions(index: ProjectIndex, facts: TensorFacts, framework: Framework) -> list[str]:
    modules = tuple(module for module, _ in framework.process_wide_effects)
    used: set[str] = set()
    for found in per_module(
        facts, index, f"process_wide_imports:{framework.name}", _importer(modules)
    ).values():
        used |= found
    for found in per_function(
        facts, f"process_wide_calls:{framework.name}", _caller(modules)
    ).values():
        used |= found
    return [text for module, text in framework.process_wide_effects if module in used]


def _within(dotted: str, modules: tuple[str, ...]) -> frozenset[str]:
    return frozenset(m for m in modules if dotted == m or dotted.startswith(m + "."))


def _importer(modules: tuple[str, ...]) -> Callable[[str, ModuleSummary], frozenset[str]]:
    def imported(_relpath: str, module: ModuleSummary) -> frozenset[str]:
        found: frozenset[str] = frozenset()
        for imp in module_imports(module):
            found |= _within(imp.source, modules)
            if imp.member is not None:
                found |= _within(f"{imp.source}.{imp.member}", modules)
        return found

    return imported


def _caller(
    modules: tuple[str, ...],
) -> Callable[[FunctionKey, list[ResolvedCall]], frozenset[str]]:
    def called(_key: FunctionKey, calls: list[ResolvedCall]) -> frozenset[str]:
        found: frozenset[str] = frozenset()
        for resolved in calls:
            for info in resolved.api:
                found |= _within(info.name, modules)
        return found

    return called
