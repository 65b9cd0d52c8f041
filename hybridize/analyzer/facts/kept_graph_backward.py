"""Project functions whose backward some code runs with its graph kept, or batched.

AOTAutograd compiles a function's backward ahead of time. When its partitioner saves an
intermediate for that backward (a matmul's input computed in the function, say), the saved
buffers are donated to the backward, which then runs once only: any backward that keeps the
graph raises "This backward function was compiled with non-empty donated buffers which
requires create_graph=False and retain_graph=False" (measured on torch 2.13, static and
dynamic shapes alike: `frameworks.torch_rules.KEPT_GRAPH_BACKWARD_KEYWORDS`). Which functions
save an intermediate is the partitioner's choice, so every function a kept-graph backward runs
through is at risk. And Inductor's compiled backward cannot run on batched (vmapped) output
gradients at all ("Cannot access data pointer of Tensor that doesn't have storage").

Code runs a project function's backward so when

- it passes a value computed from the function's result to a backward call with
  `retain_graph`, `create_graph` or `is_grads_batched` given as anything but a literal False
  or None (`torch.autograd.grad(y, x, create_graph=create_graph)`: a flag that may be True), or
- it hands an object of a project class to a call that differentiates a callable
  (`torch.autograd.functional.jacobian(transform, x)`) and the class's call is a framework
  base's own `__call__`: which project methods it runs the analysis cannot follow (a
  `torch.distributions.Transform` runs `_call`, and a composed transform calls the transforms it
  holds), so every method of every project class sharing that external base is taken to run
  (`CALLABLE_FAMILY_BASE_PREFIXES`). A class with its own `__call__` runs that.

The project functions those call run in the same backward, transitively. A function already
reported by HY422 (`double_backward_targets`: differentiated twice, or handed to `jacobian`
as a function or module) is left to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import functions_run_by
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.differentiated_values import (
    DifferentiatedValue,
    backward_inputs,
    differentiated_value,
    producers_through_callers,
)
from hybridize.analyzer.facts.double_backward import double_backward_targets
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.refs import ext_dotted, is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.values import is_boundext_atom, is_obj_atom, obj_class, obj_role
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import Sym, is_attr, is_lit, lit_value

DONATED_BUFFERS = (
    "a compiled backward that saves an intermediate has donated buffers and runs once: a "
    "backward that keeps the graph raises"
)
BATCHED = "a compiled backward cannot run on batched (vmapped) output gradients"


@dataclass(frozen=True, slots=True)
class KeptGraphBackward:
    """Where a project function's backward runs with its graph kept, or batched."""

    by: FunctionKey
    """The function that runs the backward."""
    how: str
    """The call, as written in the message: "`torch.autograd.grad(..., retain_graph=...)`"."""
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class _Found:
    """A backward call of one function: what it differentiates (the project functions it
    runs directly, and the parameters the value comes from) and the project classes whose
    whole external family it runs (both expanded over the project when the answer is
    combined, so that a caller or a class added elsewhere is seen after an edit)."""

    where: KeptGraphBackward
    value: DifferentiatedValue
    families: tuple[ClassKey, ...] = ()


def kept_graph_targets(
    index: ProjectIndex, facts: TensorFacts
) -> dict[FunctionKey, KeptGraphBackward]:
    """Project functions whose backward some function runs with the graph kept or batched,
    each with the first place (in key order) that does it; none that HY422 reports."""
    cached = facts.cache.get("kept_graph_backward")
    if isinstance(cached, dict):
        return cached
    found = per_function(
        facts, "kept_graph_backward", lambda key, calls: _found_in(index, key, calls)
    )
    twice = double_backward_targets(index, facts)
    result: dict[FunctionKey, KeptGraphBackward] = {}
    for key in sorted(found, key=str):
        for item in found[key]:
            starts = producers_through_callers(index, facts, key, item.value)
            for klass in item.families:
                starts.extend(_family_methods(index, facts, klass))
            for target in functions_run_by(index, facts, starts):
                if target not in twice:
                    result.setdefault(target, item.where)
    facts.cache["kept_graph_backward"] = result
    return result


