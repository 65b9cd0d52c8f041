"""Input signatures: modelling a supplied one, inferring one from call sites, comparing them.

docs/verdicts.md section 3. From all call-site evidence per parameter: equal dtypes required;
ranks that differ or are unknown give `shape=None`; each axis keeps the value all call sites
agree on and becomes `None` otherwise; lists/tuples of tensors become nested lists of specs.
A parameter receiving Python values, a parameter known only from a type hint (no dtype) or a
speculative tensor blocks the signature. A signature whose `None` axis the body reads as a
Python int (`x.shape[0]` in `range`, `reshape`, arithmetic...) is withheld: that axis would
be unknown inside the trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atom, is_ext_atom, tensor_spec_class
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, Framework
from hybridize.analyzer.frameworks.shapes import literal_ints
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym, function_syms
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    NONE,
    SymKind,
    attr_name,
    is_attr,
    is_call,
    is_item,
    is_lit,
    is_local,
    is_op,
    is_param,
    is_slice,
    kind_of,
    lit_sym,
    name_sym,
    op_operands,
    op_operator,
    sym_name,
)
from hybridize.model import SpecTree, TensorSpec

SPEC_CLASSES: dict[str, str] = {
    name: kind for f in FRAMEWORKS for name, kind in f.spec_classes.items()
}
"""Every framework's spec classes of an input signature, by the report's spec kind."""


@dataclass(frozen=True, slots=True)
class Inference:
    """An inferred signature, or why there is none; and the axes the body reads statically."""

    signature: tuple[SpecTree, ...] | None
    reason: str | None
    unresolved_static_axes: bool = False


# ---------------------------------------------------------------------- supplied


def supplied_signature(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> tuple[SpecTree, ...] | None:
    """The input signature the compile decorator gives (`tf.function(input_signature=...)`),
    or a call compiling the function does, when it can be modelled."""
    relpath = key.file
    fn = index.function(key)
    for decorator in fn.decorators:
        ref = index.resolve_dotted(relpath, decorator.name)
        if not (is_ext_ref(ref) and framework.is_decorator(ref[1])):
            continue
        value = framework.argument(
            decorator.args, dict(decorator.kwargs), framework.signature_argument
        )
        if value is None:
            continue
        modelled = _model(index, facts, framework, index.owner_key(key), value, depth=0)
        if isinstance(modelled, tuple):
            return modelled
    wrapper = facts.wrapper_signatures.get(key)
    if wrapper is not None:
        modelled = _model(index, facts, framework, wrapper[0], wrapper[1], depth=0)
        if isinstance(modelled, tuple):
            return modelled
    return None


def _model(
    index: ProjectIndex,
    facts: TensorFacts,
    framework: Framework,
    owner: FunctionKey,
    sym: Sym,
    depth: int,
) -> SpecTree | None:
    if depth > 8:
        return None
    fn = index.function(owner)
    kind: SymKind = sym[0]
    if kind == "seq" and sym[1] in ("list", "tuple"):
        parts = [_model(index, facts, framework, owner, element, depth + 1) for element in sym[2]]
        if any(p is None for p in parts):
            return None
        return tuple(p for p in parts if p is not None)
    if kind in ("local", "name"):
        values = fn.locals.get(sym[1], [])
        if kind == "name" and not values:
            module = FunctionKey.module_code(owner.file)
            if module != owner:
                return _model(index, facts, framework, module, sym, depth + 1)
        return (
            _model(index, facts, framework, owner, values[0], depth + 1)
            if len(values) == 1
            else None
        )
    if kind == "call":
        site = fn.calls[sym[1]]
        evaluator = get_evaluator(index, facts, owner)
        callee = evaluator.eval(site.callee)
        classes = {SPEC_CLASSES.get(a[1]) for a in callee if is_ext_atom(a)}
        if len(classes) != 1 or None in classes:
            return None
        shape_sym = site.argument(0, "shape")
        dtype_sym = site.argument(1, "dtype")
        shape = None
        if shape_sym is not None and shape_sym != NONE:
            shape = literal_ints(evaluator.eval(shape_sym))
            if shape is None:
                return None
        dtype = (
            framework.dtype_named(evaluator.eval(dtype_sym)) if dtype_sym is not None else "float32"
        )
        return TensorSpec(classes.pop() or "TensorSpec", dtype, shape)
    return None


# ---------------------------------------------------------------------- inferred


def _spec_of(atoms: frozenset[Atom] | set[Atom], depth: int = 0) -> SpecTree | str:
    """One parameter's spec from the kinds its call sites pass, or the reason there is none."""
    if not atoms:
        return "no call site passes it"
    kinds = {a[0] for a in atoms}
    if kinds <= {"tensor", "variable", "numpy"}:
        dtypes = {a[1] for a in atoms}
        if None in dtypes:
            return "the dtype of some argument is unknown"
        if len(dtypes) > 1:
            return f"callers pass different dtypes ({', '.join(sorted(dtypes))})"
        shapes = {a[2] if len(a) > 2 else None for a in atoms}
        classes = {tensor_spec_class(a) for a in atoms}
        if len(classes) > 1:
            return "callers pass both dense and sparse or ragged tensors"
        return TensorSpec(classes.pop(), dtypes.pop(), _merge_shapes(shapes))
    if kinds == {"tup"} and depth < 3:
        lengths = {len(a[1]) for a in atoms}
        if len(lengths) != 1:
            return "callers pass lists of different lengths"
        parts: list[SpecTree] = []
        for i in range(lengths.pop()):
            element: set[Atom] = set()
            for a in atoms:
                element |= a[1][i]
            spec = _spec_of(element, depth + 1)
            if isinstance(spec, str):
                return spec
            parts.append(spec)
        return tuple(parts)
    if "?" in kinds:
        return "the kind of some argument is unknown"
    if "seq" in kinds and kinds <= {"tensor", "variable", "numpy", "seq"}:
        # A dataset element: a tensor or a tuple of them, its structure not known statically.
        return "it receives tensors or sequences of them whose structure is not known"
    return "it receives non-tensor values (Python values or objects)"


