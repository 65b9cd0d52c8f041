"""HY432 computes_numpy_arrays: NumPy arrays computed inside torch.compile, through torch._numpy."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.checks import TORCH_ONLY, Check
from hybridize.analyzer.facts.evaluator import bind_written, callees, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import (
    is_tensor_like,
    leaf_atoms,
    local_values,
    made_of,
    walk_syms,
)
from hybridize.analyzer.facts.safety import SHAPE_ONLY_ATTRIBUTES
from hybridize.analyzer.facts.values import Atom, Atoms, atom_kind, canonical
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.summaries.hooks import SummaryContext, SummaryHook
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    is_attr,
    is_call,
    is_param,
    param_sym,
    sym_name,
)
from hybridize.model import Finding, Span, fast_pickling

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext
    from hybridize.analyzer.facts.evaluator import Evaluator, ResolvedCall, TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
    from hybridize.analyzer.summaries.keys import FunctionKey
    from hybridize.analyzer.summaries.syms import SymKind

MAX_HELPER_DEPTH = 3
"""Project functions followed from a function to the NumPy call (Dynamo inlines the functions
a compiled function calls: their NumPy code is traced with it)."""

NOT_ARRAY_KEYWORDS = frozenset({"dtype", "axis", "axes", "order", "casting", "copy", "ndmin"})
"""Keywords of NumPy functions that never hold the data computed on."""

LIST_OF_DATA = "a list or tuple of data"

REVERSING_FUNCTIONS = frozenset({"flip", "flipud", "fliplr", "rot90"})
"""NumPy functions answering a view with negative strides (a copy under torch._numpy)."""
DIVIDING_FUNCTIONS = frozenset({"divide", "true_divide"})
FLOAT_FUNCTIONS = frozenset(
    {"sqrt", "cbrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "arctan",
     "deg2rad", "radians", "float32", "float64"}
)  # fmt: skip
"""NumPy functions whose value for Python numbers is a float scalar (`np.sqrt(2)`)."""
"""NumPy's true divisions (`/`): of integer arrays, float64 in NumPy, float32 compiled."""
REDUCTIONS = frozenset(
    {
        "all", "amax", "amin", "any", "argmax", "argmin", "average", "count_nonzero",
        "linalg.norm", "max", "mean", "median", "min", "nanmax", "nanmean", "nanmedian",
        "nanmin", "nanstd", "nansum", "nanvar", "prod", "ptp", "std", "sum", "trace", "var",
    }
)  # fmt: skip
"""NumPy reductions (functions and array methods): over the whole array, a NumPy scalar
eagerly, a 0-d ndarray compiled."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class ReversedSlice:
    """A subscript with a negative-step slice (`a[::-1]`, `a[None, ::-2]`): its base."""

    operands: tuple[Sym]
    span: Span


@fast_pickling
@dataclass(frozen=True, slots=True)
class TrueDivision:
    """A true division (`a / b`): its operands."""

    operands: tuple[Sym, Sym]
    span: Span


def _negative_step(node: ast.expr) -> bool:
    if not isinstance(node, ast.Slice) or node.step is None:
        return False
    step = node.step
    if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub):
        return isinstance(step.operand, ast.Constant) and isinstance(step.operand.value, int)
    return isinstance(step, ast.Constant) and isinstance(step.value, int) and step.value < 0


def _numpy_operations(
    node: ast.Subscript | ast.BinOp, context: SummaryContext
) -> Iterator[ReversedSlice | TrueDivision]:
    """The negative-step slices and true divisions of the body, with their operands."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            operands = (context.value(node.left), context.value(node.right))
            yield TrueDivision(operands, context.statement)
        return
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(_negative_step(part) for part in parts):
        yield ReversedSlice((context.value(node.value),), context.statement)


