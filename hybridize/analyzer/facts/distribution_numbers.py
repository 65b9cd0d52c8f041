"""`torch.distributions` objects built from Python floats that differ between calls.

Dynamo passes a Python float that changes between calls as a symbolic float after one
recompilation (measured: five values, two frames). A `torch.distributions` constructor takes
its parameters through `broadcast_all`, which asks whether each is a `numbers.Number` and so
specialises such a float again: the compiled function is guarded on the float's exact value
and recompiles at every new one, even with `dynamic=True`, until `recompile_limit` (8), after
which it runs eagerly (measured on torch 2.13: a float argument, a module's float attribute or
a global reassigned between calls, or a float computed from one: six values, seven frames;
`frameworks.torch_rules.DISTRIBUTION_FLOAT_RECOMPILES`). An int argument (made a symbolic int)
and a float that reaches the constructor through a tensor op (`torch.eye(n) * s`) do not.

So a function that builds a distribution from such a float compiles at every call and then
stops being compiled: a decorator on it costs and gives nothing.

A float differs between calls when it is a parameter (or computed from one) whose callers
pass differing floats (`retracing.LiteralVariation`), or when it reads a `self` attribute or
module global the project reassigns between calls (`frozen_state.reassigned_reads`). The
constructor may be a `torch.distributions` class or a project class deriving from one.
"""

from __future__ import annotations

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.frozen_state import reassigned_reads, traced_with
from hybridize.analyzer.facts.predicates import leaf_atoms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.retracing import LiteralVariation
from hybridize.analyzer.facts.safety import mentions
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.namespaces import canonical_external
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import local_sym, param_sym

FLOAT: tuple[str, str] = ("lit", "float")


def distributions_from_varying_floats(
    index: ProjectIndex, facts: TensorFacts, variation: LiteralVariation, key: FunctionKey
) -> list[Evidence]:
    """The first distribution built, in the function or a project function traced with it,
    from a Python float that differs between calls of the function."""
    reason = index.function_framework(key).distribution_float_recompiles
    fn = index.function(key)
    if reason is None or fn.is_lambda or key.is_module_code:
        return []
    for reader, via, entry in traced_with(index, facts, key):
        for resolved, cls in _distribution_constructions(index, facts, reader):
            why = _varying_float_argument(index, facts, variation, key, reader, resolved)
            if why is None:
                continue
            where = (
                ""
                if reader == key
                else f" (line {cited_line(reader.file, resolved.site.span.start_line)})"
            )
            return [
                Evidence(
                    f"{via}builds `{cls}`{where} from {why}: {reason}",
                    resolved.site.span if reader == key else entry,
                )
            ]
    return []


def _distribution_constructions(
    index: ProjectIndex, facts: TensorFacts, reader: FunctionKey
) -> list[tuple[ResolvedCall, str]]:
    """The calls of `reader` that construct a distribution, each with the class as written."""
    found = []
    for resolved in facts.calls.get(reader, []):
        name = next(
            (
                info.name
                for info in resolved.api
                if info.kind == "class" and info.name.startswith("torch.distributions.")
            ),
            None,
        )
        if name is not None:
            found.append((resolved, written_name(name)))
            continue
        for kind, target in resolved.targets:
            if kind == "class" and _derives_from_a_distribution(index, target):
                found.append((resolved, target.qualname))
                break
    return found


def _derives_from_a_distribution(index: ProjectIndex, class_key: FunctionKey) -> bool:
    return any(
        canonical_external(ref[1]).startswith("torch.distributions.")
        for ref in index.external_bases(class_key)
    )


def _varying_float_argument(
    index: ProjectIndex,
    facts: TensorFacts,
    variation: LiteralVariation,
    key: FunctionKey,
    reader: FunctionKey,
    resolved: ResolvedCall,
) -> str | None:
    """Why an argument of the construction is a Python float that differs between calls of
    `key`, in words; None when none is."""
    fn = index.function(reader)
    evaluator = get_evaluator(index, facts, reader)
    site = resolved.site
    arguments: list[Sym] = [*site.args, *(value for _, value in site.kwargs)]
    floats = [a for a in arguments if any(x[:2] == FLOAT for x in leaf_atoms(evaluator.eval(a)))]
    if not floats:
        return None
    varying = variation.retraces(reader).literal
    reader_params = facts.param_atoms.get(reader, {})
    for name in sorted(varying):
        if not any(a[:2] == FLOAT for a in reader_params.get(name, ())):
            continue  # an int made a float in the body is a symbolic int: dynamic
        if any(mentions(fn, a, {param_sym(name), local_sym(name)}) for a in floats):
            return f"`{name}`, a Python float its callers vary ({varying[name].reason})"
    for read, words in reassigned_reads(index, facts, key, reader):
        if not any(x[:2] == FLOAT for x in leaf_atoms(evaluator.eval(read))):
            continue
        if any(mentions(fn, a, {read}) for a in floats):
            return words
    return None