def _merge_shapes(shapes: set[tuple[int | None, ...] | None]) -> tuple[int | None, ...] | None:
    if None in shapes:
        return None
    ranks = {len(s) for s in shapes if s is not None}
    if len(ranks) != 1:
        return None
    rank = ranks.pop()
    merged: list[int | None] = []
    for axis in range(rank):
        values = {s[axis] for s in shapes if s is not None}
        merged.append(values.pop() if len(values) == 1 else None)
    return tuple(merged)


def infer_signature(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, *, speculative: bool
) -> Inference:
    """The signature all call sites agree on, or the reason there is none."""
    fn = index.function(key)
    params = list(fn.explicit_params)
    if speculative:
        return Inference(None, "its tensor parameters are assumed, not seen at a call site")
    evidence = facts.external_evidence.get(key, {})
    passed = [p for p in params if evidence.get(p.name)]
    if not passed:
        return Inference(None, "no call site passes its parameters")
    last = max(params.index(p) for p in passed)
    specs: list[SpecTree] = []
    for param in params[: last + 1]:
        if param.kind in ("vararg", "kwarg", "kwonly"):
            return Inference(None, f"`{param.name}` is a *args, **kwargs or keyword-only parameter")
        spec = _spec_of(evidence.get(param.name, set()))
        if isinstance(spec, str):
            return Inference(None, f"`{param.name}`: {spec}")
        specs.append(spec)
    signature = tuple(specs)
    unresolved = unresolved_axis(fn, [p.name for p in params[: last + 1]], signature)
    if unresolved is not None:
        name, axis = unresolved
        return Inference(
            None,
            f"the body reads `{name}.shape[{axis}]` as a Python int, and the signature "
            "would leave that axis None (the call sites do not fix its size)",
            unresolved_static_axes=True,
        )
    return Inference(signature, None)


def unresolved_axis(
    fn: FunctionSummary, names: list[str], signature: tuple[SpecTree, ...]
) -> tuple[str, int | str] | None:
    """A (parameter, axis) the body reads as a Python int that the signature leaves None;
    for a slice of the shape (`p.shape[1:]`) the axis is written as the slice (`"1:"`)."""
    for name, axis in sorted(statically_read_axes(fn)):
        if name not in names or names.index(name) >= len(signature):
            continue
        spec = signature[names.index(name)]
        if isinstance(spec, TensorSpec) and _axis_unknown(spec, axis):
            return name, axis
    for name, start in sorted(statically_read_slices(fn)):
        if name not in names or names.index(name) >= len(signature):
            continue
        spec = signature[names.index(name)]
        if isinstance(spec, TensorSpec) and (
            spec.shape is None or any(d is None for d in spec.shape[start:])
        ):
            return name, f"{start}:"  # a negative start counts from the end, as in Python
    return None