class ComputesNumpyArrays(Check):
    """Computes NumPy arrays from its parameters in ways torch.compile computes otherwise.

    What it detects
    ---------------
    NumPy code on data computed from the function's parameters (an array, a tensor's values,
    a list of floats; the receiver's attributes included) that does one of the operations
    whose results `torch._numpy` gives otherwise than NumPy (measured, below):

    - a NumPy function (`np.array`, `np.outer`, `np.convolve`...) given a parameter that
      holds a list or tuple of floats (`np.outer(taps, taps)`);
    - a negative-step slice (`a[::-1]`, `a[None, ::-2]`) or a flip (`np.flip`, `np.flipud`,
      `np.fliplr`, `np.rot90`) of such an array;
    - a true division (`a / b`, `np.divide`, `np.true_divide`) with such an array as an
      operand, or a NumPy array and a parameter's tensor (`x / np.arange(1, n)`), where no
      operand is a float known from the code (`2.0`, `np.sqrt(2)`): the dtypes are not
      known, they may be integers;
    - a whole-array reduction of it (`np.sum(a)`, `a.mean()`, `np.linalg.norm(a)`; no axis)
      that the function returns (alone, in a tuple or list, through locals).

    Also a call of a project function (to depth 3) that does one of these with what this
    function passes it, made of its parameters: Dynamo inlines it. NumPy on static metadata
    (`x.shape`, `len(x)`), Python numbers and module constants does not count, nor do the
    operations measured to compute alike: positive slices (written through too), stacking,
    `reshape`/`.T`/`ravel` views written through, floor division, division by a float,
    reductions along an axis or used inside, elementwise math, `np.cumsum`.

    Why it matters in graph mode
    ----------------------------
    With `torch._dynamo.config.trace_numpy` (on by default) Dynamo does not run NumPy: it
    traces each NumPy call through `torch._numpy`, NumPy's API re-implemented with torch
    ops on tensors, and converts the arrays back at the frame's end. The emulation differs
    from NumPy (measured, torch 2.13, NumPy 2.4; tests/analyzer/test_hy432_*.py measures
    each again, and that what the check allows computes alike):

    - torch has no negative strides, so a negative-step slice or a flip is a copy, not a
      view: a write through it (`b = a[::-1]; b[0] = 1`, `np.flip`) changes `a` eagerly and
      is lost compiled; `a[::-1] += 1` raises at trace time; a new axis before a
      negative-step slice (`a[None, ::-1]`, pytorch-wavelets' `np.outer(h, h)[None, ::-1,
      ::-1]`) raises `IndexError: Dimension out of range` in `aten.flip`'s meta function;
    - true division of integer arrays gives float32 (torch's default dtype), not float64,
      and so does an integer tensor divided by an integer array (float64 eagerly);
    - a whole-array reduction returned from the compiled function is a 0-d `ndarray`, not a
      NumPy scalar (`isinstance(r, float)` turns False);
    - a list of floats is specialised on: its values are constants of the graph, and each
      new list compiles a new graph (4 lists, 4 graphs; an ndarray argument is a graph
      input: one graph), for no gain (pytorch-wavelets' filter preparation measured 2x
      slower compiled than eager NumPy).

    Example
    -------
        def prep_filters(h0, h1):
            h0, h1 = np.array(h0).ravel(), np.array(h1).ravel()
            filts = np.stack([np.outer(h0, h0)[None, ::-1, ::-1],
                              np.outer(h1, h1)[None, ::-1, ::-1]])
            return torch.tensor(filts, dtype=torch.float32)

    Instead
    -------
    Leave NumPy code eager: prepare constants (filters, grids, tables) once, outside the
    compiled function, and pass the tensors in; or write the computation with torch ops
    (`torch.outer(h, h).flip(-2, -1)[None]`), whose semantics are torch's in both modes;
    divide by a float (`a / 2.0`) or cast first (`a.astype(np.float64) / 2`); return
    `float(a.sum())`.

    Not for TensorFlow
    ------------------
    tf.function does not trace NumPy: NumPy on a tensor fails while tracing (HY302), and
    NumPy on Python values runs once, at trace time, with NumPy's own semantics.
    """

    code = "HY432"
    frameworks = TORCH_ONLY
    name = "computes_numpy_arrays"
    severity = "error"
    summary = (
        "computes NumPy arrays from its parameters in ways torch._numpy, which torch.compile "
        "runs them through, computes otherwise (negative-step slices and flips are copies, "
        "integer division gives float32, reductions come back as 0-d arrays, lists of floats "
        "are specialised on)."
    )
    unblock = "keep NumPy work eager (prepare constants outside), or write it with torch ops"
    fact = "computes_numpy_arrays"
    fact_meaning = (
        "(PyTorch) NumPy code on a parameter's array, tensor values or list of floats does "
        "what `torch._numpy` (Dynamo's NumPy) computes otherwise: a negative-step slice or "
        "flip (a copy, not a view), a true division that may be of integers (float32), a "
        "whole-array reduction returned (a 0-d array), NumPy on a list of floats (specialised "
        "per value)"
    )
    decision_order = 152
    summary_hook = SummaryHook((ast.Subscript, ast.BinOp), _numpy_operations)
    EXAMPLE_FUNCTION = "filtered"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The NumPy computations the function traces (its own, or a callee's), for a
        function not compiled yet."""
        if not context.changes_on_compiling:
            return []
        found = numpy_computations(context.index, context.facts, context.key)
        lines = {c.evidence.span.start_line: c.evidence for c in reversed(found)}
        return cls.findings(sorted(lines.values(), key=lambda e: e.span.start_line))  # one per line


@dataclass(frozen=True, slots=True)
class NumpyComputation:
    """A NumPy operation whose result differs compiled, on an array computed from some
    parameters (or a call of a project function doing one with what this function passes)."""

    parameters: frozenset[str]
    """The parameters the array is computed from (the receiver included)."""
    evidence: Evidence


def numpy_computations(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, depth: int = 0
) -> list[NumpyComputation]:
    """The operations of `key`'s body that torch._numpy computes otherwise than NumPy, on
    arrays computed from the parameters' data (`_differing_operations`), then the calls of
    project functions that do some on what this function passes them, made of its own
    parameters (to MAX_HELPER_DEPTH). Memoised per solution and function."""
    cache = cast("dict[FunctionKey, list[NumpyComputation]]", facts.cache.setdefault("hy432", {}))
    known = cache.get(key)
    if known is not None:
        return known
    cache[key] = []  # recursion: a cycle adds nothing
    fn = index.function(key)
    evaluator = get_evaluator(index, facts, key)
    found = _differing_operations(fn, evaluator, facts.calls.get(key, []))
    for resolved in facts.calls.get(key, []) if depth < MAX_HELPER_DEPTH else ():
        for kind, target in callees(index, resolved):
            if target == key or not index.has_function(target):
                continue
            inner = numpy_computations(index, facts, target, depth + 1)
            if not inner:
                continue
            callee = index.function(target)
            bound = bind_written(callee, resolved, kind, target)
            passed = frozenset(
                name
                for computation in inner
                for parameter in computation.parameters
                for argument in bound.get(parameter, ())
                if _array_kind(evaluator.eval(argument)) is not None
                for name in _parameters_of(fn, evaluator, argument)
            )
            if passed:
                message = (
                    f"passes {_names(passed)} to `{callee.qualname}`, which computes NumPy "
                    "arrays from it in a way torch._numpy does otherwise: Dynamo inlines the "
                    f"call ({inner[0].evidence.message})"
                )
                found.append(NumpyComputation(passed, Evidence(message, resolved.site.span)))
                break
    cache[key] = found
    return found


def _names(parameters: frozenset[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(parameters))


def _differing_operations(
    fn: FunctionSummary, evaluator: Evaluator, calls: list[ResolvedCall]
) -> list[NumpyComputation]:
    """The function's own operations whose results torch._numpy gives otherwise than NumPy
    (measured, see the check's docs), on arrays computed from its parameters: NumPy given a
    parameter's list of floats (specialised per value), a negative-step slice or a flip (a
    copy, not a view), a true division that may be of integers (float32), a whole-array
    reduction returned (a 0-d array)."""
    found: list[NumpyComputation] = []

    def add(parameters: frozenset[str], message: str, span: Span) -> None:
        if parameters:
            found.append(NumpyComputation(parameters, Evidence(message, span)))

    returned = _returned_calls(fn)
    by_index = {resolved.index: resolved for resolved in calls}
    for resolved in calls:
        computed = _numpy_computation(fn, evaluator, resolved)
        if computed is None:
            continue
        function, arrays = computed
        span = resolved.site.span
        name = function.removeprefix("np.")
        listed = frozenset(
            p
            for sym in arrays
            if not name.startswith("ndarray.")  # the array was computed by a function first
            for p in _list_parameters(fn, evaluator, sym)
        )
        add(
            listed,
            f"`{function}` computes a NumPy array from the list of floats {_names(listed)}: "
            "compiled, Dynamo makes the list's values constants of the graph (a new graph "
            "for each new list) and runs NumPy through torch._numpy",
            span,
        )
        parameters = frozenset(p for sym in arrays for p in _parameters_of(fn, evaluator, sym))
        if name in REVERSING_FUNCTIONS:
            add(parameters, _reversed_message(f"`{function}`", parameters), span)
        elif name in DIVIDING_FUNCTIONS and _divides_arrays(
            evaluator, resolved.site.args, by_index
        ):
            add(parameters, _division_message(f"`{function}`", parameters), span)
        elif _reduces_whole(resolved, name) and resolved.index in returned:
            add(parameters, _reduction_message(function, parameters), span)
    for operation in ComputesNumpyArrays.summary_facts(fn):
        if isinstance(operation, ReversedSlice):  # a tensor has no negative-step slices
            arrays = [sym for sym in operation.operands if _is_array(evaluator.eval(sym))]
            parameters = frozenset(p for sym in arrays for p in _parameters_of(fn, evaluator, sym))
            add(parameters, _reversed_message("a negative-step slice", parameters), operation.span)
        elif any(_only_arrays(evaluator.eval(sym)) for sym in operation.operands) and (
            _divides_arrays(evaluator, operation.operands, by_index)
        ):  # by a tensor too: an integer tensor by an integer array differs
            parameters = frozenset(
                p for sym in operation.operands for p in _parameters_of(fn, evaluator, sym)
            )
            add(parameters, _division_message("`/`", parameters), operation.span)
    return found


def _reversed_message(what: str, parameters: frozenset[str]) -> str:
    return (
        f"{what} of a NumPy array computed from {_names(parameters)}: compiled, torch._numpy "
        "makes it a copy (torch has no negative strides), so a write through it is lost and a "
        "new axis before it raises IndexError"
    )


def _division_message(what: str, parameters: frozenset[str]) -> str:
    return (
        f"true division ({what}) of a NumPy array computed from {_names(parameters)}, which "
        "may hold integers: compiled, torch._numpy gives float32 where NumPy gives float64"
    )


def _reduction_message(what: str, parameters: frozenset[str]) -> str:
    return (
        f"returns `{what}` of a whole NumPy array computed from {_names(parameters)}: "
        "compiled, it comes back as a 0-d ndarray, not a NumPy scalar"
    )


def _numpy_computation(
    fn: FunctionSummary, evaluator: Evaluator, resolved: ResolvedCall
) -> tuple[str, list[Sym]] | None:
    """The NumPy function a call runs (`np.outer`; `ndarray.sum` for a method) and the
    array-like values it computes on that are made of the function's parameters (None when
    it computes no array from them)."""
    info = next((i for i in resolved.api if i.framework == "numpy"), None)
    if info is None or info.tensor_op or info.effect is not None:
        return None  # draws (`np.random`, HY104), I/O
    site = resolved.site
    module = lookup(info.name.rpartition(".")[0])
    if module is None or module.kind != "module":
        # an array's method: the receiver is the array computed on
        if not is_attr(site.callee) or _array_kind(evaluator.eval(attr_base(site.callee))) is None:
            return None
        receiver = attr_base(site.callee)
        if not _parameters_of(fn, evaluator, receiver):
            return None
        return "ndarray." + info.name.rpartition(".")[2], [receiver]
    if info.returns != "numpy":
        return None  # Python answers (`np.shape`)
    values = [*zip(site.args, resolved.args, strict=False)]
    values.extend(
        (sym, resolved.kwargs.get(keyword, frozenset()))
        for keyword, sym in site.kwargs
        if keyword not in NOT_ARRAY_KEYWORDS
    )
    arrays = [
        sym
        for sym, atoms in values
        if _array_kind(atoms) is not None and _parameters_of(fn, evaluator, sym)
    ]
    return ("np." + info.name.removeprefix("numpy."), arrays) if arrays else None


def _list_parameters(fn: FunctionSummary, evaluator: Evaluator, sym: Sym) -> frozenset[str]:
    """The parameters a value is made of that hold a list or tuple of floats, arrays or
    tensors (their values come from the caller: Dynamo specialises the graph on them)."""
    return frozenset(
        name
        for name in _parameters_of(fn, evaluator, sym)
        if _array_kind(evaluator.eval(param_sym(name))) == LIST_OF_DATA
    )


def _only_arrays(atoms: Atoms) -> bool:
    """A NumPy array, never a tensor (a value of both kinds is most often a tensor that a
    NumPy scalar or array was combined with: `torch.sqrt(s) - bias`)."""
    return _is_array(atoms) and not any(atom_kind(a) in ("tensor", "variable") for a in atoms)


def _is_array(atoms: Atoms) -> bool:
    """May be a NumPy array (what torch._numpy computes on, compiled)."""
    return any(atom_kind(atom) == "numpy" for atom in atoms)


def _divides_arrays(
    evaluator: Evaluator, operands: Sequence[Sym], calls: Mapping[int, ResolvedCall]
) -> bool:
    """A true division whose operands may all be integers: none is a float known from the
    code (the quotient is then float64 in both modes). A tensor operand does not make it
    torch's division: an integer tensor divided by an integer array gives float64 eagerly,
    float32 compiled (measured)."""
    return not any(_float_value(evaluator, sym, calls) for sym in operands)


def _float_value(evaluator: Evaluator, sym: Sym, calls: Mapping[int, ResolvedCall]) -> bool:
    """A Python float (`2.0`), or a NumPy float function of Python numbers (`np.sqrt(2)`:
    a float64 scalar)."""
    atoms = evaluator.eval(sym)
    if atoms and all(atom_kind(atom) == "lit" and atom[1] == "float" for atom in atoms):
        return True
    resolved = calls.get(sym[1]) if is_call(sym) else None
    if resolved is None:
        return False
    info = next((i for i in resolved.api if i.framework == "numpy"), None)
    if info is None or info.name.removeprefix("numpy.") not in FLOAT_FUNCTIONS:
        return False
    return bool(resolved.args) and all(
        arguments and all(atom_kind(a) == "lit" and a[1] in ("int", "float") for a in arguments)
        for arguments in resolved.args
    )


def _reduces_whole(resolved: ResolvedCall, name: str) -> bool:
    """A reduction over the whole array (no axis given): NumPy answers a NumPy scalar."""
    site = resolved.site
    if any(keyword == "axis" for keyword, _ in site.kwargs):
        return False
    if name.startswith("ndarray."):
        return name.removeprefix("ndarray.") in REDUCTIONS and not site.args
    positional_axis = 3 if name == "linalg.norm" else 2
    return name in REDUCTIONS and len(site.args) < positional_axis


def _returned_calls(fn: FunctionSummary) -> frozenset[int]:
    """The calls whose results the function returns as they are (alone, in a tuple or a
    list, through locals and conditionals)."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return local_values(fn, current)
        if kind in ("seq", "cond"):
            return made_of(current)
        return ()

    return frozenset(s[1] for s in walk_syms(fn.returns, follow) if is_call(s))


