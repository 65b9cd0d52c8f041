"""HY438 has_arguments_compared_by_equality: `tf.function` looks its receiver or an object
argument up by the class's own `__eq__`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal, cast

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.hashability import (
    DOTTED_NAME,
    hash_status,
    implements_tracing_protocol,
    is_project_class,
    receiver_class,
)
from hybridize.analyzer.facts.predicates import leaf_atoms, made_of, walk_syms
from hybridize.analyzer.facts.refs import ext_dotted, is_class_ref, is_ext_ref, ref_key
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import (
    Atom,
    AtomKind,
    atom_kind,
    first_in_canonical_order,
    is_obj_atom,
    obj_class,
)
from hybridize.analyzer.frameworks.record_classes import RECORD_DECORATORS
from hybridize.analyzer.summaries.ir import FunctionSummary, function_syms
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    call_index,
    is_attr,
    is_call,
    is_lit,
    is_name,
    is_op,
    lit_type,
    lit_value,
    op_operands,
    op_operator,
    param_sym,
    sym_name,
)
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check

IDENTITY_CALLS = frozenset({"id", "isinstance", "issubclass", "type", "getattr", "hasattr"})
"""Calls an `__eq__` that only tests identity may make: they compare nothing by value and
never raise on a tensor."""

READING_METHODS = frozenset({"items", "keys", "values", "get", "suppress"})
"""Methods an `__eq__` answering by identity may call on what it reads: a mapping's reads
(`self._repr.items()`, `other._repr.get(key)`) and `contextlib.suppress`, none of which runs
a tensor operation."""

TENSOR_KINDS = frozenset({"tensor", "variable", "numpy", "symbolic"})
"""Values whose `==` gives an array or a tensor: in graph mode `not (t == t)` raises
(`OperatorNotAllowedInGraphError`, measured), a NumPy array of several elements raises too."""


def _returns_identity(fn: FunctionSummary, of_id: Callable[[object], bool]) -> bool:
    """Whether every return of `fn` is `False`, `NotImplemented`, an `is`/`in` test (a bool
    literal of no value in the summaries) or a comparison of `id(...)` results: `True` for no
    object but itself (a literal `return True` may answer so for another object)."""
    return all(
        (is_lit(value) and lit_type(value) == "bool" and lit_value(value) is not True)
        or (is_name(value) and sym_name(value) == "NotImplemented")
        or (is_op(value) and all(of_id(operand) for operand in op_operands(value)))
        for value in fn.returns
    )


def _is_identity_test(
    index: ProjectIndex, facts: TensorFacts | None, key: FunctionKey, fn: FunctionSummary
) -> bool:
    """An `__eq__` that answers by identity and cannot raise: what `object.__eq__` does.

    Either it compares identities only (`return self is other`, `id(self) == id(other)`,
    `self.wrapped is getattr(other, "wrapped", None)`, guarded by `isinstance`): it calls
    nothing but `IDENTITY_CALLS`, compares by value nothing but `id(...)` results, and returns
    literals (an `is` test is a bool literal in the summaries) or `NotImplemented`.

    Or it compares values first and still answers `True` for no object but itself (zfit's
    `BaseObject.__eq__`: each entry of a class's `_repr` mapping, then `return self is
    other`): every return is `False`, `NotImplemented` or an identity test, it calls only
    `IDENTITY_CALLS` and `READING_METHODS`, no operand it compares may be a tensor or an array
    (`TENSOR_KINDS`), and it reads no `__dict__` (which compares every attribute the instance
    holds, tensors included). Measured on TF 2.21: `tf.function` calls it with the instance
    itself at each call of a compiled method and with the other live arguments when a new one
    is looked up; it never makes two instances share a trace, and such an `__eq__` neither
    raises in graph mode nor costs a measurable time."""
    names = []
    for site in fn.calls:
        if is_name(site.callee):
            names.append(sym_name(site.callee))
        elif is_attr(site.callee) and attr_name(site.callee) in READING_METHODS:
            names.append(attr_name(site.callee))
        else:
            return False
    if any(name not in IDENTITY_CALLS and name not in READING_METHODS for name in names):
        return False
    methods_only = all(name in IDENTITY_CALLS for name in names)

    def of_id(sym: object) -> bool:
        return isinstance(sym, tuple) and is_call(sym) and names[call_index(sym)] == "id"

    syms = list(walk_syms((*function_syms(fn), *fn.conditions), made_of))
    compared = [sym for sym in syms if is_op(sym) and op_operator(sym) == "compare"]
    by_value = [sym for sym in compared if not all(of_id(operand) for operand in op_operands(sym))]
    if not by_value and methods_only:
        return _returns_identity(fn, of_id)
    if facts is None or not _returns_identity(fn, of_id):
        return False
    if any(is_attr(sym) and attr_name(sym) == "__dict__" for sym in syms):
        return False
    evaluator = get_evaluator(index, facts, key)
    # what is compared: the operands, and the mappings whose entries it reads (an entry
    # iterated out of `.items()` is followed to the mapping, whose values are opened)
    read = [attr_base(site.callee) for site in fn.calls if is_attr(site.callee)]
    operands = [operand for sym in by_value for operand in op_operands(sym)]
    return not any(
        atom_kind(atom) in TENSOR_KINDS
        for sym in (*operands, *read)
        for atom in leaf_atoms(evaluator.eval(sym))
    )


EqualityKind = Literal["hand", "identity", "unknown", "object"]


def _own_equality(
    index: ProjectIndex, class_key: ClassKey, facts: TensorFacts | None = None
) -> EqualityKind | None:
    """What the class's own body makes of `__eq__`: "hand" for an `__eq__` written by hand
    that is not an identity test (`_is_identity_test`; without `facts`, one that compares no
    value) or assigned, "identity" for an identity test or a record decorator's generated
    field comparison, None when the body leaves it as inherited."""
    cls = index.klass(class_key)
    module = index.modules[class_key.file]
    if "__eq__" in cls.methods:
        qualname = f"{cls.qualname}.__eq__"
        method = module.functions.get(qualname)
        identity = method is not None and _is_identity_test(
            index, facts, FunctionKey(class_key.file, qualname), method
        )
        return "identity" if identity else "hand"
    body = module.functions.get(f"{cls.qualname}.<body>")
    if body is not None and "__eq__" in body.locals:
        return "hand"
    for decorator in cls.decorators:
        ref = index.resolve_dotted(class_key.file, decorator.name)
        if is_ext_ref(ref) and ext_dotted(ref) in RECORD_DECORATORS:
            # The generated `__eq__` compares the fields: equal instances hold equal fields
            # (when hashable at all: frozen or `unsafe_hash`; else HY409).
            eq = dict(decorator.kwargs).get("eq")
            if eq is None or not (is_lit(eq) and lit_value(eq) is False):
                return "identity"
    return None


def equality_of(
    index: ProjectIndex,
    class_key: ClassKey,
    seen: frozenset[ClassKey] = frozenset(),
    facts: TensorFacts | None = None,
) -> tuple[EqualityKind, ClassKey]:
    """How instances of a project class compare, and the class (itself or a base, in
    method-resolution order) that decides it: "object" when no class up to `object` defines
    `__eq__`, "unknown" when a base outside the project (other than `object`) is reached
    first."""
    own = _own_equality(index, class_key, facts)
    if own is not None:
        return own, class_key
    for ref in index.base_refs(class_key):
        if is_class_ref(ref) and ref_key(ref) not in seen:
            kind, owner = equality_of(index, ref_key(ref), seen | {class_key}, facts)
            if kind != "object":
                return kind, owner
        elif not (is_ext_ref(ref) and ext_dotted(ref) == "builtins.object"):
            return "unknown", class_key
    return "object", class_key


def _compared_class(
    index: ProjectIndex, facts: TensorFacts | None, class_key: ClassKey
) -> str | None:
    """Words for a hashable project class whose instances `tf.function` looks up with a
    hand-written `__eq__`; None otherwise (an unhashable one fails the call: HY409). With
    `facts` (the receiver), an `__eq__` answering by identity after harmless comparisons is
    not one (`_is_identity_test`); without (an argument), only a pure identity test."""
    kind, owner = equality_of(index, class_key, facts=facts)
    hashes, _ = hash_status(index, class_key)
    if kind != "hand" or hashes == "unhashable":
        return None
    if owner == class_key:
        return f"`{class_key.qualname}` defines `__eq__`"
    return f"`{class_key.qualname}` compares with `{owner.qualname}.__eq__`"


def _compared_object(index: ProjectIndex, atom: Atom) -> str | None:
    """Words for an object `tf.function` looks up by a hand-written `__eq__`, else None."""
    if not is_obj_atom(atom):
        return None
    class_key = obj_class(atom)
    if (
        class_key is None
        or not is_project_class(index, class_key)
        or implements_tracing_protocol(index, class_key)
    ):
        return None
    return _compared_class(index, None, class_key)


def compared_part(index: ProjectIndex, atoms: Iterable[Atom]) -> str | None:
    """Words for the first object the value may be or hold (inside lists, tuples and dicts,
    which `tf.function` opens) that `tf.function` looks up by a hand-written `__eq__`. Only
    objects may be one: the leaves of other kinds are left out without a call."""
    objects: list[Atom] = []
    for atom in leaf_atoms(atoms):
        kind: AtomKind = atom[0]
        if kind == "obj":
            objects.append(atom)
    if not objects:
        return None
    return first_in_canonical_order(objects, lambda atom: _compared_object(index, atom))


def _annotated(index: ProjectIndex, key: FunctionKey, annotation: str | None) -> str | None:
    """A class the annotation names whose instances are looked up by a hand-written `__eq__`."""
    for name in sorted(set(DOTTED_NAME.findall(annotation or ""))):
        ref = index.resolve_dotted(key.file, name)
        if is_class_ref(ref) and not implements_tracing_protocol(index, ref_key(ref)):
            found = _compared_class(index, None, ref_key(ref))
            if found is not None:
                return f"instances of `{name}` by its annotation ({found})"
    return None


EQUALITIES = "hy438_equalities"
"""The `facts.cache` entry of `hand_written_equalities`."""


def hand_written_equalities(
    index: ProjectIndex, facts: TensorFacts
) -> frozenset[tuple[ClassKey, bool]]:
    """The project classes whose own body writes an `__eq__` that is not an identity test,
    each with whether the body writes a `__hash__` too: what the check reads of classes
    anywhere in the project (a base in another module), memoised per solution. Most
    projects have none, and then no function is asked about."""
    found = cast("frozenset[tuple[ClassKey, bool]] | None", facts.cache.get(EQUALITIES))
    if found is None:
        classes: set[tuple[ClassKey, bool]] = set()
        for relpath, module in index.modules.items():
            for qualname, cls in module.classes.items():
                body = module.functions.get(f"{qualname}.<body>")
                assigned = body.locals if body is not None else {}
                if "__eq__" not in cls.methods and "__eq__" not in assigned:
                    continue
                key = ClassKey(relpath, qualname)
                if _own_equality(index, key) == "hand":
                    classes.add((key, "__hash__" in cls.methods or "__hash__" in assigned))
        facts.cache[EQUALITIES] = found = frozenset(classes)
    return found


def compared_arguments(context: CheckContext) -> list[Evidence]:
    """The receiver and the parameters `tf.function` would look up by a hand-written `__eq__`."""
    index, key, fn = context.index, context.key, context.function
    if not hand_written_equalities(index, context.facts):
        return []
    found: list[Evidence] = []
    receiver = receiver_class(index, key)
    if receiver is not None:
        what = _compared_class(index, context.facts, receiver)
        if what is not None:
            found.append(
                Evidence(
                    f"{what}, not an identity test: a `tf.function` method finds its "
                    "instance's compiled function by `==` at every call (inside the "
                    "caller's graph when called from one), and instances that compare "
                    "equal share one: the second runs with the first's attributes",
                    fn.span,
                )
            )
    evaluator = get_evaluator(index, context.facts, key)
    for param in fn.explicit_params:
        what = compared_part(index, evaluator.eval(param_sym(param.name))) or _annotated(
            index, key, param.annotation
        )
        if what is not None:
            found.append(
                Evidence(
                    f"`{param.name}` may receive an object whose class has a hand-written "
                    f"`__eq__` ({what}): `tf.function` compares it with the arguments of its "
                    "traces by `==` at every call, and an argument equal to an earlier one "
                    "reuses that trace, with the earlier object's attributes",
                    fn.span,
                )
            )
    return found


class ArgumentsComparedByEquality(Check):
    """The receiver or an object argument has a hand-written `__eq__`, which `tf.function` calls to find its trace.

    What it detects
    ---------------
    A function not compiled yet whose receiver (`self` of a method) or an argument may be an
    instance of a project class that defines `__eq__` by hand, in the class or a project
    base, and is hashable (a class with `__eq__` and no `__hash__` is HY409's). An `__eq__`
    that only tests identity (`return self is other`, `id(self) == id(other)`) is what
    `object` does and is left alone, as is the field comparison `@dataclass(frozen=True)`
    or attrs generate. For the receiver, so is an `__eq__` that compares values first but
    answers `True` for no object but itself (every return `False`, `NotImplemented` or an identity test: zfit
    0.28.0's `BaseObject.__eq__`, which compares each entry of `_repr`, then returns `self
    is other`), when it calls nothing but type tests and mapping reads (`items`, `get`,
    `contextlib.suppress`), no compared value or read mapping may hold a tensor, a variable
    or an array, and it reads no `__dict__` (every attribute, whatever the instance holds).
    Not for an argument: there it is compared with every live earlier argument when a new
    one is looked up, and a new object per call (zfit's `Data` made by each `pdf(x)`) is a
    new trace per call (measured: one trace each; zfit's `test_prior_pdf_normalization_
    approximate` timed out once `WrapDistribution._unnormalized_pdf(x: ZfitData)` was
    compiled with the argument narrowing too).
    Lists, tuples and dicts are opened, as `tf.function` opens them.

    Why it matters in graph mode
    ----------------------------
    `tf.function` keys its traces on every argument; a Python object is keyed by a weak
    reference, and TF 2.21's weak references compare their referents with `==`. A compiled
    method finds its instance's own compiled function in a `WeakKeyDictionary` keyed on
    `self`, also by `__hash__` and `==`. Measured on TF 2.21 (tests/analyzer/
    test_hy438_equality_measured.py): the class's `__eq__` runs at every call of a compiled
    method (the instance compared with itself), and on the calls of a compiled function
    with such an argument; called from inside another `tf.function` it runs in graph mode,
    so an `__eq__` that refuses symbolic values raises there (zfit 0.28.0's `Limit.__eq__`,
    `equal_limits(allow_graph=False)`: 8 of its `test_limit.py` tests failed with
    `IllegalInGraphModeError` once `Limit._inside` was compiled). Two instances that compare
    equal share one compiled method when their hashes agree, and one trace as arguments
    whatever their hashes: the second instance's call runs with the first's attributes
    (measured: `b.f(x)` returned `a`'s result, eagerly called too). A plain class compares
    by identity and none of this happens; the eager method never calls `__eq__`. An
    `__eq__` answering by identity after comparing Python values (zfit's `BaseObject`) is
    called with the instance itself at each call of a compiled method, answers as
    `object` does and raises nothing; comparing tensor entries, it raises `OperatorNotAllowedInGraphError` when
    called from a graph (measured, `test_an_eq_answering_by_identity_shares_nothing_and_
    raises_only_on_tensors`).

    Example
    -------
        class Limit:
            def __init__(self, lower):
                self.lower = lower

            def __hash__(self):
                return hash(self.lower)

            def __eq__(self, other):
                return bool(tf.reduce_all(self.lower == other.lower))

            def inside(self, x):
                return x > self.lower

    Instead
    -------
    Leave the method eager and compile the tensor code it calls, passing the values it
    reads as tensors (`inside(x, limit.lower)`); or compare by identity (drop `__eq__`, or
    give it an `equals` method of its own name).

    Not for torch.compile
    ---------------------
    Dynamo guards an object argument and the receiver by identity and by the attributes it
    reads, never by `==`: measured on torch 2.13, `__eq__` is not called and two equal
    instances each get their own results.
    """

    code = "HY438"
    name = "has_arguments_compared_by_equality"
    severity = "error"
    frameworks = TENSORFLOW_ONLY
    summary = (
        "the receiver or an argument is an object with a hand-written `__eq__`: tf.function "
        "calls it at every call to find the trace (in graph mode when called from a graph), "
        "and equal instances share one trace."
    )
    unblock = (
        "leave it eager and compile the tensor code it calls, or compare the class by identity"
    )
    fact = "has_arguments_compared_by_equality"
    fact_meaning = (
        "the receiver or an argument has a hand-written `__eq__`, which tf.function calls to "
        "find its trace; equal instances share one"
    )
    decision_order = 154
    EXAMPLE_FUNCTION = "Limit.inside"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(compared_arguments(context))

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """The classes with a hand-written `__eq__` (`hand_written_equalities`): an edit of
        one in another module (a base's, an argument's class) changes the verdicts of the
        methods and functions that reach it, which no call edge links to the edit."""
        return hand_written_equalities(index, facts)