def statically_read_slices(fn: FunctionSummary) -> set[tuple[str, int]]:
    """(parameter, first axis) for every slice of a static shape the body reads as Python
    values (`np.prod(p.shape[1:])`, `p.shape[1:].num_elements()`): inside a trace each axis
    in it is an int only if the signature fixes it. (A plain `tf.function` traces every new
    shape with all its axes known; only an input_signature, or `reduce_retracing`, leaves an
    axis None.)"""
    found: set[tuple[str, int]] = set()
    for sym in function_syms(fn):
        if is_item(sym) and is_slice(sym[2]) and len(sym[2][1]) == 3:
            start = sym[2][1][0]
            if start == NONE:
                start = lit_sym("int", 0)
            if not is_lit(start) or not isinstance(start[2], int) or isinstance(start[2], bool):
                continue
            param = _shape_owner(fn, sym[1])
            if param is not None:
                found.add((param, start[2]))
    return found


def parameter_names(index: ProjectIndex, key: FunctionKey) -> list[str]:
    """The parameters a signature covers, in order (the bound `self`/`cls` excluded)."""
    return [p.name for p in index.function(key).explicit_params]


def _axis_unknown(spec: TensorSpec, axis: int) -> bool:
    if spec.shape is None:
        return True
    if not -len(spec.shape) <= axis < len(spec.shape):
        return True
    return spec.shape[axis] is None


def statically_read_axes(fn: FunctionSummary) -> set[tuple[str, int]]:
    """(parameter, axis) for every axis the body reads as a Python value: `p.shape[i]`,
    `p.get_shape()[i]`, `p.shape.as_list()[i]`, `n, d = p.shape`, and `len(p)` (axis 0)."""
    found: set[tuple[str, int]] = set()
    for read, axis in _axis_reads(fn):
        param = _parameter(fn, read) if axis is None else _shape_owner(fn, read)
        if param is not None:
            found.add((param, 0 if axis is None else axis))
    return found


def _axis_reads(fn: FunctionSummary) -> Iterator[tuple[Sym, int | None]]:
    """What the body indexes with a literal int (a static shape, maybe), with the index; and
    what it takes `len()` of, with None."""
    for sym in function_syms(fn):
        if is_item(sym) and is_lit(sym[2]) and isinstance(sym[2][2], int):
            yield sym[1], sym[2][2]
        elif is_call(sym):
            site = fn.calls[sym[1]]
            if site.callee == name_sym("len") and len(site.args) == 1:
                yield site.args[0], None


RANK_READING_SHAPE_MEMBERS = frozenset(
    {
        "dims",
        "ndims",
        "rank",
        "as_list",
        "with_rank",
        "with_rank_at_least",
        "with_rank_at_most",
        "assert_has_rank",
    }
)
"""Members of a static shape (`p.shape.X`, `p.get_shape().X`) that read its rank as a Python
value: `dims`/`ndims`/`rank` are None, and `as_list()` or a rank assertion raises, where the
rank is unknown."""


def statically_read_ranks(fn: FunctionSummary) -> set[str]:
    """Tensors whose static rank the body reads as a Python value: `p.shape.ndims`,
    `p.shape.rank`, `p.shape.dims`, `p.get_shape().as_list()`, `p.shape.with_rank(2)`,
    `p.ndim`, `len(p.shape)`; each by its parameter's name, "" for a tensor that is not a
    parameter (a local the body converted). A trace that generalised calls of different ranks
    (`reduce_retracing`) has an unknown rank there: the value is None, or the call raises."""
    found: set[str] = set()
    for sym in _syms_and_tests(fn):
        if is_attr(sym):
            if attr_name(sym) == "ndim":
                found.add(_parameter(fn, sym[1]) or _named_parameter(fn, sym[1]) or "")
            elif attr_name(sym) in RANK_READING_SHAPE_MEMBERS:
                owner = _static_shape_of(fn, sym[1])
                if owner is not None:
                    found.add(owner)
        elif is_call(sym):
            site = fn.calls[sym[1]]
            if site.callee == name_sym("len") and len(site.args) == 1:
                owner = _static_shape_of(fn, site.args[0])
                if owner is not None:
                    found.add(owner)
    return found


