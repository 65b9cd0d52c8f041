"""HY442 has_arguments_replaced_by_tracing: `tf.function` hands the traced body another object
than the one passed (what the object's `__wrapped__` answers, a plain list or tuple for a
subclass, a mapping or named tuple rebuilt by its class)."""

from __future__ import annotations

import functools

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.composite_specs import own_members, unbuildable_composite
from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.hashability import (
    DOTTED_NAME,
    implements_tracing_protocol,
    is_project_class,
    mapping_rebuilt_wrong,
    namedtuple_argument_rebuilt_wrong,
    receiver_class,
)
from hybridize.analyzer.facts.passed_arguments import passed_arguments
from hybridize.analyzer.facts.predicates import leaf_atoms, made_of, walk_syms
from hybridize.analyzer.facts.refs import ext_dotted, is_class_ref, is_ext_ref, ref_key
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.values import Atom, first_in_canonical_order, is_obj_atom, obj_class
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym, function_syms
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    call_index,
    is_attr,
    is_call,
    is_item,
    is_name,
    item_base,
    item_sym,
    local_sym,
    param_sym,
    sym_name,
)
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


def _outside_bases(index: ProjectIndex, class_key: ClassKey) -> set[str]:
    """The bases outside the project of the class and its project bases, dotted."""
    return {ext_dotted(ref) for ref in index.external_bases(class_key) if is_ext_ref(ref)}


def _name_parameter(fn: FunctionSummary) -> str | None:
    """The parameter of `__getattr__(self, name)` that holds the name looked up."""
    params = [p.name for p in fn.params]
    return params[1] if len(params) >= 2 else None


def _is_delegation(fn: FunctionSummary, sym: Sym, name: str) -> bool:
    """`getattr(other, name)` (two arguments) or `super().__getattr__(name)`: the answer is
    the delegate's, which raises AttributeError for a name it does not have."""
    if not is_call(sym):
        return False
    site = fn.calls[call_index(sym)]
    if is_name(site.callee) and sym_name(site.callee) == "getattr":
        return len(site.args) == 2 and not site.kwargs and site.args[1] == local_sym(name)
    return is_attr(site.callee) and attr_name(site.callee) == "__getattr__"


def _getattr_answers(fn: FunctionSummary) -> str | None:
    """Words for a `__getattr__` that answers every name, `__wrapped__` too, or raises
    another error than AttributeError for it: one that tests nothing (no `if`, no `in`, no
    `startswith`), never makes an AttributeError, and returns a value other than a
    delegate's (`return self._values.get(name)`) or reads an item by the name
    (`return self[name]`, a KeyError). None for the others: a `__getattr__` that chooses by
    the name, converts a KeyError, or only delegates answers `__wrapped__` as Python does."""
    name = _name_parameter(fn)
    if name is None or fn.conditions:
        return None
    if any(is_name(site.callee) and sym_name(site.callee) == "AttributeError" for site in fn.calls):
        return None
    looked_up = local_sym(name)
    syms = walk_syms((*function_syms(fn), *fn.returns), made_of)
    if any(is_item(sym) and sym == item_sym(made_of(sym)[0], looked_up) for sym in syms):
        return "reads an item by any name (`self[name]`): a KeyError, not an AttributeError"
    if any(not _is_delegation(fn, value, name) for value in fn.returns):
        return "returns a value for any name"
    return None


ANSWERING_LOOKUPS = {
    "__getitem__": "reads an item by any name (a KeyError, not an AttributeError)",
    "get": "returns a value for any name",
}
"""Mapping methods a class body binds as its `__getattr__` (`__getattr__ = dict.get`,
`__getattr__ = dict.__getitem__`, the attribute-access dict idiom), and what each does for
`__wrapped__`."""


def _assigned_getattr(values: list[Sym]) -> str | None:
    """Words for a `__getattr__` the class body binds to a mapping's lookup, else None."""
    for value in values:
        if is_attr(value) and attr_name(value) in ANSWERING_LOOKUPS:
            base = attr_base(value)
            shown = f"{sym_name(base)}.{attr_name(value)}" if is_name(base) else attr_name(value)
            return f"`{shown}`: it {ANSWERING_LOOKUPS[attr_name(value)]}"
    return None


