"""NumPy arrays at a compiled function's boundary, converted inside to another dtype.

Eagerly, a NumPy array reaches the body as it is, and an API that converts its argument to a
requested dtype (`tf.convert_to_tensor(x, dtype=tf.float32)`, `tf.Variable(x, dtype=...)`:
`Framework.dtype_asserting_conversions`) converts a float64 array to float32 as asked. A
traced function converts its NumPy arguments to tensors of their own dtype first, and such an
API refuses a tensor of another dtype: "ValueError: Tensor conversion requested dtype float32
for Tensor with dtype float64" while tracing (measured under TF 2.21,
tests/analyzer/test_hy414_numpy_dtype_conversions.py). A Python number or a list of them is
no hazard: tf.function keeps Python values as they are, and the conversion is the eager one.
A project helper the function passes the parameter to is traced with it, on the same tensor:
its conversions count for the function too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.evaluator import (
    TensorFacts,
    bind_written,
    callees,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import made_of, walk_syms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atom, ext_name, is_ext_atom, is_numpy_atom
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.api_info import DtypeAssertingConversion
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.frameworks.shapes import DTYPE_ALIASES, DTYPE_NAMES
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import is_cond, is_local, is_param, sym_name
from hybridize.model import Span

NUMPY_DTYPE_PREFIX = "numpy."
"""NumPy's dtypes name a requested dtype as well (`dtype=np.float32`)."""


@dataclass(frozen=True, slots=True)
class Conversion:
    """A parameter that reaches a dtype-asserting conversion as it is."""

    parameter: str
    dtype: str
    """The dtype the conversion asks for."""
    api: str
    """The conversion, as code writes it (`tf.convert_to_tensor`)."""
    span: Span
    """Where the function converts it, or calls the helper that does."""
    helper: str | None = None
    """The project function that converts it, when not the function itself."""


MAX_HELPER_DEPTH = 3
"""Project helpers followed from a function to the conversion (a helper is traced with its
caller, on the caller's tensors)."""


def numpy_dtype_conversions(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> list[Evidence]:
    """Each dtype-asserting conversion of a parameter, in the function or in a project helper
    it passes the parameter to, that some caller fills with a NumPy array of another dtype
    than the one requested (or of a dtype not known)."""
    if not framework.dtype_asserting_conversions or index.is_layer_call(key):
        # Keras converts the NumPy arguments of a layer's `call` to tensors of the layer's
        # dtype before it runs, eager or traced alike (measured, Keras 3).
        return []
    evidence = facts.param_atoms.get(key, {})
    found: list[Evidence] = []
    reported: set[tuple[str, Span]] = set()
    for conversion in parameter_conversions(index, facts, key, framework):
        arrays = sorted(_other_dtypes(evidence.get(conversion.parameter, ()), conversion.dtype))
        if not arrays or (conversion.parameter, conversion.span) in reported:
            continue
        reported.add((conversion.parameter, conversion.span))
        where = f" (in `{conversion.helper}`)" if conversion.helper else ""
        found.append(
            Evidence(
                f"`{conversion.api}`{where} converts `{conversion.parameter}` to "
                f"{conversion.dtype}, and a caller passes a NumPy value of {' or '.join(arrays)} "
                "for it: eagerly the value is converted, but a traced function receives it as a "
                f"tensor of its own dtype, which `{conversion.api}` refuses (ValueError while "
                "tracing)",
                conversion.span,
            )
        )
    return found


def parameter_conversions(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    depth: int = 0,
) -> list[Conversion]:
    """The parameters of `key` that reach a dtype-asserting conversion as they are: in its
    body, or passed to a project function whose parameter does (to MAX_HELPER_DEPTH).
    Memoised per solution."""
    cache = cast(
        "dict[FunctionKey, list[Conversion]]", facts.cache.setdefault("numpy_boundary", {})
    )
    known = cache.get(key)
    if known is not None:
        return known
    conversions = framework.dtype_asserting_conversions
    fn = index.function(key)
    receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
    found: list[Conversion] = []
    for resolved in facts.calls.get(key, []):
        site = resolved.site
        for info in resolved.api:
            asserting = conversions.get(info.name)
            if asserting is None:
                continue
            value = _argument(site, asserting.position, asserting.keyword)
            requested = _requested_dtype(resolved.args, resolved.kwargs, asserting, framework)
            if value is None or requested is None:
                continue
            for name in sorted(_parameters_behind(fn, value, receiver)):
                found.append(Conversion(name, requested, written_name(info.name), site.span))
        if depth >= MAX_HELPER_DEPTH:
            continue
        for kind, target in callees(index, resolved):
            if target == key or not index.has_function(target):
                continue
            callee = index.function(target)
            inner = parameter_conversions(index, facts, target, framework, depth + 1)
            if not inner:
                continue
            bound = bind_written(callee, resolved, kind, target)
            for converted in inner:
                for argument in bound.get(converted.parameter, ()):
                    for name in sorted(_parameters_behind(fn, argument, receiver)):
                        found.append(
                            Conversion(
                                name,
                                converted.dtype,
                                converted.api,
                                site.span,
                                converted.helper or callee.qualname,
                            )
                        )
    if depth == 0:
        cache[key] = found
    return found


def _argument(site: CallSite, position: int, keyword: str) -> Sym | None:
    """The value a call passes for a parameter, by keyword or position."""
    for name, value in site.kwargs:
        if name == keyword:
            return value
    return site.args[position] if position < len(site.args) else None


def _requested_dtype(
    args: Sequence[frozenset[Atom]],
    kwargs: Mapping[str, frozenset[Atom]],
    conversion: DtypeAssertingConversion,
    framework: Framework,
) -> str | None:
    """The dtype a conversion asks for, when the call names exactly one (`tf.float32`,
    `"float32"`, `np.float32`)."""
    atoms = kwargs.get(conversion.dtype_keyword)
    if atoms is None and conversion.dtype_position < len(args):
        atoms = args[conversion.dtype_position]
    if not atoms:
        return None
    named = framework.dtype_named(atoms)
    if named is not None:
        return named
    numpy = {
        DTYPE_ALIASES.get(short, short)
        for atom in atoms
        if is_ext_atom(atom) and ext_name(atom).startswith(NUMPY_DTYPE_PREFIX)
        for short in [atom[1].removeprefix(NUMPY_DTYPE_PREFIX)]
        if short in DTYPE_NAMES
    }
    return numpy.pop() if len(numpy) == 1 and len(atoms) == 1 else None


def _other_dtypes(atoms: Iterable[Atom], requested: str) -> Iterator[str]:
    """The dtypes of the NumPy arrays among `atoms` that are not `requested` ("an unknown
    dtype" for an array whose dtype is not known)."""
    seen = set()
    for atom in atoms:
        if not is_numpy_atom(atom) or atom[1] == requested:
            continue
        dtype = atom[1] or "an unknown dtype"
        if dtype not in seen:
            seen.add(dtype)
            yield dtype


def _parameters_behind(fn: FunctionSummary, sym: Sym, receiver: str | None) -> set[str]:
    """The parameters (not the receiver) a value may be as given: through locals, whatever
    their other values, and conditional expressions; an operation's or a call's result is a
    new value."""

    def follow(current: Sym) -> Iterable[Sym]:
        if is_local(current):
            return fn.locals.get(current[1], ())
        return made_of(current) if is_cond(current) else ()

    return {
        current[1]
        for current in walk_syms((sym,), follow)
        if is_param(current) and sym_name(current) != receiver
    }