WHOLE_SHAPE_TESTS = frozenset({"num_elements", "is_fully_defined"})
"""Methods of a static shape whose answer depends on every axis: unknown axes make it None
or False (`TensorShape([None]).num_elements()` is None, `.is_fully_defined()` False),
wherever the answer goes."""


def statically_compared_shapes(fn: FunctionSummary) -> set[str]:
    """Tensors whose whole static shape the body compares or tests as a Python value:
    `p.shape == (0,)`, `p.get_shape() != q.shape`, `p.shape.num_elements() == 0`,
    `p.shape.is_fully_defined()`; each by its parameter's name, "" for a tensor that is not
    a parameter. A trace that generalised calls of different shapes (`reduce_retracing`)
    sees `None` axes there: `TensorShape([None]) == (0,)` is False, so the branch taken at
    the trace is not the one the call's own shape takes eagerly (seqio 0.0.20's
    `Vocabulary.decode_tf`: `if ids.shape == (0,): return b""`, relaxed to (None,), runs
    the general path on an empty `ids` and fails; measured, TF 2.21)."""
    found: set[str] = set()
    for sym in _syms_and_tests(fn):
        if is_op(sym) and op_operator(sym) == "compare":
            for operand in op_operands(sym):
                owner = _static_shape_of(fn, operand)
                if owner is not None:
                    found.add(owner)
    for site in fn.calls:
        callee = site.callee
        if is_attr(callee) and attr_name(callee) in WHOLE_SHAPE_TESTS:
            owner = _static_shape_of(fn, callee[1])
            if owner is not None:
                found.add(owner)
    return found


def _syms_and_tests(fn: FunctionSummary) -> set[Sym]:
    """Every symbolic value of the function (`function_syms`) and of its `if`/`while` tests,
    nested ones included: a rank is most often read to test it (`if p.shape.ndims is None`)."""
    found = set(function_syms(fn))
    stack = list(fn.conditions)
    while stack:
        sym = stack.pop()
        if not isinstance(sym, tuple) or not sym or sym in found:
            continue
        found.add(sym)
        for part in sym[1:]:
            if isinstance(part, tuple) and part and isinstance(part[0], str):
                stack.append(part)
            elif isinstance(part, tuple):
                stack.extend(p for p in part if isinstance(p, tuple))
    return found


def _static_shape_of(fn: FunctionSummary, sym: Sym) -> str | None:
    """Whose static shape `sym` is (`x.shape`, `x.get_shape()`, through one local): the
    parameter's name, "" for another tensor, None when `sym` is no static shape."""
    for _ in range(4):
        if is_local(sym) and len(fn.locals.get(sym_name(sym), [])) == 1:
            sym = fn.locals[sym_name(sym)][0]
        elif is_call(sym):
            callee = fn.calls[sym[1]].callee
            if is_attr(callee) and attr_name(callee) == "get_shape":
                return _parameter(fn, callee[1]) or _named_parameter(fn, callee[1]) or ""
            return None
        elif is_attr(sym) and attr_name(sym) == "shape":
            return _parameter(fn, sym[1]) or _named_parameter(fn, sym[1]) or ""
        else:
            return None
    return None


def _named_parameter(fn: FunctionSummary, sym: Sym) -> str | None:
    """The parameter a name read is, even where the body rebinds it later
    (`t = tf.expand_dims(t, 1)`): the read is of that parameter's tensor, or of what the body
    made of it."""
    if kind_of(sym) in ("local", "param") and any(p.name == sym[1] for p in fn.params):
        return str(sym[1])
    return None


def axes_read_through_rebound_names(fn: FunctionSummary) -> set[str]:
    """Parameters the body rebinds (`x = tf.convert_to_tensor(x)`) and then reads an axis of
    as a Python value through the new binding (`x.shape[-1]`, `len(x)`): reads
    `statically_read_axes` does not tie to the parameter. The axis read may be another of the
    parameter's (the body may have reshaped it): which one is not known."""
    found: set[str] = set()
    for read, axis in _axis_reads(fn):
        if axis is None:
            param = _named_parameter(fn, read)
        else:
            param = _shape_owner(fn, read, through_rebound=True)
        if param is not None:
            found.add(param)
    return found - {name for name, _ in statically_read_axes(fn)}