def _parameters_of(fn: FunctionSummary, evaluator: Evaluator, sym: Sym) -> frozenset[str]:
    """The parameters whose data a value is computed from (the receiver's attributes
    included): not through static metadata (`x.shape`, `x.ndim`), nor through a call that
    answers no array (`len(x)`, `x.size(0)`); through a call that does, from the array-like
    arguments it is given and the receiver of a method."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return local_values(fn, current)
        if is_attr(current):
            return () if attr_name(current) in SHAPE_ONLY_ATTRIBUTES else (attr_base(current),)
        if kind in ("item", "iter", "enter", "op", "cond", "seq", "dict"):
            return made_of(current)
        if is_call(current):
            if _array_kind(evaluator.eval(current)) is None:
                return ()
            site = fn.calls[current[1]]
            parts = [
                a
                for a in (*site.args, *(v for _, v in site.kwargs))
                if _array_kind(evaluator.eval(a)) is not None
            ]
            if is_attr(site.callee):
                parts.append(attr_base(site.callee))
            return parts
        return ()

    return frozenset(sym_name(s) for s in walk_syms((sym,), follow) if is_param(s))


def _array_kind(atoms: Atoms) -> str | None:
    """What array-like value `atoms` may hold, in words (None for Python numbers, strings,
    integer lists, dtypes, values of unknown kind and the like)."""
    for atom in sorted(atoms, key=canonical):
        kind = atom_kind(atom)
        if kind in ("numpy", "tensor", "variable"):
            return "an array" if kind == "numpy" else "a tensor"
    for atom in atoms:
        if atom_kind(atom) in ("seq", "tup") and any(_data_leaf(a) for a in leaf_atoms((atom,))):
            return LIST_OF_DATA
    return None


def _data_leaf(atom: Atom) -> bool:
    """A leaf of a list that makes it data rather than a shape: a float, an array or a
    tensor."""
    if is_tensor_like(atom):
        return True
    return atom_kind(atom) == "lit" and atom[1] == "float"
