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

The converted value may also be read out of a container parameter: an element of a list or
tuple (iterated, or subscripted), a value of a dict (subscripted, `.values()`, the value of
`.items()`), nested (a list of dicts). tf.function converts every NumPy leaf of a structured
argument to a tensor of its own dtype, so the element arrives as a tensor too and the
conversion raises alike. The dtypes are any pair that differ, integers too: NumPy's default
int64 converted to int32 raises as float64 to float32 does, NumPy scalars (`np.int64(3)`) as
arrays do. A Python list converted as a whole is no hazard even when its elements are NumPy
values: the conversion packs and casts them (measured under TF 2.21,
tests/analyzer/test_hy414_conversions_measured.py).

A conversion whose value no caller shows (no caller is known, or one passes a value of
unknown type) is reported too: an explicit dtype on an argument's conversion is the idiom of
a function meant to take non-tensors, NumPy values among them, and NumPy's defaults (float64,
int64) are not the dtypes usually requested. Callers that show Python values, lists, tensors
or NumPy values of the requested dtype leave it silent. A caller's argument is the value
that reaches the call (`CallSite.reaching`: a local rebound before it passes the last
assignment's value), and a list built of a parameter's elements or a builtin copy of it
(`[dict(d) for d in ds]`, `list(xs)`) holds the parameter's values.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.evaluator import (
    RECEIVER_BINDING_KINDS,
    TensorFacts,
    bind_arguments,
    bind_written,
    callees,
    solved_evaluator,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import local_values, made_of
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import (
    NONE_ATOM,
    TENSOR,
    UNKNOWN_ATOM,
    Atom,
    atom_kind,
    ext_name,
    is_ext_atom,
    is_numpy_atom,
)
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.api_info import DtypeAssertingConversion
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.frameworks.shapes import DTYPE_ALIASES, DTYPE_NAMES
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    call_index,
    is_attr,
    is_call,
    is_cond,
    is_item,
    is_iter,
    is_lit,
    is_local,
    is_name,
    is_param,
    is_seq,
    is_slice,
    item_base,
    item_index,
    lit_type,
    lit_value,
    seq_kind,
    sym_name,
)
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
    path: tuple[str, ...] = ()
    """How the converted value is read out of the parameter, the parameter's read first:
    "subscript" (an element, or a dict's value), "iterated" (an element; a dict's key,
    which is none of its values), "values" (a dict's values: `.values()`, the
    value of `.items()`). Empty: the parameter as it is."""
    kind: str = "conversion"
    """What the API does with it: "conversion" (converts it to `dtype`, asked for), "input"
    (an op's input of the one dtype `dtype`), "attribute" (an op's attribute: `dtype` is
    ATTRIBUTE, a Python value)."""


ATTRIBUTE = "a Python value"
"""`Conversion.dtype` of an op's attribute: every NumPy value is of another dtype."""

MAX_HELPER_DEPTH = 3
"""Project helpers followed from a function to the conversion (a helper is traced with its
caller, on the caller's tensors)."""