def _shape_owner(fn: FunctionSummary, sym: Sym, *, through_rebound: bool = False) -> str | None:
    """The parameter whose static shape `sym` is (`p.shape`, `p.get_shape()`, `.as_list()`);
    `through_rebound`: also a parameter's name the body rebinds (`_named_parameter`)."""

    def owner(tensor: Sym) -> str | None:
        found = _parameter(fn, tensor)
        if found is None and through_rebound:
            found = _named_parameter(fn, tensor)
        return found

    for _ in range(4):
        if is_local(sym) and len(fn.locals.get(sym[1], [])) == 1:
            sym = fn.locals[sym[1]][0]
        elif is_call(sym):
            callee = fn.calls[sym[1]].callee
            if not is_attr(callee):
                return None
            if callee[2] == "as_list":
                sym = callee[1]
            elif callee[2] == "get_shape":
                return owner(callee[1])
            else:
                return None
        elif is_attr(sym) and attr_name(sym) == "shape":
            return owner(sym[1])
        else:
            return None
    return None


def _parameter(fn: FunctionSummary, sym: Sym) -> str | None:
    for _ in range(10):
        if kind_of(sym) in ("local", "name") and len(fn.locals.get(sym[1], [])) == 1:
            sym = fn.locals[sym[1]][0]
        else:
            break
    return sym[1] if is_param(sym) else None


# ---------------------------------------------------------------------- comparison


def compare(supplied: tuple[SpecTree, ...], inferred: tuple[SpecTree, ...]) -> str:
    """How a supplied signature relates to the call sites: equal, broader, tighter or
    incomparable (it rejects some call site and accepts what none passes)."""
    if supplied == inferred:
        return "equal"
    if len(supplied) != len(inferred):
        return "incomparable"
    broader = tighter = False
    for s, i in zip(supplied, inferred, strict=True):
        if not isinstance(s, TensorSpec) or not isinstance(i, TensorSpec):
            if s != i:
                return "incomparable"
            continue
        if s.dtype != i.dtype or s.spec != i.spec:
            return "incomparable"
        if s.shape is None and i.shape is not None:
            broader = True
            continue
        if i.shape is None and s.shape is not None:
            tighter = True
            continue
        if s.shape is None or i.shape is None:
            continue
        if len(s.shape) != len(i.shape):
            return "incomparable"
        for a, b in zip(s.shape, i.shape, strict=True):
            if a == b:
                continue
            if a is None:
                broader = True
            elif b is None:
                tighter = True
            else:
                return "incomparable"
    if broader and tighter:
        return "incomparable"
    return "broader" if broader else "tighter" if tighter else "equal"


@dataclass(frozen=True, slots=True)
class FunctionSignatures:
    """A function's supplied input signature (when it is compiled) and the one its call sites
    imply (with `--infer-input-signatures`): what HY404 and HY013 report, and the report's
    signature fields."""

    supplied: tuple[SpecTree, ...] | None = None
    unresolved: tuple[str, int | str] | None = None
    """A (parameter, axis) the body reads as a Python int that `supplied` leaves None."""
    inference: Inference | None = None
    """What the call sites imply; None when no inference was asked for."""

    @property
    def relation(self) -> str | None:
        """How `supplied` relates to the inferred signature (`compare`), when both exist."""
        if self.supplied is None or self.inference is None or self.inference.signature is None:
            return None
        return compare(self.supplied, self.inference.signature)


def function_signatures(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    *,
    compiled: bool,
    infer: bool,
    speculative: bool,
) -> FunctionSignatures:
    """The supplied signature of a `compiled` function and, when asked to `infer`, the one
    the call sites imply (`speculative`: its tensor parameters are assumed, not shown)."""
    supplied = supplied_signature(index, facts, key, framework) if compiled else None
    unresolved = (
        unresolved_axis(index.function(key), parameter_names(index, key), supplied)
        if supplied is not None
        else None
    )
    inference = infer_signature(index, facts, key, speculative=speculative) if infer else None
    return FunctionSignatures(supplied, unresolved, inference)
