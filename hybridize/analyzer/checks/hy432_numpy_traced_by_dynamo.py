"""HY432 computes_numpy_arrays: NumPy arrays computed inside torch.compile, through torch._numpy."""

from __future__ import annotations

from collections.abc import Iterable
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
from hybridize.analyzer.facts.values import Atom, Atoms, atom_kind
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    is_attr,
    is_call,
    is_param,
    sym_name,
)
from hybridize.model import Finding

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


class ComputesNumpyArrays(Check):
    """Computes NumPy arrays from its parameters, which torch.compile runs as torch ops.

    What it detects
    ---------------
    A call of a NumPy function that computes an array (`np.array`, `np.outer`, `np.stack`,
    `np.mean`, `np.fft.fft`...; not `np.random.*`, HY104's, nor the functions that answer a
    Python value such as `np.shape` or `np.issubdtype`, nor an array's methods) on an
    array, a tensor, or a list or tuple holding floats, arrays or tensors, computed from
    the function's parameters (the receiver's attributes included): `np.array(taps)`,
    `np.cumsum(x.numpy())`. Python numbers, integer lists (shapes, axes, paddings), values
    of a kind the analysis does not know, module constants and static metadata (`x.shape`,
    `x.ndim`, `len(x)`) do not count: NumPy on static metadata and Python numbers gives the
    same values compiled (`x / np.sqrt(x.shape[-1])`, an index array `np.arange(n)[::-1]`
    only read). Also a call of a project function (to depth 3) that computes such arrays
    from what this function passes it, made of its parameters: Dynamo inlines it.

    Why it matters in graph mode
    ----------------------------
    With `torch._dynamo.config.trace_numpy` (on by default) Dynamo does not run NumPy: it
    traces each NumPy call through `torch._numpy`, NumPy's API re-implemented with torch
    ops on tensors, and converts the arrays back at the frame's end. The emulation differs
    from NumPy (measured, torch 2.13, NumPy 2.4; tests/analyzer/test_hy432_*.py measures
    each again):

    - torch has no negative strides, so a negative-step slice (`a[::-1]`) is a copy, not a
      view: a write through it (`b = a[::-1]; b[0] = 1`) changes `a` eagerly and is lost
      compiled; `a[::-1] += 1` raises at trace time; a new axis before a negative-step
      slice (`a[None, ::-1]`, pytorch-wavelets' `np.outer(h, h)[None, ::-1, ::-1]`) raises
      `IndexError: Dimension out of range` in `aten.flip`'s meta function;
    - true division of integer arrays gives float32 (torch's default dtype), not float64;
    - a reduction (`np.sum`, `np.mean`, `np.linalg.norm`) returned from the compiled
      function is a 0-d `ndarray`, not a NumPy scalar (`isinstance(r, float)` turns False);
    - functions `torch._numpy` lacks (`np.polyfit`, `np.pad(mode="reflect")`, string and
      object arrays) break the graph: NumPy runs them, in pieces.

    And compiling such code rarely gains: NumPy on Python values is constant work that
    Dynamo specialises on (a recompilation per distinct list: 4 lists, 4 graphs); the warm
    compiled call of pytorch-wavelets' filter preparation measured 2x slower than eager
    NumPy (Inductor), the corpus's `make_windows` 0.45x (docs/benchmarks.md). An ndarray
    argument is a graph input (one graph for new values of one shape), where heavy NumPy
    numerics might pay; the verdict blocks it all the same, for the semantics above.

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
    (`torch.outer(h, h).flip(-2, -1)[None]`), whose semantics are torch's in both modes.

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
        "computes NumPy arrays from its parameters: torch.compile runs them through "
        "torch._numpy, whose semantics differ (no negative-stride views, float32 int division, "
        "0-d arrays for scalars), for no gain."
    )
    unblock = "keep NumPy work eager (prepare constants outside), or write it with torch ops"
    fact = "computes_numpy_arrays"
    fact_meaning = (
        "(PyTorch) a NumPy function computes an array from a parameter's array, tensor or "
        "list of floats (not from Python numbers or static shapes): Dynamo traces it "
        "through `torch._numpy`, whose results differ from NumPy's (negative-step slices copy, "
        "integer division gives float32, scalars come back as 0-d arrays)"
    )
    decision_order = 152
    EXAMPLE_FUNCTION = "filtered"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The NumPy computations the function traces (its own, or a callee's), for a
        function not compiled yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(
            c.evidence for c in numpy_computations(context.index, context.facts, context.key)
        )


@dataclass(frozen=True, slots=True)
class NumpyComputation:
    """A NumPy call that computes an array from the data of some parameters."""

    parameters: frozenset[str]
    """The parameters the array is computed from (the receiver included)."""
    evidence: Evidence


def numpy_computations(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, depth: int = 0
) -> list[NumpyComputation]:
    """The NumPy calls computing arrays from the parameters' data in `key`'s body, then the
    calls of project functions that compute some from what this function passes them, made
    of its own parameters (to MAX_HELPER_DEPTH). Memoised per solution and function."""
    cache = cast("dict[FunctionKey, list[NumpyComputation]]", facts.cache.setdefault("hy432", {}))
    known = cache.get(key)
    if known is not None:
        return known
    cache[key] = []  # recursion: a cycle adds nothing
    fn = index.function(key)
    evaluator = get_evaluator(index, facts, key)
    found: list[NumpyComputation] = []
    for resolved in facts.calls.get(key, []):
        computed = _numpy_computation(fn, evaluator, resolved)
        if computed is not None:
            function, kind, parameters = computed
            message = (
                f"`{function}` computes a NumPy array from {kind} made of "
                f"{_names(parameters)}: compiled, Dynamo runs it through torch._numpy (torch "
                "ops emulating NumPy), whose results differ (negative-step slices are copies, "
                "integer division gives float32, scalars come back as 0-d arrays), and NumPy "
                "on Python values is specialised per value, with nothing to gain"
            )
            found.append(NumpyComputation(parameters, Evidence(message, resolved.site.span)))
            continue
        if depth >= MAX_HELPER_DEPTH:
            continue
        for kind, target in callees(index, resolved):
            if target == key or not _is_function(index, target):
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
                    "arrays from it: Dynamo inlines the call, and runs its NumPy code through "
                    "torch._numpy"
                )
                found.append(NumpyComputation(passed, Evidence(message, resolved.site.span)))
                break
    cache[key] = found
    return found


def _names(parameters: frozenset[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(parameters))


def _is_function(index: ProjectIndex, key: FunctionKey) -> bool:
    try:
        index.function(key)
    except KeyError:
        return False
    return True


def _numpy_computation(
    fn: FunctionSummary, evaluator: Evaluator, resolved: ResolvedCall
) -> tuple[str, str, frozenset[str]] | None:
    """The NumPy function a call runs and what it computes on, when it computes an array
    from an array-like value made of the function's parameters (None otherwise)."""
    info = next((i for i in resolved.api if i.framework == "numpy"), None)
    if info is None or info.tensor_op or info.returns != "numpy" or info.effect is not None:
        return None  # Python answers (`np.shape`), draws (`np.random`, HY104), I/O
    module = lookup(info.name.rpartition(".")[0])
    if module is None or module.kind != "module":
        return None  # an array's method: the array was computed by a NumPy function first
    site = resolved.site
    values = [*zip(site.args, resolved.args, strict=False)]
    values.extend(
        (sym, resolved.kwargs.get(keyword, frozenset()))
        for keyword, sym in site.kwargs
        if keyword not in NOT_ARRAY_KEYWORDS
    )
    for sym, atoms in values:
        kind = _array_kind(atoms)
        parameters = _parameters_of(fn, evaluator, sym) if kind is not None else frozenset()
        if kind is not None and parameters:
            return "np." + info.name.removeprefix("numpy."), kind, parameters
    return None


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
    for atom in sorted(atoms, key=repr):
        kind = atom_kind(atom)
        if kind in ("numpy", "tensor", "variable"):
            return "an array" if kind == "numpy" else "a tensor"
    for atom in atoms:
        if atom_kind(atom) in ("seq", "tup") and any(_data_leaf(a) for a in leaf_atoms((atom,))):
            return "a list or tuple of data"
    return None


def _data_leaf(atom: Atom) -> bool:
    """A leaf of a list that makes it data rather than a shape: a float, an array or a
    tensor."""
    if is_tensor_like(atom):
        return True
    return atom_kind(atom) == "lit" and atom[1] == "float"