def numpy_dtype_conversions(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> list[Evidence]:
    """Each dtype-asserting conversion of a parameter (or of a value read out of it), in the
    function or in a project helper it passes the parameter to, that some caller fills with a
    NumPy value of another dtype than the one requested (or of a dtype not known), or whose
    value no caller shows (none is known, or one passes a value of unknown type). Silent
    where every caller shows Python values, lists, tensors or NumPy values of the requested
    dtype."""
    if (
        not framework.dtype_asserting_conversions and not framework.numpy_refusing_arguments
    ) or index.is_layer_call(key):
        # Keras converts the NumPy arguments of a layer's `call` to tensors of the layer's
        # dtype before it runs, eager or traced alike (measured, Keras 3).
        return []
    evidence = _reaching_evidence(index, facts, key)
    found: list[Evidence] = []
    reported: set[tuple[str, Span]] = set()
    unshown: dict[tuple[str, Span], list[Conversion]] = {}
    for conversion in parameter_conversions(index, facts, key, framework):
        if (conversion.parameter, conversion.span) in reported:
            continue
        given = _read_out(evidence.get(conversion.parameter, ()), conversion.path)
        arrays = sorted(_other_dtypes(given, conversion.dtype))
        if not arrays:
            if _unshown_blocks(conversion, bool(evidence.get(conversion.parameter)), given):
                unshown.setdefault((conversion.parameter, conversion.span), []).append(conversion)
            continue
        reported.add((conversion.parameter, conversion.span))
        found.append(
            Evidence(
                f"{_takes(conversion)}, and a caller passes a NumPy value of "
                f"{' or '.join(arrays)} for it: {_refused(conversion)}",
                conversion.span,
            )
        )
    shortest = _shortest_reads(parameter_conversions(index, facts, key, framework))
    for place, conversions in unshown.items():
        unknown = [c for c in conversions if len(c.path) == shortest[place]]
        if place in reported or not unknown:
            # Every read the value may be at its shortest is shown (a list a caller passes,
            # converted as a whole): longer reads of the same name are a reassigned
            # local's later values (`x = tf.convert_to_tensor(x, ...); x = x[None]`).
            continue
        # Safe is a promise: an explicit dtype on an argument's conversion is the idiom of a
        # function meant to take non-tensors, NumPy values among them, and NumPy's defaults
        # (float64, int64) are not the dtypes usually requested.
        conversion = unknown[0]
        shown = (
            "a caller passes a value of unknown type"
            if evidence.get(conversion.parameter)
            else "no caller is known"
        )
        found.append(
            Evidence(
                f"{_takes(conversion)}, and {shown} for it: {_would_fail(conversion)}, "
                f"{_refused(conversion)}",
                conversion.span,
            )
        )
    return found


def _reaching_evidence(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> Mapping[str, Collection[Atom]]:
    """What callers pass for each parameter (`TensorFacts.param_atoms`), where a caller's
    argument is a local it rebinds before the call as the values reaching the call
    (`CallSite.reaching`): zfit's `lower = znp.array(lower)[0, 0]; simpson(lower=lower)`
    passes a tensor, not also the value `lower` held before (measured,
    tests/analyzer/test_rebound_arguments_measured.py). The values such a call's locals held
    before are taken out where no other call passes them."""
    evidence = facts.param_atoms.get(key, {})
    if not evidence:
        return evidence
    callee = index.function(key)
    written: dict[str, set[Atom]] = {}
    reached: dict[str, set[Atom]] = {}
    for caller in sorted(facts.callers.get(key, ()), key=str):
        evaluator = solved_evaluator(index, facts, caller)
        for resolved in facts.calls.get(caller, []):
            for kind, target in callees(index, resolved):
                if target != key or target in resolved.chained or target in resolved.partials:
                    continue
                skip = kind in RECEIVER_BINDING_KINDS
                before = bind_arguments(callee, resolved.args, resolved.kwargs, skip_receiver=skip)
                after = before
                if resolved.site.reaching and evaluator is not None:
                    args, kwargs = evaluator.reaching_arguments(resolved.index)
                    after = bind_arguments(callee, args, kwargs, skip_receiver=skip)
                    for name, atoms in before.items():
                        written.setdefault(name, set()).update(atoms)
                # a value another call passes as it is stays
                for name, atoms in after.items():
                    reached.setdefault(name, set()).update(atoms)
    if not written:
        return evidence
    narrowed: dict[str, Collection[Atom]] = dict(evidence)
    for name, gone in written.items():
        if name in narrowed:
            narrowed[name] = frozenset(
                {*(a for a in narrowed[name] if a not in gone), *reached.get(name, ())}
            )
    return narrowed


def _unshown_blocks(conversion: Conversion, shown: bool, given: Collection[Atom]) -> bool:
    """Whether a value no caller shows blocks: for a conversion, when no caller is known or
    one passes a value of unknown type (an explicit dtype asked of an argument's conversion
    is the idiom of a function meant to take non-tensors); for an op's attribute, only the
    latter: eagerly the attribute takes a Python or a NumPy number (a tensor raises in both
    modes), and a value of unknown type may be NumPy's (tf-agents' `self.num_actions`, of a
    spec's NumPy bounds), while a parameter no caller shows is no sign of one. An op's input
    of one dtype is silent then: it takes the tensors a program computes elsewhere."""
    if conversion.kind == "input":
        return False
    if conversion.kind == "attribute":
        return UNKNOWN_ATOM in given
    return not shown or UNKNOWN_ATOM in given


def _shortest_reads(conversions: Iterable[Conversion]) -> dict[tuple[str, Span], int]:
    """Per parameter and place, the fewest reads out of the parameter a conversion there
    takes."""
    shortest: dict[tuple[str, Span], int] = {}
    for conversion in conversions:
        place = (conversion.parameter, conversion.span)
        shortest[place] = min(shortest.get(place, len(conversion.path)), len(conversion.path))
    return shortest


def _where(conversion: Conversion) -> str:
    return f" (in `{conversion.helper}`)" if conversion.helper else ""


def _takes(conversion: Conversion) -> str:
    """What the API does with the value, in words."""
    api = f"`{conversion.api}`{_where(conversion)}"
    if conversion.kind == "input":
        return (
            f"{api} passes {_described(conversion)} to an op input of the one dtype "
            f"{conversion.dtype}"
        )
    if conversion.kind == "attribute":
        return f"{api} passes {_described(conversion)} as an op attribute, a Python value"
    return f"{api} converts {_described(conversion)} to {conversion.dtype}"


def _would_fail(conversion: Conversion) -> str:
    if conversion.kind == "attribute":
        return "a NumPy scalar (a spec's bounds are NumPy values) would fail"
    return "a NumPy value of another dtype (NumPy's defaults are float64 and int64) would fail"


def _refused(conversion: Conversion) -> str:
    if conversion.kind == "input":
        return (
            "eagerly the op converts the value to its dtype, but a traced function receives "
            "it as a tensor of its own dtype, which the op refuses (TypeError while tracing)"
        )
    if conversion.kind == "attribute":
        return (
            "eagerly a NumPy scalar passes for a Python value, but a traced function "
            "receives it as a tensor, which the op refuses (TypeError while tracing)"
        )
    return (
        "eagerly the value is converted, but a traced function receives it as a tensor of "
        f"its own dtype, which `{conversion.api}` refuses (ValueError while tracing)"
    )


def _described(conversion: Conversion) -> str:
    """The converted value in words: the parameter, or what is read out of it."""
    if not conversion.path:
        return f"`{conversion.parameter}`"
    return f"the elements of `{conversion.parameter}` (read out of it)"


def _read_out(atoms: Iterable[Atom], path: tuple[str, ...]) -> set[Atom]:
    """The atoms of what `path` reads out of a value of `atoms`: a list's or tuple's
    elements, a dict's values (not its keys: iterating a dict gives them), a NumPy array's
    rows or items (NumPy values of its dtype), a tensor's (tensors), a Python value's (Python
    values); a value of unknown type out of anything else (an object's items, a dict's
    values iterated as keys are none of its values: nothing)."""
    current = set(atoms)
    for step in path:
        following: set[Atom] = set()
        for atom in current:
            kind = atom_kind(atom)
            if kind in ("numpy", "?", "tensor", "variable", "lit", "python"):
                following.add(atom)
            elif kind == "dataset":
                following.add(TENSOR)
            elif kind == "seq" and step != "values":
                following.update(atom[2])
            elif kind == "tup" and step != "values":
                for part in atom[1]:
                    following.update(part)
            elif kind == "dict":
                if step in (SUBSCRIPT, "values"):
                    following.update(atom[1])
            else:
                following.add(UNKNOWN_ATOM)
        current = following
    return current


def parameter_conversions(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    depth: int = 0,
) -> list[Conversion]:
    """The parameters of `key` that reach a dtype-asserting conversion as they are: in its
    body, or passed to a project function whose parameter does (to MAX_HELPER_DEPTH).
    Memoised per solution, a helper's by its depth too (each caller of a helper asked its
    conversions again, and each of its helpers': most of HY414's time on keras/src)."""
    if depth:
        helpers = cast(
            "dict[tuple[FunctionKey, int, str], list[Conversion]]",
            facts.cache.setdefault("numpy_boundary_helpers", {}),
        )
        entry = (key, depth, framework.name)
        known = helpers.get(entry)
        if known is None:
            known = helpers[entry] = _parameter_conversions(index, facts, key, framework, depth)
        return known
    cache = cast(
        "dict[FunctionKey, list[Conversion]]", facts.cache.setdefault("numpy_boundary", {})
    )
    known = cache.get(key)
    if known is None:
        known = cache[key] = _parameter_conversions(index, facts, key, framework, depth)
    return known


def _parameter_conversions(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework, depth: int
) -> list[Conversion]:
    """`parameter_conversions`, not memoised."""
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
            value = site.argument(asserting.position, asserting.keyword)
            requested = _requested_dtype(resolved.args, resolved.kwargs, asserting, framework)
            if value is None or requested is None:
                continue
            for name, path in sorted(_parameters_behind(fn, value, receiver, site)):
                found.append(
                    Conversion(name, requested, written_name(info.name), site.span, None, path)
                )
        for info in resolved.api:
            for refusing in framework.numpy_refusing_arguments.get(info.name, ()):
                value = site.argument(refusing.position, refusing.keyword)
                if value is None:
                    continue
                kind = "attribute" if refusing.dtype is None else "input"
                for name, path in sorted(_parameters_behind(fn, value, receiver, site)):
                    found.append(
                        Conversion(
                            name,
                            refusing.dtype or ATTRIBUTE,
                            written_name(info.name),
                            site.span,
                            None,
                            path,
                            kind,
                        )
                    )
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
                    for name, path in sorted(
                        _parameters_behind(fn, argument, receiver, resolved.site, converted.path)
                    ):
                        found.append(
                            Conversion(
                                name,
                                converted.dtype,
                                converted.api,
                                site.span,
                                converted.helper or callee.qualname,
                                path,
                                converted.kind,
                            )
                        )
    return found


def _requested_dtype(
    args: Sequence[frozenset[Atom]],
    kwargs: Mapping[str, frozenset[Atom]],
    conversion: DtypeAssertingConversion,
    framework: Framework,
) -> str | None:
    """The dtype a conversion asks for, when the call names exactly one (`tf.float32`,
    `"float32"`, `np.float32`), on every path or on some where the others pass None (`tf.int32
    if k in INDEX_FIELDS else None`: None converts to the value's own dtype)."""
    atoms = kwargs.get(conversion.dtype_keyword)
    if atoms is None and conversion.dtype_position < len(args):
        atoms = args[conversion.dtype_position]
    if atoms:
        atoms = frozenset(atom for atom in atoms if atom != NONE_ATOM)
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


MAX_READS = 3
"""Reads out of a parameter followed to a converted value (a list of dicts of lists)."""

SUBSCRIPT = "subscript"
"""A read of `Conversion.path`: an element of a list or tuple, a value of a dict."""
ITERATED = "iterated"
"""A read of `Conversion.path`: an element of a list or tuple; a dict's key (no value)."""
SECOND = "subscript:1"
"""A subscript `[1]`: of a `(key, value)` pair of `.items()`, the value."""


def _parameters_behind(
    fn: FunctionSummary,
    sym: Sym,
    receiver: str | None,
    site: CallSite,
    read: tuple[str, ...] = (),
) -> set[tuple[str, tuple[str, ...]]]:
    """The parameters (not the receiver) a value `site` passes may be, or the value `read`
    reads out of it (a helper's `Conversion.path`), as given or read out of the parameter
    (`Conversion.path`, `read` at its end): through locals (a comprehension's target too), whatever their
    other values, conditional expressions, subscripts (a slice is the container again),
    iteration, and a dict's `.values()` and `.items()` iterated; an operation's or another
    call's result is a new value. A local rebound before the call is the values reaching it
    (`CallSite.reaching`: `x = tf.cast(x, tf.int32); f(x)` passes no parameter)."""
    found: set[tuple[str, tuple[str, ...]]] = set()
    seen: set[tuple[Sym, tuple[str, ...]]] = set()
    # From the converted value back to the parameters: each read met on the way is put in
    # front of the reads already met (the path runs from the parameter to the value).
    reaching = dict(site.reaching).get(sym[1]) if is_local(sym) else None
    stack: list[tuple[Sym, tuple[str, ...]]] = (
        [(sym, read)]
        if reaching is None
        else [(fn.locals[sym_name(sym)][i], read) for i in reaching]
    )
    while stack:
        current, path = stack.pop()
        if (current, path) in seen or len(path) > MAX_READS:
            continue
        seen.add((current, path))
        if is_param(current):
            if sym_name(current) != receiver:
                found.add((sym_name(current), tuple(SUBSCRIPT if s == SECOND else s for s in path)))
            continue
        values = local_values(fn, current)
        if values:
            stack.extend((value, path) for value in values)
        elif (
            is_seq(current)
            and seq_kind(current) in ("list", "tuple")
            and path[:1]
            in (
                (ITERATED,),
                (SUBSCRIPT,),
                (SECOND,),
            )
        ):
            # An element of a list or tuple built here (`[dict(d) for d in ds]`): a read of
            # it is one of the elements.
            stack.extend((element, path[1:]) for element in made_of(current))
        elif is_call(current) and _copied(fn, current) is not None:
            # `dict(d)`, `list(xs)`, `tuple(xs)`: a copy holds the same values.
            stack.append((cast("Sym", _copied(fn, current)), path))
        elif is_cond(current):
            stack.extend((part, path) for part in made_of(current))
        elif is_item(current):
            index = item_index(current)
            if is_slice(index):
                stack.append((item_base(current), path))
            else:
                second = is_lit(index) and lit_type(index) == "int" and lit_value(index) == 1
                stack.append((item_base(current), (SECOND if second else SUBSCRIPT, *path)))
        elif is_iter(current):
            view = _dict_view(fn, made_of(current)[0])
            if view is None:
                stack.append((made_of(current)[0], (ITERATED, *path)))
            elif view[1] == "values":
                stack.append((view[0], ("values", *path)))
            elif path[:1] == (SECOND,):
                # `for k, v in d.items()`: `v` is the pair's `[1]`, a value of `d`; the key
                # (`[0]`) and the pair itself are no value of it.
                stack.append((view[0], ("values", *path[1:])))
    return found


COPYING_BUILTINS = frozenset({"dict", "list", "tuple"})
"""Builtins whose call on one container is a shallow copy: the same elements or values."""


def _copied(fn: FunctionSummary, sym: Sym) -> Sym | None:
    """The container a builtin copies (`dict(d)`, `list(xs)`), where `sym` is such a call
    of one positional argument."""
    if not is_call(sym) or call_index(sym) >= len(fn.calls):
        return None
    site = fn.calls[call_index(sym)]
    callee = site.callee
    if (
        len(site.args) != 1
        or site.kwargs
        or site.has_star_args
        or not is_name(callee)
        or sym_name(callee) not in COPYING_BUILTINS
        or sym_name(callee) in fn.locals
    ):
        return None
    return site.args[0]


def _dict_view(fn: FunctionSummary, sym: Sym) -> tuple[Sym, str] | None:
    """The dict and the method, where `sym` is the result of calling its `.values()` or
    `.items()` (through a local holding only that)."""
    if is_local(sym):
        values = fn.locals.get(sym_name(sym), ())
        if len(values) != 1:
            return None
        sym = values[0]
    if not is_call(sym) or call_index(sym) >= len(fn.calls):
        return None
    site = fn.calls[call_index(sym)]
    callee = site.callee
    if (
        site.args
        or site.kwargs
        or not is_attr(callee)
        or attr_name(callee) not in ("values", "items")
    ):
        return None
    return attr_base(callee), attr_name(callee)