def _wrapped_by(index: ProjectIndex, class_key: ClassKey) -> str | None:
    """Words for a project class whose instances answer `__wrapped__`: it stores one, or a
    `__getattr__` of it or a project base answers every name."""
    for key in index.mro(class_key):
        cls = index.klass(key)
        module = index.modules[key.file]
        body = module.functions.get(f"{cls.qualname}.<body>")
        if body is not None and "__wrapped__" in body.locals:
            return f"`{cls.qualname}` sets `__wrapped__`"
        assigned = _assigned_getattr(body.locals.get("__getattr__", []) if body else [])
        if assigned is not None:
            return f"`{cls.qualname}.__getattr__` is {assigned}"
        for method in cls.methods:
            fn = module.functions.get(f"{cls.qualname}.{method}")
            if fn is not None and any(
                store.kind == "attr" and store.name == "__wrapped__" for store in fn.stores
            ):
                return f"`{cls.qualname}.{method}` sets `__wrapped__`"
        if "__getattr__" in cls.methods:
            fn = module.functions.get(f"{cls.qualname}.__getattr__")
            answers = None if fn is None else _getattr_answers(fn)
            if answers is not None:
                return f"`{cls.qualname}.__getattr__` {answers}"
            return None  # its own `__getattr__` decides: a base's is not reached
    return None


def _replaced(index: ProjectIndex, class_key: ClassKey, framework: Framework) -> str | None:
    """Words for what `tf.function` hands the body for an instance of a project class the
    tracing protocol does not type: its `__wrapped__`, or a rebuilt container; or why it
    cannot type a composite tensor's."""
    if implements_tracing_protocol(index, class_key):
        return None
    unbuildable = unbuildable_composite(index, class_key, framework)
    if unbuildable is not None:
        return unbuildable
    wrapped = _wrapped_by(index, class_key)
    if wrapped is not None:
        return (
            f"{wrapped}: `tf.function` types an object by its `__wrapped__` and hands the "
            "body that instead (None, another object; a KeyError or a RecursionError fails "
            "the call)"
        )
    return None


def _rebuilt_as(index: ProjectIndex, class_key: ClassKey, framework: Framework) -> str | None:
    """The plain container a list or tuple subclass is handed to the body as, or "mapping"
    for a mapping class `tf.function` cannot rebuild as it was (`mapping_rebuilt_wrong`)."""
    outside = _outside_bases(index, class_key)
    for dotted, plain in framework.traced_as_plain_sequences.items():
        if dotted in outside:
            return plain
    if mapping_rebuilt_wrong(index, class_key, framework) is not None:
        return "mapping"
    if namedtuple_argument_rebuilt_wrong(index, class_key) is not None:
        return "namedtuple"
    return None


def _member_reads(fn: FunctionSummary, value: Sym, members: set[str]) -> list[str]:
    """The members of `members` the function reads on `value` (`value.total`, called too)."""
    roots = (*function_syms(fn), *(site.callee for site in fn.calls))
    return sorted(
        {
            attr_name(sym)
            for sym in walk_syms(roots, made_of)
            if is_attr(sym) and attr_base(sym) == value and attr_name(sym) in members
        }
    )


def _container_words(
    index: ProjectIndex, fn: FunctionSummary, class_key: ClassKey, value: Sym, framework: Framework
) -> str | None:
    """Words for a list/tuple subclass whose members the function reads on `value`, or a
    mapping class whose `__init__` cannot take the pairs `tf.function` rebuilds it from."""
    rebuilt = _rebuilt_as(index, class_key, framework)
    if rebuilt is None:
        return None
    if rebuilt == "mapping":
        return (
            f"`{class_key.qualname}` is a mapping `tf.function` rebuilds as `type(x)(pairs)` "
            f"for the body, not as it was: {mapping_rebuilt_wrong(index, class_key, framework)}"
        )
    if rebuilt == "namedtuple":
        return (
            f"`{class_key.qualname}` is a named tuple `tf.function` rebuilds as "
            f"`type(x)(*fields)` for the body, not as it was: "
            f"{namedtuple_argument_rebuilt_wrong(index, class_key)}"
        )
    read = _member_reads(fn, value, own_members(index, class_key) - _PLAIN_MEMBERS[rebuilt])
    if not read:
        return None
    shown = ", ".join(f"`{name}`" for name in read)
    return (
        f"`{class_key.qualname}` subclasses `{rebuilt}` and the function reads {shown} on it: "
        f"`tf.function` hands the body a plain `{rebuilt}` of the elements, which has none"
    )


_PLAIN_MEMBERS: dict[str, set[str]] = {
    "list": set(dir(list)),
    "tuple": set(dir(tuple)),
}
"""What a plain list or tuple answers: members a subclass redefines are still there."""