def _found_in(index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]) -> list[_Found]:
    framework = index.function_framework(key)
    keywords = framework.kept_graph_backward_keywords
    handing = {name for name, _ in framework.higher_order_gradient_calls}
    handing |= framework.repeated_backward_calls
    if not keywords and not handing:
        return []
    by_index = {resolved.index: resolved for resolved in calls}
    fn = index.function(key)
    found: list[_Found] = []
    for resolved in calls:
        line = resolved.site.span.start_line
        kept = _kept_keyword(resolved, keywords)
        if kept is not None:
            name, keyword = kept
            site = resolved.site
            # `loss.backward(...)` runs the backward of its receiver, `grad(out, x, ...)` of
            # its first argument.
            method = is_attr(site.callee) and any(
                is_boundext_atom(a) for a in resolved.callee_atoms
            )
            value = site.callee[1] if method else site.args[0] if site.args else None
            if value is None:
                continue
            reason = BATCHED if keyword == "is_grads_batched" else DONATED_BUFFERS
            how = f"`{_written(name)}(..., {keyword}=...)`"
            inputs = backward_inputs(resolved, framework)
            where = KeptGraphBackward(key, how, line, reason)
            found.append(_Found(where, differentiated_value(index, fn, by_index, value, inputs)))
            continue
        handed = next((i.name for i in resolved.api if i.name in handing), None)
        if handed is None or not resolved.args:
            continue
        starts: set[FunctionKey] = set()
        families: set[ClassKey] = set()
        for atom in resolved.args[0]:
            if not is_obj_atom(atom) or obj_role(atom) in ("layer", "model"):
                continue
            klass = obj_class(atom)
            if klass is None:
                continue
            own_call = index.dispatch(klass, "__call__")
            if own_call:
                starts.update(own_call)
            else:
                families.add(klass)
        if starts or families:
            where = KeptGraphBackward(key, f"`{_written(handed)}`", line, DONATED_BUFFERS)
            run = DifferentiatedValue(tuple(sorted(starts, key=str)))
            found.append(_Found(where, run, tuple(sorted(families, key=str))))
    return found


def _kept_keyword(
    resolved: ResolvedCall, keywords: Mapping[str, tuple[str, ...]]
) -> tuple[str, str] | None:
    """(API, keyword) of a backward call given a keyword that keeps its graph or batches it:
    any value but a literal False or None (a flag computed at run time may be True)."""
    kwargs = dict(resolved.site.kwargs)
    for info in resolved.api:
        for keyword in keywords.get(info.name, ()):
            value = kwargs.get(keyword)
            if value is not None and not _literal_false(value):
                return info.name, keyword
    return None


def _literal_false(sym: Sym) -> bool:
    return is_lit(sym) and lit_value(sym) in (False, None)


def _family_methods(index: ProjectIndex, facts: TensorFacts, klass: ClassKey) -> list[FunctionKey]:
    """The methods of every project class that shares one of `klass`'s external framework
    bases (`callable_family_base_prefixes`), and of their project subclasses."""
    prefixes = index.function_framework(klass).callable_family_base_prefixes
    bases = {
        ext_dotted(ref)
        for ref in index.external_bases(klass)
        if ext_dotted(ref).startswith(prefixes)
    }
    if not bases:
        return []
    by_base = _classes_by_external_base(index, facts)
    members: dict[ClassKey, None] = {}
    for base in sorted(bases):
        for root in by_base.get(base, ()):
            members[root] = None
            members.update(dict.fromkeys(index.subclasses(root)))
    return [
        FunctionKey(member.file, f"{member.qualname}.{method}")
        for member in members
        for method in index.klass(member).methods
    ]


def _classes_by_external_base(index: ProjectIndex, facts: TensorFacts) -> dict[str, list[ClassKey]]:
    """Project classes by each external base they name, for the facts' life (computed only
    when a family is asked for: a project handing such an object to a differentiating call)."""
    cached = facts.cache.get("classes_by_external_base")
    if isinstance(cached, dict):
        return cached
    found: dict[str, list[ClassKey]] = {}
    for relpath, module in index.modules.items():
        for qualname in module.classes:
            key = FunctionKey(relpath, qualname)
            for ref in index.base_refs(key):
                if is_ext_ref(ref):
                    found.setdefault(ext_dotted(ref), []).append(key)
    facts.cache["classes_by_external_base"] = found
    return found


def _written(name: str) -> str:
    return name.replace("torch.Tensor.", "Tensor.")


def kept_graph_backward(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The function's backward runs with the graph kept, or batched (`kept_graph_targets`)."""
    where = kept_graph_targets(index, facts).get(key)
    if where is None:
        return []
    return [
        Evidence(
            f"`{where.by.qualname}` runs the backward of its result with {where.how} (line "
            f"{cited_line(where.by.file, where.line)}): {where.reason}",
            index.function(key).span,
        )
    ]
