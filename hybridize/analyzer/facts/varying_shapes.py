"""Tensor parameters whose shapes change from call to call (issue 34's retracing class 2).

A compiled function specialises what it compiles on the static shapes of the tensors it is
given: `tf.function` traces a new graph for every new shape (a sequence one token longer at
every decoding step traces at every step), `torch.compile` recompiles at the first new shape
and then compiles sizes as symbols. The decorator's shape-generalising argument
(`Framework.shape_generalising_argument`: `reduce_retracing=True`, `dynamic=True`) avoids
that, and the rewrite writes it where this module finds evidence (HY014). Evidence is positive
only:

- the call sites pass a parameter tensors of different static shapes (`param_atoms`: one
  site passes `[8, 32]`, another `[3, 32]`);
- a call inside a loop passes a local that a loop of the caller rebinds with a value grown
  from itself (`cache = tf.concat([cache, step], axis=1)`), read as `loop_shapes` reads growth
  (`frameworks.output_shapes`): a larger tensor at every pass.

A tensor whose shape is unknown at every site (`[None, 32]` at one site only) is no evidence:
the analysis does not know that its size changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees, param_layout
from hybridize.analyzer.facts.loop_shapes import growth_in_loops
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.keys import FunctionKey

MAX_SHOWN_SHAPES = 3
"""How many of the shapes the call sites pass a reason writes out."""


@dataclass(frozen=True, slots=True)
class VaryingShape:
    """A parameter whose tensor shapes change from call to call, and the evidence in words."""

    parameter: str
    evidence: str
    """What shows it: "call sites pass shapes (8, 32) and (3, 32)", "`decode` passes `cache`,
    which `tf.concat` grows at every pass of its loop"."""


def varying_shapes(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[VaryingShape, ...]:
    """The parameters of `key` whose tensor shapes change between calls, by name."""
    found: dict[str, str] = {}
    for name, atoms in sorted(facts.param_atoms.get(key, {}).items()):
        shapes = sorted(
            {a[2] for a in atoms if a[0] == "tensor" and len(a) > 2 and a[2] is not None},
            key=repr,
        )
        if len(shapes) > 1:
            shown = [_shape(s) for s in shapes[:MAX_SHOWN_SHAPES]]
            more = ", ..." if len(shapes) > MAX_SHOWN_SHAPES else ""
            found[name] = f"call sites pass shapes {', '.join(shown[:-1])} and {shown[-1]}{more}"
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        for parameter, why in _grown_in_caller_loops(index, facts, caller, key).items():
            found.setdefault(parameter, why)
    return tuple(VaryingShape(name, found[name]) for name in sorted(found))


def _grown_in_caller_loops(
    index: ProjectIndex, facts: TensorFacts, caller: FunctionKey, key: FunctionKey
) -> dict[str, str]:
    """The parameters of `key` that a call inside a loop of `caller` fills with a local the
    caller's loops grow, with the reason."""
    sites = [
        (resolved, kind)
        for resolved in facts.calls.get(caller, ())
        if resolved.site.in_loop
        for kind, target in callees(index, resolved)
        if target == key
    ]
    if not sites:
        return {}
    grown = growth_in_loops(index, facts, caller)
    if not grown:
        return {}
    found: dict[str, str] = {}
    owner = index.function(caller).qualname
    for resolved, kind in sites:
        for parameter, argument in _bound(index, key, resolved, kind).items():
            name = argument[1] if argument[0] in ("local", "name") else None
            if name in grown and parameter not in found:
                found[parameter] = f"`{owner}` passes `{name}`, which {grown[name]}"
    return found


def _bound(
    index: ProjectIndex, key: FunctionKey, resolved: ResolvedCall, kind: str
) -> dict[str, Sym]:
    """The arguments of a call as written, by the parameter of `key` each binds (positional
    and keyword; what `*args` or `**kwargs` collect is left out)."""
    fn = index.function(key)
    layout = param_layout(fn, kind in ("method", "layer_call", "class"))
    site = resolved.site
    bound: dict[str, Sym] = {}
    if not site.has_star_args:
        for position, argument in enumerate(site.args[: len(layout.positional)]):
            bound[layout.positional[position]] = argument
    for name, argument in site.kwargs:
        if name in layout.keywords:
            bound[name] = argument
    return bound


def _shape(shape: tuple[int | None, ...]) -> str:
    """A static shape as the reasons write it: `(8, None)`."""
    inner = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"