def _object_words(
    index: ProjectIndex, fn: FunctionSummary, class_key: ClassKey, value: Sym, framework: Framework
) -> str | None:
    """Words for an instance of a project class the body would not receive as passed."""
    if not is_project_class(index, class_key):
        return None
    return _replaced(index, class_key, framework) or _container_words(
        index, fn, class_key, value, framework
    )


def replaced_arguments(context: CheckContext) -> list[Evidence]:
    """The receiver and the parameters whose object `tf.function` would replace."""
    index, key, fn, framework = context.index, context.key, context.function, context.framework
    found: list[Evidence] = []
    receiver = receiver_class(index, key)
    containers = {*framework.traced_as_plain_sequences, *framework.traced_rebuilt_mappings}
    if (
        receiver is not None
        and is_project_class(index, receiver)
        and not _outside_bases(index, receiver) & containers
    ):
        # only what `__wrapped__` answers: a list or dict subclass as the receiver is
        # unhashable before it is typed (measured: TypeError), not this check's
        what = _replaced(index, receiver, framework)
        if what is not None:
            found.append(Evidence(f"the receiver: {what}", fn.span))
    evaluator = get_evaluator(index, context.facts, key)
    for param in fn.explicit_params:
        value = local_sym(param.name)
        # Only an object may be replaced: the other leaves (most: tensors, literals) are left
        # out without a call.
        objects = [a for a in leaf_atoms(evaluator.eval(param_sym(param.name))) if is_obj_atom(a)]
        what = (
            first_in_canonical_order(
                objects,
                functools.partial(_atom_words, index, fn, value=value, framework=framework),
            )
            if objects
            else None
        ) or _annotated(index, key, fn, param.annotation, value, framework)
        if what is not None:
            found.append(Evidence(f"`{param.name}` may receive an object of which {what}", fn.span))
    found.extend(_default_dict_arguments(context))
    return found


def _subscripted_bases(fn: FunctionSummary) -> set[Sym]:
    """The values whose items the function reads (`d[key]`, `d[key] += 1`), found in one walk
    for all its parameters: a parameter's missing key then raises where a `defaultdict` makes
    the default."""
    # `function_syms` gives every value nested in another (what `made_of` would walk down to)
    # and the returned values: no walk is needed on top of it.
    return {item_base(sym) for sym in function_syms(fn) if is_item(sym)}


DEFAULTDICT_MAKERS = "hy442_defaultdict_makers"
"""The `per_function` scan of `_defaultdict_makers`."""


def _defaultdict_makers(facts: TensorFacts, framework: Framework) -> dict[FunctionKey, bool]:
    """The functions with a call of `collections.defaultdict` (the framework's
    `traced_as_plain_dicts`): the only callers whose arguments `passed_arguments` may find
    made by one (kept per function across updates: `per_function`, one scan per framework)."""
    plain = framework.traced_as_plain_dicts
    return per_function(
        facts,
        f"{DEFAULTDICT_MAKERS}:{framework.name}",
        lambda key, calls: any(info.name in plain for resolved in calls for info in resolved.api),
    )


def _default_dict_arguments(context: CheckContext) -> list[Evidence]:
    """Parameters a caller passes a `defaultdict` (made at the call or in a local assigned
    once) that the function subscripts: the body receives a plain `dict`."""
    fn = context.function
    if not fn.explicit_params:
        return []
    # An argument is made by a `defaultdict` call of its caller (`PassedArgument.made_by`):
    # where no caller makes one (nearly every function), no walk of the body is needed.
    plain = context.framework.traced_as_plain_dicts
    if not plain:
        return []
    makers = _defaultdict_makers(context.facts, context.framework)
    if not any(caller in makers for caller in context.facts.callers.get(context.key, ())):
        return []
    bases = _subscripted_bases(fn)
    subscripted = [
        p.name
        for p in fn.explicit_params
        if param_sym(p.name) in bases or local_sym(p.name) in bases
    ]
    if not subscripted:
        return []
    passed = passed_arguments(context.index, context.facts, context.key)
    found: list[Evidence] = []
    for name in subscripted:
        made = next((p for p in passed.get(name, ()) if p.made_by & plain), None)
        if made is not None:
            found.append(
                Evidence(
                    f"`{name}` may receive a `collections.defaultdict` (from "
                    f"`{context.index.function(made.caller).qualname}`) and the function reads "
                    "its items: `tf.function` hands the body a plain `dict` of the same pairs, "
                    "where a missing key raises KeyError instead of making the default",
                    fn.span,
                )
            )
    return found


def _atom_words(
    index: ProjectIndex, fn: FunctionSummary, atom: Atom, *, value: Sym, framework: Framework
) -> str | None:
    """Words for an object atom of a project class the body would not receive as passed."""
    class_key = obj_class(atom) if is_obj_atom(atom) else None
    return None if class_key is None else _object_words(index, fn, class_key, value, framework)


