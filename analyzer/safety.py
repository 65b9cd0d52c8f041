"""Safety facts: code that runs eagerly but crashes or changes meaning inside a graph.

Each fact is true only on positive evidence; what this module cannot decide yet (stale variable
reads, statically read axes, dtype coercions) is reported as unknown, which does not block a
verdict (VERDICTS.md section 2, rule 5) but says honestly that it was not checked.
"""

from __future__ import annotations

from hybridize.analyzer.ir import Sym
from hybridize.analyzer.resolve import ProjectIndex
from hybridize.analyzer.tensors import TensorFacts, get_evaluator

from hybridize.model import Finding, Tristate

SHAPE_ONLY_ATTRIBUTES = frozenset({"dtype", "shape", "ndim", "name", "device"})


def derives_from_parameter(
    index: ProjectIndex,
    facts: TensorFacts,
    key: str,
    sym: Sym,
    receiver: str | None,
    seen: set[Sym] | None = None,
) -> bool:
    """Whether a value is computed from a (non-receiver) parameter's contents."""
    seen = seen if seen is not None else set()
    if sym in seen:
        return False
    seen.add(sym)
    fn = index.function(key)
    kind = sym[0]
    if kind == "param":
        return sym[1] != receiver
    if kind == "local":
        return any(
            derives_from_parameter(index, facts, key, v, receiver, seen)
            for v in fn.locals.get(sym[1], ())
        )
    if kind == "attr":
        if sym[2] in SHAPE_ONLY_ATTRIBUTES:
            return False
        return derives_from_parameter(index, facts, key, sym[1], receiver, seen)
    if kind in ("item", "iter", "enter"):
        return derives_from_parameter(index, facts, key, sym[1], receiver, seen)
    if kind == "op" or kind == "cond":
        return any(derives_from_parameter(index, facts, key, s, receiver, seen) for s in sym[1])
    if kind == "seq":
        return any(derives_from_parameter(index, facts, key, s, receiver, seen) for s in sym[2])
    if kind == "dict":
        return any(derives_from_parameter(index, facts, key, s, receiver, seen) for s in sym[1])
    if kind == "call":
        site = fn.calls[sym[1]]
        return any(
            derives_from_parameter(index, facts, key, s, receiver, seen) for s in site.args
        ) or any(
            derives_from_parameter(index, facts, key, s, receiver, seen) for _, s in site.kwargs
        )
    return False


def safety_facts(
    index: ProjectIndex, facts: TensorFacts, key: str, graph: object
) -> tuple[dict[str, Tristate], list[Finding]]:
    """The safety facts of one function and their findings (direct evidence in the body)."""
    fn = index.function(key)
    receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
    findings: list[Finding] = []
    eager_only = False
    numpy_on_params = False
    invalid_names = False
    for resolved in facts.calls.get(key, []):
        site = resolved.site
        callee = site.callee
        is_numpy_method = callee[0] == "attr" and callee[2] == "numpy" and not site.args
        if any(info.effect == "eager_only" for info in resolved.api) or (
            is_numpy_method and all(a[0] in ("?", "boundext") for a in resolved.callee_atoms)
        ):
            eager_only = True
            what = f"`.{callee[2]}()`" if callee[0] == "attr" else "this call"
            findings.append(
                Finding(
                    "HY301",
                    "has_eager_only_calls",
                    "error",
                    f"{what} works only eagerly; it fails on a symbolic tensor",
                    site.span,
                )
            )
        if (
            any(info.framework in ("numpy", "scipy") for info in resolved.api)
            and not any(info.tensor_op for info in resolved.api)
            and any(
                derives_from_parameter(index, facts, key, s, receiver)
                for s in (*site.args, *(v for _, v in site.kwargs))
            )
        ):
            numpy_on_params = True
            findings.append(
                Finding(
                    "HY302",
                    "has_numpy_calls_on_parameters",
                    "error",
                    "NumPy is applied to a value derived from a parameter; a symbolic tensor cannot be evaluated by NumPy",
                    site.span,
                )
            )
        if site.name_arg_literal is not None and any(info.tensor_op for info in resolved.api):
            value = dict(site.kwargs).get("name")
            atoms = (
                get_evaluator(index, facts, key).eval(value) if value is not None else frozenset()
            )
            if atoms and not any(a[0] == "lit" and a[1] in ("str", "none") for a in atoms):
                invalid_names = True
                findings.append(
                    Finding(
                        "HY401",
                        "has_invalid_name_arguments",
                        "error",
                        "`name=` must be a string; TensorFlow rejects other values when building a graph",
                        site.span,
                    )
                )
    iteration = False
    evaluator = get_evaluator(index, facts, key)
    for loop in fn.loops:
        root = loop.iterable
        while root[0] == "local" and len(fn.locals.get(root[1], ())) == 1:
            root = fn.locals[root[1]][0]
        if root[0] == "param" and root[1] != receiver:
            atoms = evaluator.eval(loop.iterable)
            if any(a[0] in ("tensor", "variable") for a in atoms):
                iteration = True
                findings.append(
                    Finding(
                        "HY403",
                        "has_tensor_parameter_iteration",
                        "error",
                        f"iterates over the tensor parameter `{root[1]}` in Python; in a graph this unrolls or fails",
                        loop.span,
                    )
                )
    symbolic = bool(facts.symbolic_args.get(key))
    if symbolic:
        names = ", ".join(sorted(facts.symbolic_args[key]))
        findings.append(
            Finding(
                "HY406",
                "has_keras_symbolic_arguments",
                "error",
                f"a caller passes a Keras symbolic tensor for {names}",
                fn.span,
            )
        )
    safety: dict[str, Tristate] = {
        "has_eager_only_calls": eager_only,
        "has_numpy_calls_on_parameters": numpy_on_params,
        "has_invalid_name_arguments": invalid_names,
        "has_stale_variable_reads": None,
        "has_tensor_parameter_iteration": iteration,
        "has_conflicting_eager_dtype_coercions": None,
        "has_keras_symbolic_arguments": symbolic,
    }
    return safety, findings