def _annotated(
    index: ProjectIndex,
    key: FunctionKey,
    fn: FunctionSummary,
    annotation: str | None,
    value: Sym,
    framework: Framework,
) -> str | None:
    """Words for a project class the annotation names whose instances would be replaced."""
    for name in sorted(set(DOTTED_NAME.findall(annotation or ""))):
        ref = index.resolve_dotted(key.file, name)
        if is_class_ref(ref):
            found = _object_words(index, fn, ref_key(ref), value, framework)
            if found is not None:
                return f"(by its annotation) {found}"
    return None


class ArgumentsReplacedByTracing(Check):
    """`tf.function` would hand the body another object than the receiver or an argument passed.

    What it detects
    ---------------
    A function not compiled yet whose receiver (`self`) or a parameter may receive (from the
    project's calls or its annotation, alone or inside a list, tuple or dict) an instance of
    a project class that the tracing protocol (`__tf_tracing_type__`) does not type, and:

    * whose instances answer `__wrapped__`: the class or a project base stores
      `__wrapped__`, or defines a `__getattr__` that answers every name (returns a value
      without testing the name and without only delegating to `getattr(other, name)` or
      `super().__getattr__(name)`) or reads an item by it (`self[name]`, a KeyError), or
      whose body binds `__getattr__` to a mapping's lookup (`__getattr__ = dict.get`,
      `__getattr__ = dict.__getitem__`: the attribute-access dict idiom);
    * or that subclasses `list` or `tuple` (not a named tuple) when the function reads on
      it a member the class defines (a method, a class attribute);
    * or that is a mapping (`dict`, `Mapping`, `OrderedDict`) `tf.function` cannot rebuild
      as it was: the first `__init__` the class or a project base defines requires an
      argument, takes no positional one, does not hand its positional argument (or
      `*args`) to the base's `__init__`, or sets an item or attribute of `self` from its
      parameters (HY407 owns the same classes returned);
    * or that is a named tuple (`collections.namedtuple`, `typing.NamedTuple`, or a subclass)
      `tf.function` cannot rebuild as it was: the first `__new__` the class or a project
      base defines does not hand its fields to the base's `__new__` unchanged and in order,
      or it or the first `__init__` requires a keyword, or that `__init__` sets an attribute
      of `self` from its parameters (HY407 owns the same classes returned), or computes
      one from the fields (`self.n = tf.shape(self.x)[0]`, `self.total = self.x + self.y`:
      an argument only; a returned one is rebuilt from the eager outputs). One whose
      `__init__(*args, **kwargs)` only validates the fields (graph_nets' `GraphsTuple`),
      keeps what a spec answers as the tensor does (`int(self.x.shape[0])`, `self.x.dtype`),
      or that only adds methods, is rebuilt equal;
    * or that subclasses a TensorFlow Probability distribution or bijector that is a
      composite tensor (the framework tables: the concrete classes of
      `tfp.distributions` and `tfp.bijectors`, not the abstract `Distribution` and
      `Bijector`), directly or through project bases (tf-agents'
      `CosinePenalizedPlackettLuce` -> `PenalizedPlackettLuce` -> `tfd.PlackettLuce`), whose
      type spec cannot be built: the first `__init__` the class or a project base defines
      takes `*args`/`**kwargs`, or keeps a parameter under none of the names TFP reads it
      back by (`self.k` or `self._k` set by a method, a member `k` or `_k` such as a
      property, a name every distribution answers such as `name`, or handed to the base's
      `__init__` as `k=k` or by position; `parameters = dict(locals())` keeps them all).
      HY407 owns the same classes returned.

    Also a parameter a caller passes a `collections.defaultdict` (made at the call, or in a
    local assigned once, followed as written) when the function reads its items (`d[key]`,
    `d[key] += 1`); not one read only with `.get` or `in`, nor an `OrderedDict`.

    Why it matters in graph mode
    ----------------------------
    `tf.function` builds a trace type for each argument (TF 2.21,
    `trace_type_builder.from_value`), and the body is traced with the placeholder values of
    those types, not with the objects passed. An object with a `__wrapped__` attribute is
    typed by what that attribute holds (checked with `hasattr`, before lists and mappings),
    and the body receives that: measured on TF 2.21, an object with
    `__wrapped__ = inner` hands the body `inner` (0.0 instead of 2.0 and 3.0, silently), a
    `__getattr__` answering `self._values.get(name)` hands it None (AttributeError), one
    reading `self[name]` fails the call with KeyError('__wrapped__'), one returning a new
    proxy for every name recurses (RecursionError); the receiver of a compiled method too. A
    list or tuple subclass is typed as a list or tuple of its elements and the body receives
    a plain `list`/`tuple` (its methods gone: AttributeError); a mapping is rebuilt by
    `type(x)(pairs)`, so a mapping class whose `__init__` takes other arguments fails the
    trace with TypeError, and one whose first positional parameter means something else
    (`EulerAngle(alpha=0, beta=0, gamma=0)` setting `self["alpha"] = alpha`) gets the pairs
    as that parameter (tf-pwa 0.2.2); one forwarding `*args, **kwargs` to `dict` is rebuilt
    right, and a `defaultdict` arrives as a plain dict: a missing key raises
    KeyError where eager makes the default. A named tuple is rebuilt as `type(x)(*fields)`,
    from the fields' `TensorSpec`s first: a `__new__` computing a field (`b + 1`) fails on
    the spec (TypeError), one making two fields of one argument or needing a keyword fails
    (TypeError), an attribute `__init__` kept of another argument comes back None, and one
    it computes from the fields fails on the specs (TypeError; `.numpy()` of the symbolic
    field, AttributeError) (tests/analyzer/test_rebuilt_namedtuples_measured.py). Eagerly the function
    gets the object itself. (tests/analyzer/test_hy442_replaced_arguments_measured.py
    measures it again.) A TensorFlow Probability distribution or bijector is an
    auto-composite tensor: `tf.function` flattens it, the receiver of a compiled method too,
    by its type spec, which TFP builds from the parameters of `type(obj).__init__`, each read
    back as `obj.k`, `obj._k` or `obj.parameters[k]`. tf-agents'
    `PenalizedPlackettLuce.__init__(features, num_slots, logits)` hands `logits` on as
    `scores` and keeps it under no such name, so its compiled `_penalizer_fn` fails:
    "ValueError: Could not determine an appropriate value for field `logits`" (an `__init__`
    with `**kwargs`: "*args and **kwargs are not supported"), whatever the parameters hold
    (tensors, Python numbers, variables); eagerly no spec is built. Measured on TF 2.21 with
    TFP 0.25: a subclass keeping every parameter (`self._logits`, a property,
    `parameters = dict(locals())`, `scores=scores` to the base), a direct `tfd.Distribution`
    or `tfb.Bijector` subclass, a `tf.Module`, a Keras layer, an `ExtensionType` and a plain
    object holding a distribution work (tests/analyzer/test_hy442_composite_specs_measured.py).

    Example
    -------
        class Config:
            def __init__(self, **values):
                self.__dict__["_values"] = values

            def __getattr__(self, name):
                return self._values.get(name)

        def scale(x, config):
            return tf.reduce_sum(x * config.factor)

        scale(tf.ones((4,)), Config(factor=2.0))

    Instead
    -------
    Pass the values the function reads (`scale(x, config.factor)`), make `__getattr__`
    raise AttributeError for names it does not hold (dunder names at least), pass a plain
    list and call the subclass's methods outside, keep every `__init__` parameter of a
    distribution subclass (`self._logits = logits`, or TFP's `parameters = dict(locals())`
    stored as `self._parameters`), or compile the tensor code below the function that
    takes the object.

    Not for torch.compile
    ---------------------
    Dynamo traces the object passed, guarding on what it reads: measured on torch 2.13, the
    `__getattr__` and `__wrapped__` objects, a list subclass's method and a dict subclass's
    attribute all give the eager results.
    """

    code = "HY442"
    name = "has_arguments_replaced_by_tracing"
    severity = "error"
    frameworks = TENSORFLOW_ONLY
    summary = (
        "the receiver or an argument would reach the traced body as another object: what its "
        "`__wrapped__` answers (a catch-all `__getattr__`), a plain list/tuple for a subclass, "
        "a mapping rebuilt by its class; or a TFP distribution whose type spec cannot be built."
    )
    unblock = (
        "pass the values it reads, let `__getattr__` raise AttributeError, keep `__init__` "
        "parameters readable, or compile below"
    )
    fact = "has_arguments_replaced_by_tracing"
    fact_meaning = (
        "the receiver or an argument would reach the traced body as another object (its "
        "`__wrapped__`, a plain list or tuple, a rebuilt mapping), or fail to (a TFP "
        "distribution whose type spec its `__init__` parameters cannot rebuild)"
    )
    decision_order = 155
    EXAMPLE_FUNCTION = "scale"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(replaced_arguments(context))
