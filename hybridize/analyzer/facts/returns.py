"""What a function returns, and whether its callers still get what they use once it is compiled.

`tf.function` passes every returned value through `tf.nest` and converts each leaf (checked
with TensorFlow 2.21):

- tensors, variables (returned as a tensor of their value), composite tensors (ragged,
  sparse, `tf.data` datasets and iterators) and `None` come back as such;
- Python numbers, strings and booleans, NumPy values and a static `TensorShape` come back as
  tensors: `x.shape[0]` as an int32 tensor, `x.shape.as_list()` as a list of them;
- a `tf.TensorArray` comes back as a variant tensor (`tf.Tensor(<TensorList>, dtype=variant)`):
  the caller's `.read()` or `.stack()` fails;
- anything else raises `TypeError: To be compatible with tf.function, Python functions must
  return zero or more Tensors or ExtensionTypes or None values` while tracing: a Keras layer,
  model or optimizer, an instance of a plain project class, a function, a `tf.Operation`
  (what `tf.group`, `tf.no_op`, `tf.print` and the `tf.debugging.assert_*` ops give in a
  graph), a Keras symbolic tensor (`keras.Input(...)`, in Keras 2 and 3);
- `None` on one path and a tensor on another fails as soon as the paths depend on a tensor
  (AutoGraph turns the branch into `tf.cond`, whose branches must return the same structure).

A returned Python value that becomes a tensor is harmless where the caller uses it as a
number (an eager tensor indexes a list, sizes a `range`, compares in an `if`, formats with
`%d`), but not where the caller needs the Python value itself: a Keras layer's configuration
(`Dense(units=f(x))` raises ValueError), printed or logged or written text (an eager tensor
shows as `tf.Tensor(3, shape=(), dtype=int32)`), `str`/`repr`/`json` conversions, methods a
tensor does not have (`.upper()` of a string, `.assign()` of a variable). In a caller that is
itself traced the result is a symbolic tensor: every Python-value use fails there (a list
index, `bool()`, NumPy).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import cast

from hybridize.analyzer.facts.callgraph import call_sites, calls_by_result
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.composite_specs import unbuildable_composite
from hybridize.analyzer.facts.evaluator import (
    Evaluator,
    ResolvedCall,
    TensorFacts,
    bind_written,
    callback_atoms,
    callees,
    get_evaluator,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.hashability import (
    is_project_class,
    mapping_rebuilt_wrong,
    namedtuple_rebuilt_wrong,
)
from hybridize.analyzer.facts.helper_safety import SYMBOLIC_KINDS, configures_layer
from hybridize.analyzer.facts.mapped_structures import (
    callback_parameters,
    mapped_structure_position,
)
from hybridize.analyzer.facts.predicates import leaf_atoms, local_values, made_of, walk_syms
from hybridize.analyzer.facts.refs import is_class_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.sort_keys import compared_key_results
from hybridize.analyzer.facts.tensor_conversion import tensor_conversion
from hybridize.analyzer.facts.values import (
    MAX_NESTING,
    NONE_ATOM,
    PYTHON_SEQUENCE_KINDS,
    UNKNOWN_ATOM,
    Atom,
    AtomKind,
    ext_name,
    is_class_atom,
    is_dict_atom,
    is_ext_atom,
    is_func_atom,
    is_lit_atom,
    is_method_atom,
    is_numpy_atom,
    is_obj_atom,
    is_python_atom,
    is_seq_atom,
    is_super_atom,
    is_symbolic_atom,
    is_tup_atom,
    is_variable_atom,
    obj_class,
    obj_role,
    super_class,
)
from hybridize.analyzer.frameworks import lookup, written_name
from hybridize.analyzer.frameworks.api_info import ApiInfo
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, Framework, framework_of_api
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    NONE,
    SymKind,
    attr_base,
    attr_name,
    call_index,
    call_sym,
    is_attr,
    is_call,
    is_cond,
    is_fstr,
    is_item,
    is_lit,
    is_local,
    is_name,
    is_slice,
    kind_of,
    lit_type,
    name_sym,
    param_sym,
    seq_kind,
    sym_name,
)

UNRETURNABLE_ROLES = {
    "layer": "a Keras layer",
    "model": "a Keras model",
    "optimizer": "a Keras optimizer",
    "loss": "a Keras loss object",
    "metric": "a Keras metric",
    "tape": "a GradientTape",
    "strategy": "a distribution strategy",
    "file": "a file object",
    "logger": "a logger",
}
CHANGED_ROLES = {
    "tensor_array": (
        "a tf.TensorArray, which tf.function returns as a variant tensor without the "
        "TensorArray's methods (a caller's `.read()`, `.stack()` or `.write()` fails)"
    ),
}
"""Objects tf.function does return, but as something else: checked with TensorFlow 2.21."""
CALLABLE_KINDS = {"func": "a function", "class": "a class", "module": "a module"}
"""(A "method" atom is left out: the tensor analysis gives one for a `@property` read too.)"""
_MAY_BE_UNRETURNABLE: frozenset[str] = frozenset({*CALLABLE_KINDS, "symbolic", "ext", "obj"})
"""The kinds of a returned leaf `_unreturnable` may name (`_converted_instance`,
`_unreturnable_atom`, a symbolic tensor, an object of a changed role): any other is
returned as it is."""
OPERATION_RETURNS = frozenset({"none", "object"})
"""What the API tables say a TF op returns when it gives no tensor: in a graph that is a
`tf.Operation` (eagerly `None`)."""
TEXT_CONVERSIONS = frozenset(
    {"builtins.str", "builtins.repr", "builtins.hash", "json.dumps", "json.dump"}
)
"""Where a tensor is not the value: `str`/`repr` give `tf.Tensor(8, shape=(), ...)`, `hash`
and `json` raise. (`format()`, `str.format` and f-strings without `!s`/`!r` show the value.)"""
OUTPUT_EFFECTS = frozenset({"print", "logging", "io"})
STATIC_SHAPE_ATTRIBUTES = frozenset({"shape", "ndim"})
STATIC_SHAPE_METHODS = frozenset({"as_list", "num_elements"})
STATIC_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "name", "device", "T"})
"""What the evaluator gives of any tensor, tabled or not (`Evaluator.attribute`)."""
PARTLY_STATIC_SHAPE = "a shape list, static where known (Python ints, tensors elsewhere)"
RANGE = "builtins.range"
SUPER = name_sym("super")
"""How `super` is written in a summary (the callee of `super()`)."""


def python_value_returns(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    hybrid: Collection[FunctionKey],
    traced: Collection[FunctionKey],
) -> tuple[list[Evidence], list[str]]:
    """Evidence of `has_python_value_returns` for one function, and the assumption it rests
    on when no caller is known. `hybrid` are the compiled functions, `traced` those that run
    as graphs (compiled, or called only from graphs)."""
    fn = index.function(key)
    if fn.is_generator or fn.is_lambda or key in hybrid or not fn.returns:
        # A generator is HY301's; a lambda is not compiled on its own; a function that runs
        # as a graph already gives its callers what they get now. A function that returns
        # no value (only falls through) returns None compiled too: every reason below reads
        # a returned value (one function in seven of the synthetic project: skipped at once).
        return [], []
    evaluator = get_evaluator(index, facts, key)
    # Only the first reason is reported: the generators after the one that gives it are
    # never run (most functions give none, and walk them all).
    reasons = chain(
        _unreturnable(index, facts, key, fn, evaluator),
        _rebuilt_returns(index, facts, key, evaluator.framework),
        _rebuilt_mappings(index, facts, key, fn, evaluator),
        _none_or_tensor(fn, evaluator),
        _unknown_from_callers(index, facts, key, fn),
        compared_key_results(index, facts, key, fn, evaluator, traced),
    )
    findings = [Evidence(reason, fn.span) for reason in islice(reasons, 1)]
    if findings:
        # every question below is read only when no reason was found (the Python kinds
        # returned and their callers' uses: a walk of every caller)
        return findings, []
    kinds = _python_kinds(fn, evaluator)
    by_index = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
    static = any(
        _static_where_known(fn, sym, by_index) for sym in fn.returns
    ) or _returns_given_shapes(index, facts, key)
    if static and not kinds:
        kinds.add(PARTLY_STATIC_SHAPE)
    assumptions: list[str] = []
    if kinds:
        described = " or ".join(sorted(kinds))
        use = _first_python_use(index, facts, key, traced, static)
        if use is not None:
            findings.append(
                Evidence(
                    f"returns {described}, which tf.function returns as a tensor, and {use}",
                    fn.span,
                )
            )
        elif PARTLY_STATIC_SHAPE not in kinds and not _has_callers(facts, key):
            assumptions.append(
                f"returns {described}, which tf.function would return as a tensor: no caller "
                "is known, and none is assumed to need it as a Python value"
            )
    if not findings:
        given = _returns_given_tensor_shape(index, facts, key, fn)
        if given is not None:
            findings.append(Evidence(given, fn.span))
    if not findings:
        read = _unknown_result_attribute(index, facts, key, fn)
        if read is not None:
            findings.append(Evidence(read, fn.span))
    return findings, assumptions


# ---------------------------------------------------------------------- what is returned


def _unreturnable(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    fn: FunctionSummary,
    evaluator: Evaluator,
) -> Iterator[str]:
    """Why some returned value cannot be returned from a tf.function at all."""
    calls = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
    makes_symbolic: bool | None = None  # asked once, when a symbolic value is returned
    framework = evaluator.framework
    # the walk for a returned graph operation answers only at a call of one: a project
    # with none needs no walk (which functions call one: a scan kept across updates)
    operations = per_function(
        facts,
        "graph_operation_calls",
        lambda _key, calls: any(_graph_operation(resolved) is not None for resolved in calls),
    )
    for sym in fn.returns:
        operation = (
            _returned_call(
                index, facts, key, [sym], _graph_operation, framework.packed_leaves, 0, set(), None
            )
            if operations
            else None
        )
        if operation is not None:
            yield (
                f"returns what `{operation}` gives, a tf.Operation in a graph: tf.function "
                "cannot return it (TypeError while tracing)"
            )
            return
        non_tensor = _non_tensor_result(index, fn, evaluator, sym, calls)
        if non_tensor is not None:
            yield (
                f"returns what {non_tensor}: tf.function cannot return it (TypeError while tracing)"
            )
            return
        returned = evaluator.eval(sym)
        iterator = _iterator_in(returned)
        if iterator is not None:
            yield (
                f"returns {iterator}, which tf.function cannot return (TypeError while "
                "tracing): only tensors, None and structures of them"
            )
            return
        if _constructs(sym, calls, "tensorflow.TensorShape"):
            yield (
                "returns a `tf.TensorShape`: tf.function cannot return one with an unknown "
                "dimension (TypeError while tracing) and returns a known one as a tensor"
            )
            return
        own_class = _instance_of_own_class(index, fn, evaluator, sym)
        if own_class is not None:
            yield own_class
            return
        # Every reason is gathered and the first in sort order named: the atoms are a set,
        # whose order changes between runs.
        reasons = set()
        for atom in leaf_atoms(returned):
            kind: AtomKind = atom[0]
            if kind not in _MAY_BE_UNRETURNABLE:
                continue  # a tensor, a literal, None (most leaves): nothing below answers
            if is_symbolic_atom(atom):
                if makes_symbolic is None:
                    makes_symbolic = _makes_symbolic(facts, key)
                if not makes_symbolic:
                    continue
            if is_obj_atom(atom) and obj_role(atom) in CHANGED_ROLES:
                reasons.add(f"returns {CHANGED_ROLES[atom[1]]}")
                continue
            converted = _converted_instance(index, facts, atom)
            if converted is not None:
                reasons.add(converted)
                continue
            what = _unreturnable_atom(index, atom)
            if what is not None:
                reasons.add(
                    f"returns {what}, which tf.function cannot return (TypeError while tracing)"
                )
        if reasons:
            yield min(reasons)
            return


REBUILT_RETURN_DEPTH = 3
"""Project calls followed to find a returned distribution (`return self._net(x)` whose
layer's `call` returns `(tfd.Normal(...), state)`)."""


def _rebuilt_returns(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> Iterator[str]:
    """Why the function returns an object tf.function gives back rebuilt from its type spec
    (`Framework.rebuilt_return_namespaces`: a TensorFlow Probability distribution), made in
    it or returned by a project function it calls (`REBUILT_RETURN_DEPTH` deep), whole or as
    an element of a returned tuple, list or dict."""
    namespaces = framework.rebuilt_return_namespaces
    if not namespaces:
        return

    def constructed(resolved: ResolvedCall) -> str | None:
        names = [
            ext_name(atom)
            for atom in resolved.callee_atoms
            if is_ext_atom(atom) and ext_name(atom).startswith(namespaces)
        ]
        return min(names) if names else None

    # The walk below answers only at such a call: a project with none (most) needs no walk.
    # Which functions make one is a scan of each function's calls, kept across updates.
    makers = per_function(
        facts,
        "rebuilt_return_makers " + " ".join(namespaces),
        lambda _key, calls: any(constructed(resolved) is not None for resolved in calls),
    )
    if not makers:
        return
    made = _returned_call(
        index, facts, key, None, constructed, framework.packed_leaves, 0, set(), None
    )
    if made is not None:
        yield (
            f"returns a `{_display(made)}`, which tf.function gives back rebuilt from its "
            "type spec, not as the body built it: its `parameters` hold tensors where the "
            "body passed None or a Python number (TensorFlow Probability distributions)"
        )


def _rebuilt_mappings(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    fn: FunctionSummary,
    evaluator: Evaluator,
) -> Iterator[str]:
    """Why the function returns an instance of a project mapping class tf.function gives
    back rebuilt by the class, not as it was (`mapping_rebuilt_wrong`), made in it or
    returned by a project function it calls (`REBUILT_RETURN_DEPTH` deep), whole or in a
    returned tuple, list or dict. One it returns as a caller gave it is not claimed: the
    argument is rebuilt on the way in (HY442), and a function that returns a parameter
    as given may test its type first (tf-pwa's `data_strip` rebuilds every `dict` as a
    plain one and returns only the other values as given)."""
    classes = {
        class_key
        for sym in fn.returns
        for atom in leaf_atoms(evaluator.eval(sym))
        if is_obj_atom(atom)
        and obj_role(atom) == "instance"
        and (class_key := obj_class(atom)) is not None
        and is_project_class(index, class_key)
    }
    wrong: dict[ClassKey, str] = {}
    framework = index.function_framework(key)
    for class_key in classes:
        mapping = mapping_rebuilt_wrong(index, class_key, framework)
        if mapping is not None:
            wrong[class_key] = (
                "(`type(x)()` filled item by item, `type(x)(pairs)`), an instance of "
                f"`{class_key.qualname}`, a mapping: {mapping}"
            )
        elif (fields := namedtuple_rebuilt_wrong(index, class_key)) is not None:
            wrong[class_key] = (
                f"(`type(x)(*fields)`), an instance of `{class_key.qualname}`, a named "
                f"tuple: {fields}"
            )
        elif (spec := unbuildable_composite(index, class_key, framework)) is not None:
            wrong[class_key] = (
                f"(from its type spec), an instance of `{class_key.qualname}`, whose spec "
                f"cannot be built: {spec}"
            )
    if not wrong:
        return  # the walk below answers only at the construction of such a class

    def constructed(resolved: ResolvedCall) -> str | None:
        made = sorted(
            (target for kind, target in resolved.targets if kind == "class" and target in wrong),
            key=str,
        )
        return None if not made else wrong[made[0]]

    found = _returned_call(
        index, facts, key, None, constructed, evaluator.framework.packed_leaves, 0, set(), None
    )
    if found is not None:
        yield f"returns what tf.function gives back rebuilt by calling its class {found}"


def _returned_call(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    roots: Iterable[Sym] | None,
    found: Callable[[ResolvedCall], str | None],
    packed: Mapping[str, tuple[int, str]],
    depth: int,
    seen: set[FunctionKey],
    receivers: frozenset[ClassKey] | None,
) -> str | None:
    """What `found` says of a call whose result the function may return (`roots`, or all its
    returned values), first in walk order: through locals (with what the body appends,
    inserts or extends a local list with), operators (`asserts + [op]`), conditionals,
    displays, items, the calls of `packed` (the leaves they return:
    `Framework.packed_leaves`), and the project functions it calls
    (`REBUILT_RETURN_DEPTH` deep), whose own returned values are walked. `receivers` are
    the classes of the object the caller called when the function is the `__call__` that
    call runs (None when not known: at the start, or reached otherwise)."""
    seen.add(key)
    if not index.has_function(key):
        return None
    fn = index.function(key)
    calls = calls_by_result(facts, key)

    def follow(sym: Sym) -> Iterable[Sym]:
        kind: SymKind = sym[0]
        if kind in ("seq", "dict", "cond", "item", "op"):
            return made_of(sym)
        if sym in calls:
            return _packed_argument(calls[sym], packed)
        return [*local_values(fn, sym), *_appended(fn, sym, LIST_ADDERS)]

    for sym in walk_syms(fn.returns if roots is None else roots, follow):
        resolved = calls.get(sym)
        if resolved is None:
            continue
        what = found(resolved)
        if what is not None:
            return what
        if depth >= REBUILT_RETURN_DEPTH:
            continue
        targets = [target for kind, target in resolved.targets if kind != "class"]
        targets += _layer_calls_behind(index, facts, key, fn, resolved.site.callee, receivers)
        bound = _called_objects(resolved)
        for target in targets:
            if target in seen:
                continue
            made = _returned_call(index, facts, target, None, found, packed, depth + 1, seen, bound)
            if made is not None:
                return made
    return None


def _called_objects(resolved: ResolvedCall) -> frozenset[ClassKey] | None:
    """The project classes of the objects a call calls (`self._network(x)` binding
    `self._network` to instances of `QNetwork` or `ActorNetwork`): whose `call` the `__call__`
    it runs reaches through `super().__call__`. None when the call runs something else too
    (a function or method named directly): its own `super()` is not about those objects."""
    classes: set[ClassKey] = set()
    for atom in resolved.callee_atoms:
        if is_obj_atom(atom) and (class_key := obj_class(atom)) is not None:
            classes.add(class_key)
        elif is_func_atom(atom) or is_method_atom(atom) or is_class_atom(atom):
            return None
    return frozenset(classes) if classes else None


def _packed_argument(resolved: ResolvedCall, packed: Mapping[str, tuple[int, str]]) -> list[Sym]:
    """The argument whose leaves the call returns as they are (`Framework.packed_leaves`)."""
    for info in resolved.api:
        if info.name in packed:
            given = resolved.site.argument(*packed[info.name])
            return [] if given is None else [given]
    return []


LAYER_CALL_OVERRIDES = 200
"""`call` methods a `super().__call__(...)` may run that are looked into, per class."""


def _layer_calls_behind(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    fn: FunctionSummary,
    callee: Sym,
    receivers: frozenset[ClassKey] | None,
) -> list[FunctionKey]:
    """The `call` methods `super().__call__(...)` runs in a project layer's own `__call__`
    (Keras' `__call__` runs `self.call`, looked up on the object's class): when the caller's
    call site binds the object to known classes (`receivers`), the `call` of each of those
    and of its project subclasses (`ProjectIndex.dispatch`, as the evaluator resolves a
    layer's call); else of the class and every project subclass, since the object may be of
    any of them (tf-agents' `Network.__call__` analysed on its own)."""
    if not is_attr(callee) or attr_name(callee) != "__call__":
        return []
    if not _calls_super(fn, attr_base(callee)):
        return []
    evaluator = get_evaluator(index, facts, key)
    found: list[FunctionKey] = []
    owners = sorted(
        super_class(atom) for atom in evaluator.eval(attr_base(callee)) if is_super_atom(atom)
    )
    for owner in owners:
        if receivers is None:
            classes = [owner]
        else:
            classes = sorted((r for r in receivers if owner in index.mro(r)), key=str)
        for class_key in classes:
            for method in index.dispatch(class_key, "call")[:LAYER_CALL_OVERRIDES]:
                if method not in found:
                    found.append(method)
    return found


ITERATOR_KINDS = {
    "iterator": "an iterator (`zip`, `map`, `enumerate`, `reversed`, `filter`)",
    "generator": "a generator",
}


def _iterator_in(atoms: Iterable[Atom]) -> str | None:
    """What one-shot iterator a returned value may be or hold (in a list, tuple or dict); the
    first kind in sort order when it may be several."""
    found = _iterator_kinds(atoms, 0)
    return ITERATOR_KINDS[min(found)] if found else None


def _iterator_kinds(atoms: Iterable[Atom], depth: int) -> set[str]:
    found = set()
    for atom in atoms:
        if is_seq_atom(atom) and seq_kind(atom) in ITERATOR_KINDS:
            found.add(atom[1])
        elif depth >= MAX_NESTING:
            continue
        elif is_seq_atom(atom):
            found |= _iterator_kinds(atom[2], depth + 1)
        elif is_dict_atom(atom):
            found |= _iterator_kinds(atom[1], depth + 1)
        elif is_tup_atom(atom):
            for part in atom[1]:
                found |= _iterator_kinds(part, depth + 1)
    return found


def _instance_of_own_class(
    index: ProjectIndex, fn: FunctionSummary, evaluator: Evaluator, sym: Sym
) -> str | None:
    """Why a returned value is a new object of an instance's class, built by calling the class
    the instance has (`type(self)(...)`, `self.__class__(...)`: zfit's
    `BinnedHolder.with_variances`), when tf.function cannot return an instance of that class
    (a plain project class, a Keras layer): whole, or in a returned tuple, list, dict or
    conditional, or through the locals it is assigned to. The evaluator gives no class for
    `type(x)`, so the instance would go unseen among the returned atoms."""

    def follow(current: Sym) -> Iterable[Sym]:
        if kind_of(current) in ("seq", "dict", "cond"):
            return made_of(current)
        return local_values(fn, current)

    for value in walk_syms([sym], follow):
        if not is_call(value):
            continue
        callee = fn.calls[call_index(value)].callee
        instance: Sym | None = None
        if is_attr(callee) and attr_name(callee) == "__class__":
            instance, written = attr_base(callee), "`.__class__(...)`"
        elif is_call(callee) and _calls_type(site := fn.calls[call_index(callee)], evaluator):
            instance, written = site.args[0], "`type(...)(...)`"
        if instance is None:
            continue
        whats = sorted(
            what
            for atom in evaluator.eval(instance)
            if kind_of(atom) == "obj" and (what := _unreturnable_atom(index, atom)) is not None
        )
        if whats:
            return (
                f"returns {whats[0]}, built by calling an instance's class ({written}), "
                "which tf.function cannot return (TypeError while tracing): only tensors, "
                "None, composite tensors and structures of them"
            )
    return None


def _calls_type(site: CallSite, evaluator: Evaluator) -> bool:
    """Whether the call is `type(x)`: the builtin, given one argument."""
    return (
        len(site.args) == 1
        and not site.kwargs
        and any(
            is_ext_atom(atom) and ext_name(atom) == "builtins.type"
            for atom in evaluator.eval(site.callee)
        )
    )


def _constructs(sym: Sym, calls: dict[int, ResolvedCall], api: str) -> bool:
    """Whether a returned value is the result of a call of `api` (by its canonical name)."""
    if not is_call(sym):
        return False
    resolved = calls.get(sym[1])
    return resolved is not None and any(info.name == api for info in resolved.api)


def _makes_symbolic(facts: TensorFacts, key: FunctionKey) -> bool:
    """The function makes a Keras symbolic tensor itself (`keras.Input`), or through a
    callback or helper it calls. A symbolic value that only flows in (a caller's, or Keras'
    functional build running a layer's `call` on graph tensors of its own) is HY406's to
    judge: what the function returns there is no KerasTensor."""
    frontier, seen = [key], {key}
    for _ in range(2):  # the function, then what it calls or hands a callback
        following: list[FunctionKey] = []
        for current in frontier:
            for resolved in facts.calls.get(current, []):
                if any(info.returns == "keras_symbolic" for info in resolved.api):
                    return True
                following.extend(t for _kind, t in resolved.targets if t not in seen)
                following.extend(
                    atom[1]
                    for info in resolved.api
                    for atom in callback_atoms(resolved, info)
                    if kind_of(atom) in ("func", "method") and atom[1] not in seen
                )
        seen.update(following)
        frontier = following
    return False


def _converted_instance(index: ProjectIndex, facts: TensorFacts, atom: Atom) -> str | None:
    """Why a returned instance of a project class TensorFlow converts to a tensor comes back
    as a tensor (`tensor_conversion`), None for any other value."""
    if not is_obj_atom(atom) or (class_key := obj_class(atom)) is None:
        return None
    how = tensor_conversion(index, facts, class_key)
    if how is None:
        return None
    return (
        f"returns an instance of `{class_key.qualname}`, {how}: compiled, it comes back "
        f"as a tensor, without the attributes of a `{class_key.qualname}` a caller reads "
        "(AttributeError)"
    )


def _unreturnable_atom(index: ProjectIndex, atom: Atom) -> str | None:
    kind: AtomKind = atom[0]
    if kind in CALLABLE_KINDS:
        return CALLABLE_KINDS[kind]
    if kind == "symbolic":
        # `keras.Input(...)` made inside the function (measured, Keras 2 and 3): a
        # KerasTensor is no tf.Tensor, and tf.function cannot return it.
        return "a Keras symbolic tensor (what `keras.Input` gives)"
    if kind == "ext":
        info = lookup(atom[1])
        if info is not None and info.returns in ("dtype", "spec"):
            return f"`{_display(info.name)}`, a {info.returns}"
        # The Python tables file module constants with functions (`math.pi`): only the
        # framework tables tell a function from a constant.
        if info is not None and info.kind in ("function", "class") and info.framework != "python":
            return f"the {info.kind} `{_display(info.name)}`"
        return None
    if kind != "obj":
        return None
    role, class_key = atom[1], atom[2]
    if role in UNRETURNABLE_ROLES:
        return UNRETURNABLE_ROLES[role]
    if role == "instance" and class_key is not None and _plain_project_class(index, class_key):
        return f"an instance of `{class_key.qualname}`"
    return None


def _plain_project_class(index: ProjectIndex, class_key: ClassKey) -> bool:
    """A class of the project whose bases are all project classes (or none): not a
    `tf.experimental.ExtensionType` or another framework type tf.function might accept."""
    for key in index.mro(class_key):
        try:
            refs = index.base_refs(key)
        except KeyError:
            return False
        if any(not is_class_ref(ref) and ref != ("ext", "builtins.object") for ref in refs):
            return False
    return True


def _assigned_value(fn: FunctionSummary, sym: Sym) -> Sym:
    """The value a returned local holds, through locals assigned once (`op = ...; return op`)."""
    for _ in range(20):
        if kind_of(sym) in ("local", "name") and len(fn.locals.get(sym[1], ())) == 1:
            sym = fn.locals[sym[1]][0]
        else:
            break
    return sym


def _graph_operation(resolved: ResolvedCall) -> str | None:
    """The op the call is, if its result is a graph operation in compiled code (a
    `tf.Operation`: `tf.group`, `tf.print`, `tf.debugging.Assert`, `tf.debugging.assert_*`)
    where eager code gets None, as its framework writes it
    (`Framework.graph_operation_namespaces`)."""
    for info in resolved.api:
        if not info.tensor_op or info.returns not in OPERATION_RETURNS:
            continue
        owner = framework_of_api(info.framework)
        if owner is not None and info.framework in owner.graph_operation_namespaces:
            return owner.written(info.name)
    return None


def _non_tensor_result(
    index: ProjectIndex,
    fn: FunctionSummary,
    evaluator: Evaluator,
    sym: Sym,
    calls: dict[int, ResolvedCall],
) -> str | None:
    """What the returned value is, in words, when it is the result of a framework method that
    may give neither a tensor nor None in compiled code (`Framework.non_tensor_results`: a
    Keras 2 metric's `update_state`), called on a framework object or, as
    `super().name(...)`, inherited by a project class from its framework base."""
    sym = _assigned_value(fn, sym)
    if not is_call(sym):
        return None
    resolved = calls.get(sym[1])
    callee = fn.calls[sym[1]].callee
    called = f"`{attr_name(callee)}(...)`" if is_attr(callee) else "the call"
    apis = [*(resolved.api if resolved is not None else ())]
    if is_attr(callee) and _calls_super(fn, attr_base(callee)):
        apis.extend(_inherited(index, evaluator, callee))
    for info in apis:
        owner = framework_of_api(info.framework)
        described = None if owner is None else owner.non_tensor_results.get(info.name)
        if described is not None:
            return f"{called} gives, {described}"
    return None


def _calls_super(fn: FunctionSummary, sym: Sym) -> bool:
    """Whether the value is written `super()` (asked before evaluating it: most returned calls
    are not on `super()`)."""
    if not is_call(sym):
        return False
    return fn.calls[sym[1]].callee == SUPER


def _inherited(index: ProjectIndex, evaluator: Evaluator, callee: Sym) -> Iterator[ApiInfo]:
    """The framework method `super().name` is in a method of a project class that no project
    class after it in the MRO defines: the method of the role of a framework base
    (`tf.keras.metrics.Precision` is a "metric"), as its tables know it."""
    if not is_attr(callee):
        return
    name = attr_name(callee)
    for atom in evaluator.eval(attr_base(callee)):
        if not is_super_atom(atom):
            continue
        if any(index.find_method(key, name) is not None for key in index.mro(atom[1])[1:]):
            continue
        for ref in index.external_bases(atom[1]):
            info = lookup(ref[1])
            owner = None if info is None else framework_of_api(info.framework)
            if info is not None and owner is not None and info.kind == "class":
                method = owner.method_of(info.returns, name)
                if method is not None:
                    yield method


def _none_or_tensor(fn: FunctionSummary, evaluator: Evaluator) -> Iterator[str]:
    """None on one path and a tensor on another, with a branch on a tensor in the body."""
    returns_none = fn.may_fall_through or NONE in fn.returns
    if not returns_none:
        return
    tensor = any(
        atom[0] in SYMBOLIC_KINDS
        for sym in fn.returns
        if sym != NONE
        for atom in leaf_atoms(evaluator.eval(sym))
    )
    branches_on_tensor = any(
        any(atom[0] in SYMBOLIC_KINDS for atom in evaluator.eval(test)) for test in fn.conditions
    )
    if tensor and branches_on_tensor:
        yield (
            "returns None on one path and a tensor on another, and branches on a tensor: in "
            "a graph the branch becomes tf.cond, whose branches must return the same "
            "structure (ValueError while tracing)"
        )


def _unknown_from_callers(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, fn: FunctionSummary
) -> Iterator[str]:
    """A function that returns what a caller gave it (`return x`, a leaf of a structure it
    maps, a helper's result that is its argument), where some caller gives a value of unknown
    kind: tf.function returns only tensors, None and composite tensors, so that value may come
    back as a tensor or fail. Sonnet's `_maybe_cast_element` returns its argument when it is
    not a float tensor: under tf.function a dtype argument failed while tracing and a Python
    float came back as a tensor."""
    params = facts.param_atoms.get(key, {})
    given = passed_through(index, facts, key)
    unknown = [
        p.name
        for p in fn.params
        if given.get(p.name) and UNKNOWN_ATOM in leaf_atoms(params.get(p.name, ()))
    ]
    if unknown:
        names = ", ".join(f"`{name}`" for name in unknown[:3])
        yield (
            f"may return {names} as given when it is not a tensor (its type is tested), and "
            "callers pass values of unknown kind there: tf.function returns only tensors, "
            "None and composite tensors (a Python number comes back as a tensor, a dtype or "
            "another object fails while tracing)"
        )


def passed_through(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    active: frozenset[FunctionKey] = frozenset(),
) -> dict[str, bool]:
    """The parameters of `key` whose value (or a leaf of it) the function may return as
    given: returned directly, through locals, branches and containers, indexed, as the
    result of a project function that passes its own argument through, or as a leaf of a
    `map_structure` whose callback passes its argument through; each with whether the body
    asks if it is a tensor (`isinstance(x, tf.Tensor)`, `tf.is_tensor(x)`, here or in that
    function): a function that tests whether what it returns as given is a tensor is written
    for values that are not. Memoised per solution; a recursive cycle contributes nothing
    more."""
    cache = cast("dict[FunctionKey, dict[str, bool]]", facts.cache.setdefault("passed_through", {}))
    found = cache.get(key)
    if found is not None:
        return found
    if key in active:
        return {}
    fn = index.function(key)
    calls = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
    seen: set[tuple[Sym, frozenset[str]]] = set()
    names: dict[str, bool] = {}
    tested = _type_tested(fn, calls.values())
    rebound = fn.rebound_at_returns
    nothing: frozenset[str] = frozenset()
    # Each value with the parameters rebound where it is returned: a name read there holds
    # its later values, not the caller's (the values of other names are what they were).
    stack = [(sym, rebound[i] if i < len(rebound) else nothing) for i, sym in enumerate(fn.returns)]
    while stack:
        sym, killed = stack.pop()
        if (sym, killed) in seen or len(seen) > MAX_PASSTHROUGH_WALK:
            continue
        seen.add((sym, killed))
        kind: SymKind = sym[0]
        if kind == "param":
            names[sym[1]] = names.get(sym[1], False) or sym[1] in tested
        elif kind in ("local", "name"):
            values = fn.locals.get(sym[1], ())
            if sym[1] in killed:
                values = [v for v in values if v != param_sym(sym[1])]
            stack.extend((v, nothing) for v in values)
        elif kind == "cond":
            stack.extend((part, killed) for part in sym[1])
        elif kind in ("seq", "dict"):
            stack.extend((part, killed) for part in (sym[2] if kind == "seq" else sym[1]))
        elif kind == "item":
            stack.append((sym[1], killed))
        elif kind == "call" and sym[1] in calls:
            for part, part_tested in _passed_by_call(index, facts, calls[sym[1]], active | {key}):
                if part_tested and kind_of(part) in ("local", "param"):
                    tested = tested | {part[1]}
                stack.append((part, killed))
    cache[key] = names
    return names


TENSOR_TESTS = frozenset(name for f in FRAMEWORKS for name in f.tensor_tests)
"""Calls that ask whether a value is a tensor (besides `isinstance` with a tensor class)."""
TENSOR_CLASS_ROLES = frozenset({"tensor", "tensor_type", "variable", "numpy"})


def _type_tested(fn: FunctionSummary, calls: Iterable[ResolvedCall]) -> frozenset[str]:
    """The parameters the body asks whether they are tensors (`isinstance(x, tf.Tensor)`,
    `isinstance(x, (tf.Tensor, tf.Variable))`, `tf.is_tensor(x)`)."""
    params = {p.name for p in fn.params}
    found = set()
    for resolved in calls:
        names = {info.name for info in resolved.api}
        site = resolved.site
        if not site.args or kind_of(site.args[0]) not in ("local", "param"):
            continue
        if site.args[0][1] not in params:
            continue
        if names & TENSOR_TESTS or (
            "builtins.isinstance" in names
            and len(resolved.args) > 1
            and any(_tensor_class(atom) for atom in leaf_atoms(resolved.args[1]))
        ):
            found.add(site.args[0][1])
    return frozenset(found)


def _tensor_class(atom: Atom) -> bool:
    info = lookup(atom[1]) if is_ext_atom(atom) else None
    return info is not None and info.kind == "class" and info.returns in TENSOR_CLASS_ROLES


MAX_PASSTHROUGH_WALK = 2_000
"""Values visited per function (a bound for generated code; real functions visit dozens)."""


def _passed_by_call(
    index: ProjectIndex, facts: TensorFacts, resolved: ResolvedCall, active: frozenset[FunctionKey]
) -> Iterator[tuple[Sym, bool]]:
    """The argument values (as written) that a call may give back as its result, each with
    whether the callee tests if it is a tensor."""
    site = resolved.site
    for kind, target in callees(index, resolved):
        if not index.has_function(target):
            continue
        callee = index.function(target)
        given = passed_through(index, facts, target, active)
        if not given:
            continue
        bound = bind_written(callee, resolved, kind, target)
        for name, is_tested in given.items():
            for argument in bound.get(name, ()):
                yield argument, is_tested
    for info in resolved.api:
        if info.returns != "callback_results":
            continue
        position = mapped_structure_position(info)
        if position is None:
            continue
        written = site.args[position:]
        for atom in callback_atoms(resolved, info):
            given = passed_through(index, facts, atom[1], active)
            if not given:
                continue
            # the callback gives back what a parameter received: the leaves of the structure
            # that parameter gets its elements from come back
            callback = index.function(atom[1])
            params = callback.explicit_params if is_func_atom(atom) else callback.params[1:]
            parameters = callback_parameters(info, params, len(written), site.has_star_args)
            for name, is_tested in given.items():
                parameter = parameters.get(name)
                for i in parameter.structures if parameter is not None else ():
                    yield written[i], is_tested


def _python_kinds(fn: FunctionSummary, evaluator: Evaluator) -> set[str]:
    """The Python values among what the function returns, in words."""
    kinds: set[str] = set()
    for sym in fn.returns:
        if _static_shape(fn, sym):
            kinds.add("a static shape value (a Python int or list)")
            continue
        leaves = list(leaf_atoms(evaluator.eval(sym)))
        found = {_python_kind(atom) for atom in leaves}
        if leaves and None not in found:
            # Only a value that is Python on every path: one that may be a tensor already
            # gives its callers a tensor eagerly too.
            kinds |= {kind for kind in found if kind}
        elif (
            leaves
            and all(is_python_atom(atom) for atom in leaves)
            and _text_method_result(fn, evaluator, sym, 0)
        ):
            kinds.add("what a `str` method gives (a Python str, bool, int or list)")
    return kinds


TEXT_METHOD_PREFIXES = ("builtins.str.", "builtins.bytes.")
"""The tables' names of the methods of Python strings: each returns a plain Python value."""


def _text_method_result(fn: FunctionSummary, evaluator: Evaluator, sym: Sym, depth: int) -> bool:
    """`sym` is what a method of a Python string gives (`name.upper()`,
    `key.startswith(prefix)`), directly or through locals bound only to such calls: a
    Python value (the evaluator knows it only as "some Python value")."""
    if depth > MAX_NESTING:
        return False
    if kind_of(sym) in ("local", "name"):
        values = fn.locals.get(sym[1], ())
        return bool(values) and all(
            _text_method_result(fn, evaluator, value, depth + 1) for value in values
        )
    if not is_call(sym):
        return False
    apis = evaluator.resolve_call(sym[1]).api
    return bool(apis) and all(info.name.startswith(TEXT_METHOD_PREFIXES) for info in apis)


def _python_kind(atom: Atom) -> str | None:
    """What tf.function turns into a tensor, in words; "" for None (returned as is); None
    for anything else (a tensor, an unknown value)."""
    if atom == NONE_ATOM:
        return ""
    if is_lit_atom(atom) and lit_type(atom) in ("int", "float", "str", "bool"):
        return f"a Python {atom[1]}"
    if is_numpy_atom(atom):
        return "a NumPy value"
    if is_variable_atom(atom):
        return "a tf.Variable (returned as a tensor of its value)"
    return None


def _static_where_known(fn: FunctionSummary, sym: Sym, calls: dict[int, ResolvedCall]) -> bool:
    """A returned shape value that is static on some path or in some element, and a shape
    (static, or read with `tf.shape`) everywhere: the "static where known, dynamic
    otherwise" shape list (`[d[i] if s is None else s for i, s in enumerate(x.shape.as_list())]`
    with `d = tf.shape(x)`). A tuple of a tensor and a shape is not one: a caller's use of
    the tensor says nothing of the shape."""
    kinds = _shape_kinds(fn, sym, calls, set())
    return kinds is not None and STATIC in kinds


def _returns_given_shapes(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """The function returns (a slice, an element of) a parameter as given, and its callers
    give shape values there, static in some: larq's `_get_spatial_shape(input_shape)`,
    returning `input_shape[1:-1]` of the `inputs.shape` (or `tf.shape(inputs)`) its caller
    passes. Compiled, a static `TensorShape` comes back as a tensor (or fails to, "found
    return value of type TensorShape", when a dim is unknown): the same hazard as a shape
    read in the function itself."""
    given = passed_through(index, facts, key)
    if not given:
        return False
    kinds: set[str] = set()
    for caller, caller_fn, resolved, kind in call_sites(index, facts, key):
        bound = bind_written(index.function(key), resolved, kind, key)
        calls = {r.index: r for r in facts.calls.get(caller, [])}
        for name in given:
            for argument in bound.get(name, ()):
                found = _shape_kinds(caller_fn, argument, calls, set())
                if found is None:
                    return False
                kinds |= found
    return STATIC in kinds


MAX_SHAPE_PASSING_DEPTH = 3
"""How many callers up a parameter is followed to the `TensorShape` that fills it (larq's
`build` -> `_get_padding_same_shape` -> `_get_spatial_shape` is two)."""
MAX_SHAPE_WALK = 200
"""Values visited per question (real functions visit a dozen)."""
TENSOR_SHAPE_CLASS = "tensorflow.TensorShape"


def _returns_given_tensor_shape(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, fn: FunctionSummary
) -> str | None:
    """Why the function returns a `TensorShape` its caller gave it, in words, or None.

    It returns a parameter whole, or sliced (`input_shape[1:-1]`: a slice of a `TensorShape`
    is one), and some caller fills that parameter with a `TensorShape`: a tensor's `.shape`,
    a `tf.TensorShape(...)`, or the shape Keras gives a layer's `build`, directly or through
    the callers' own parameters (`MAX_SHAPE_PASSING_DEPTH`). A `TensorShape` argument is a
    Python object of the trace's key, and it may hold unknown dimensions even when the call
    is eager (the batch dimension of `build`'s shape is None): compiled, the function fails
    to return it ("found return value of type TensorShape", TypeError while tracing) or,
    every dimension known, returns a tensor (measured under TF 2.21; larq's
    `_get_spatial_shape`, its shape given by `build` through `_get_padding_same_shape`).
    Whatever the caller does with it, it no longer gets a `TensorShape`."""
    returned = _returned_whole_or_sliced(fn)
    if not returned:
        return None
    for caller, caller_fn, resolved, kind in call_sites(index, facts, key):
        bound = bind_written(fn, resolved, kind, key)
        for name in sorted(returned):
            for argument in sorted(bound.get(name, ()), key=repr):
                source = _tensor_shape_source(
                    index, facts, caller, argument, MAX_SHAPE_PASSING_DEPTH, set()
                )
                if source is None:
                    continue
                where = "module code" if caller.is_module_code else f"`{caller_fn.qualname}`"
                return (
                    f"returns `{name}` (whole or sliced) as given, and {where} (line "
                    f"{cited_line(caller.file, resolved.site.span.start_line)}) passes {source} there: a `TensorShape`, "
                    "which tf.function cannot return with an unknown dimension (TypeError while "
                    "tracing) and returns as a tensor when every dimension is known"
                )
    return None


def _returned_whole_or_sliced(fn: FunctionSummary) -> set[str]:
    """The parameters the function returns as they are or sliced (`shape[1:-1]`), through
    locals and conditionals: what it gives back is of the argument's type (an element,
    `shape[0]`, is not: a dimension is a Python int or None)."""
    found: set[str] = set()
    seen: set[Sym] = set()
    stack = list(fn.returns)
    while stack and len(seen) < MAX_SHAPE_WALK:
        sym = stack.pop()
        if sym in seen:
            continue
        seen.add(sym)
        kind: SymKind = sym[0]
        if kind == "param":
            found.add(sym[1])
        elif kind in ("local", "name"):
            stack.extend(fn.locals.get(sym[1], ()))
        elif kind == "cond":
            stack.extend(sym[1])
        elif kind == "item" and is_slice(sym[2]):
            stack.append(sym[1])
    return found


def _tensor_shape_source(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    sym: Sym,
    depth: int,
    seen: set[tuple[FunctionKey, Sym]],
) -> str | None:
    """What `TensorShape` the value `sym` of function `key` may be, in words, or None: a
    tensor's `.shape` (or a slice of it), a `tf.TensorShape(...)`, the shape Keras gives a
    layer's `build`, or a parameter a caller (to `depth` callers up) fills with one."""
    fn = index.function(key)
    calls: dict[int, ResolvedCall] | None = None
    stack = [sym]
    while stack:
        current = stack.pop()
        if (key, current) in seen or len(seen) > MAX_SHAPE_WALK:
            continue
        seen.add((key, current))
        kind: SymKind = current[0]
        if kind == "attr" and current[2] == "shape":
            receiver = get_evaluator(index, facts, key).eval(current[1])
            if any(atom[0] in SYMBOLIC_KINDS for atom in receiver):
                return "a tensor's `.shape`"
        elif kind == "item" and is_slice(current[2]):
            stack.append(current[1])
        elif kind in ("local", "name"):
            stack.extend(fn.locals.get(current[1], ()))
        elif kind == "cond":
            stack.extend(current[1])
        elif kind == "call":
            if calls is None:
                calls = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
            resolved = calls.get(current[1])
            if resolved is not None and any(i.name == TENSOR_SHAPE_CLASS for i in resolved.api):
                return "a `tf.TensorShape`"
        elif kind == "param":
            if get_evaluator(index, facts, key).is_layer_build_shape(current[1]):
                return f"the shape Keras gives `{fn.qualname}`"
            if depth > 0:
                found = _parameter_shape_source(index, facts, key, current[1], depth - 1, seen)
                if found is not None:
                    return found
    return None


def _parameter_shape_source(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    name: str,
    depth: int,
    seen: set[tuple[FunctionKey, Sym]],
) -> str | None:
    """What `TensorShape` some caller of `key` passes for its parameter `name`, in words."""
    fn = index.function(key)
    for caller, caller_fn, resolved, kind in call_sites(index, facts, key):
        bound = bind_written(fn, resolved, kind, key)
        for argument in sorted(bound.get(name, ()), key=repr):
            source = _tensor_shape_source(index, facts, caller, argument, depth, seen)
            if source is not None:
                where = "module code" if caller.is_module_code else f"`{caller_fn.qualname}`"
                return f"{source} (passed on by {where}, line {cited_line(caller.file, resolved.site.span.start_line)})"
    return None


STATIC, DYNAMIC = "static", "dynamic"
DYNAMIC_SHAPE_OPS = frozenset({"tensorflow.shape", "tensorflow.compat.v1.shape"})
SHAPE_PRESERVING_CALLS = frozenset(
    {"builtins.enumerate", "builtins.list", "builtins.tuple", "tensorflow.unstack"}
)
"""Calls whose result holds the shape values their first argument holds."""


def _shape_kinds(
    fn: FunctionSummary, sym: Sym, calls: dict[int, ResolvedCall], seen: set[Sym]
) -> set[str] | None:
    """Whether each part of a value is a static or a dynamic shape value ({STATIC, DYNAMIC}
    as found), or None when some part is neither. A value reached again through itself adds
    nothing."""
    if sym in seen:
        return set()
    seen.add(sym)
    if _static_shape(fn, sym):
        return {STATIC}
    kind: SymKind = sym[0]
    parts: Iterable[Sym]
    if kind in ("local", "name"):
        parts = [*fn.locals.get(sym[1], ()), *_appended(fn, sym)]
    elif kind == "cond":
        parts = sym[1]
    elif kind == "seq":
        parts = sym[2]
    elif kind in ("item", "iter"):
        parts = (sym[1],)
    elif kind == "call" and sym[1] in calls:
        resolved = calls[sym[1]]
        names = {info.name for info in resolved.api}
        if names & DYNAMIC_SHAPE_OPS:
            return {DYNAMIC}
        if not names & SHAPE_PRESERVING_CALLS:
            return None
        parts = resolved.site.args[:1]
    else:
        return None
    found: set[str] = set()
    for part in parts:
        inner = _shape_kinds(fn, part, calls, seen)
        if inner is None:
            return None
        found |= inner
    # An empty list display holds nothing yet (what is appended to it is its element).
    return found


LIST_GROWERS = {"append": 0, "insert": 1}
"""List methods that add an element, with the position of the element among their arguments."""

LIST_ADDERS = {**LIST_GROWERS, "extend": 0}
"""List methods that add to a list what their argument is or holds (`extend`'s elements)."""


def _appended(
    fn: FunctionSummary, sym: Sym, growers: Mapping[str, int] = LIST_GROWERS
) -> Iterator[Sym]:
    """The values the body adds to a local list with `growers` (`combined.append(dim)`)."""
    for site in fn.calls:
        callee = site.callee
        if is_attr(callee) and attr_base(callee) == sym and attr_name(callee) in growers:
            position = growers[callee[2]]
            if position < len(site.args):
                yield site.args[position]


def _static_shape(fn: FunctionSummary, sym: Sym, memo: dict[Sym, bool] | None = None) -> bool:
    """A value computed from static shapes only: `x.shape[0]`, `x.shape.as_list()`,
    `x.ndim * 2` (not `tf.shape(x)`, which is a tensor). Each value is visited once; one
    that feeds itself (`n = n * 2`) is static when everything else it is made of is."""
    memo = memo if memo is not None else {}
    if sym in memo:
        return memo[sym]
    memo[sym] = True  # a value reached again through itself adds nothing new
    kind: SymKind = sym[0]
    result = False
    if kind in ("local", "name"):
        values = fn.locals.get(sym[1], ())
        result = bool(values) and all(_static_shape(fn, v, memo) for v in values)
    elif kind == "attr":
        result = sym[2] in STATIC_SHAPE_ATTRIBUTES
    elif kind == "item":
        result = _static_shape(fn, sym[1], memo)
    elif kind == "op":
        operands = [o for o in sym[1] if not is_lit(o)]
        result = bool(operands) and all(_static_shape(fn, o, memo) for o in operands)
    elif kind == "call":
        callee = fn.calls[sym[1]].callee
        result = (
            is_attr(callee)
            and callee[2] in STATIC_SHAPE_METHODS
            and _static_shape(fn, callee[1], memo)
        )
    memo[sym] = result
    return result


# ---------------------------------------------------------------------- how callers use it


def _has_callers(facts: TensorFacts, key: FunctionKey) -> bool:
    return bool(
        facts.callers.get(key)
        or facts.callback_callers.get(key)
        or key in facts.traced_callbacks
        or key in facts.wrapped_by_compiler
    )


def _first_python_use(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    traced: Collection[FunctionKey],
    static: bool = False,
) -> str | None:
    """How some caller uses the function's result as a Python value, in words; with
    `static` (the function returns static shape values), also a caller running as a graph
    that computes with them where their static value counts."""
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        caller_fn = index.function(caller)
        calls = facts.calls.get(caller, [])
        evaluator = get_evaluator(index, facts, caller)
        # A Keras layer's `call` runs on symbolic tensors: Keras builds the layer so, and runs it
        # inside the graph of `fit`, `evaluate` and `predict`.
        graph = caller in traced or index.is_layer_call(caller)
        for resolved in calls:
            if not any(target == key for _, target in callees(index, resolved)):
                continue
            result: Sym = call_sym(resolved.index)
            use = _python_use(caller_fn, calls, evaluator, result, graph)
            if use is None and static and graph:
                keras = caller not in traced
                use = _static_use(caller_fn, calls, result, keras, evaluator.framework)
            if use is not None:
                line = cited_line(caller.file, resolved.site.span.start_line)
                where = "" if caller.is_module_code else f"`{caller_fn.qualname}` "
                return f"{where or 'module code '}(line {line}) {use}"
    return None


def _static_use(
    fn: FunctionSummary,
    calls: list[ResolvedCall],
    result: Sym,
    keras: bool,
    framework: Framework,
) -> str | None:
    """How a caller running as a graph computes with static shape values where their static
    value counts: a framework op given them (a `tf.reshape` target), or a `range`. Compiled,
    the function is a call in that graph, and what it returns are tensors of unknown value
    (measured under TF 2.21: `tf.reshape(x, [b, t, 2, d // 2])` has the static shape
    `(None, None, 2, None)` instead of `(2, 3, 2, 4)`, and a Keras layer built on it fails
    with "Shapes used to initialize variables must be fully-defined"). `keras`: the caller is
    a Keras layer's `call` (else it runs traced), compiled by `framework`."""
    graph = "a Keras layer's `call`, run on symbolic tensors" if keras else "it runs traced"
    for resolved in calls:
        site = resolved.site
        arguments = [*site.args, *(value for _, value in site.kwargs)]
        if not any(_flows(fn, a, result, calls, framework) for a in arguments):
            continue
        for info in resolved.api:
            name = _display(info.name)
            if info.tensor_op and framework_of_api(info.framework) is not None:
                return (
                    f"passes them to `{name}` in a graph ({graph}), where a compiled "
                    "function's results are tensors of unknown value: the static shapes "
                    "computed from them are lost"
                )
            if info.name == RANGE:
                return (
                    f"iterates `range()` over them in a graph ({graph}), where they are tensors "
                    "and `range` needs a Python int"
                )
    return None


def _python_use(
    fn: FunctionSummary,
    calls: list[ResolvedCall],
    evaluator: Evaluator,
    result: Sym,
    traced: bool,
) -> str | None:
    """How a caller uses `result` where a tensor does not do: in an eager caller only what
    an eager tensor cannot stand in for; in a traced one, any use needing a Python value."""

    def flows(sym: Sym) -> bool:
        return _flows(fn, sym, result, calls if traced else None, evaluator.framework)

    for resolved in calls:
        site = resolved.site
        arguments = [*site.args, *(value for _, value in site.kwargs)]
        passed = any(flows(a) for a in arguments)
        for info in resolved.api if passed else ():
            name = _display(info.name)
            if configures_layer(info):
                return f"configures `{name}` with it, where Keras needs a Python value"
            if info.effect in OUTPUT_EFFECTS:
                return (
                    f"passes it to `{name}`, which shows a tensor as `tf.Tensor(...)`, not as "
                    "the value"
                )
            if info.name in TEXT_CONVERSIONS:
                return f"converts it with `{name}`"
            if traced and (
                info.name in evaluator.framework.value_reading_builtins
                or (info.framework in ("numpy", "scipy") and not info.tensor_op)
            ):
                return f"passes it to `{name}`, which needs a Python value in its graph"
        callee = site.callee
        if is_attr(callee) and flows(callee[1]) and not passed:
            receiver = evaluator.eval(callee[1])
            scalar = [a for a in receiver if kind_of(a) in ("lit", "numpy", "variable")]
            if scalar and evaluator.method_of("tensor", callee[2]) is None:
                return f"calls `.{callee[2]}()` on it, which a tensor does not have"
    if any(flows(sym) for sym in fn.hashed_values):
        return "uses it as a dict key or a set element, and a tensor is not hashable"
    for sym in _values_of(fn):
        if is_fstr(sym) and any(flows(value) for value in sym[1]):
            return "shows it in an f-string through `!s`/`!r`, as `tf.Tensor(...)`"
        if not is_item(sym) or kind_of(sym[2]) in ("lit", "slice") or not flows(sym[2]):
            continue
        bases = evaluator.eval(sym[1])
        if any(is_dict_atom(a) for a in bases):
            return "looks it up as a dict key, and a tensor is not hashable"
        if traced and bases and all(a[0] in PYTHON_SEQUENCE_KINDS for a in bases):
            return "indexes a Python list with it, which needs a Python int in its graph"
    return None


STRUCTURE_MEMBERS = frozenset(
    {"items", "keys", "values", "get", "copy", "count", "index", "_asdict", "_replace", "_fields"}
    | {"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert"}
    | {"remove", "reverse", "sort"}
)
"""Members of what tf.function gives back as a structure (a dict's, a namedtuple's): read on a
returned value of unknown type, they tell nothing of a lost object."""


def _unknown_result_attribute(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    fn: FunctionSummary,
) -> str | None:
    """A safety net for returned values of unknown type (what a call the analysis cannot
    resolve gives): a caller in the project (tests count) reading an attribute of the result
    that no tensor has (`Framework.attribute_of`/`method_of` of a tensor) nor a dict or
    namedtuple (`STRUCTURE_MEMBERS`) shows the value is some other object, which
    tf.function returns as a tensor (a class with a tensor conversion: edward2's
    `rv.distribution`) or cannot return (TypeError), both measured under TF 2.21."""
    if not _returns_unresolved_calls(facts, key, fn):
        return None
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        caller_fn = index.function(caller)
        caller_evaluator = get_evaluator(index, facts, caller)
        framework = caller_evaluator.framework
        for resolved in facts.calls.get(caller, []):
            if not any(target == key for _, target in callees(index, resolved)):
                continue
            result: Sym = call_sym(resolved.index)
            for sym in _values_of(caller_fn):
                if not is_attr(sym) or attr_name(sym) in STRUCTURE_MEMBERS:
                    continue
                name = attr_name(sym)
                if framework.attribute_of("tensor", name) is not None:
                    continue
                if framework.method_of("tensor", name) is not None:
                    continue
                if name in STATIC_TENSOR_ATTRIBUTES:
                    continue
                if not _holds_whole(caller_fn, attr_base(sym), result):
                    continue
                line = cited_line(caller.file, resolved.site.span.start_line)
                where = "module code" if caller.is_module_code else f"`{caller_fn.qualname}`"
                return (
                    f"returns a value of unknown type, and {where} (line {line}) reads "
                    f"`.{name}` of it, which no tensor has: tf.function returns such an "
                    "object as a tensor (a class with a tensor conversion) or cannot return "
                    "it (TypeError while tracing)"
                )
    return None


def _returns_unresolved_calls(facts: TensorFacts, key: FunctionKey, fn: FunctionSummary) -> bool:
    """Whether every value the function returns (through locals and conditionals) is what a
    call of an unresolved callee gives: the evaluator guesses a tensor there when tensors are
    passed, so the returned values' atoms cannot tell. Anything else on some path (a tensor
    op's result, a structure tf.function gives back as such, which keeps its members, a
    Python value the other reasons judge) is not."""
    calls = calls_by_result(facts, key)

    def follow(sym: Sym) -> Iterable[Sym]:
        return made_of(sym) if is_cond(sym) else local_values(fn, sym)

    leaves = [
        sym
        for sym in walk_syms(fn.returns, follow)
        if not is_cond(sym) and not local_values(fn, sym)
    ]
    for sym in leaves:
        resolved = calls.get(sym)
        if resolved is None or resolved.api or resolved.targets:
            return False
        if not resolved.callee_atoms or any(a != UNKNOWN_ATOM for a in resolved.callee_atoms):
            return False
    return bool(leaves)


def _holds_whole(fn: FunctionSummary, sym: Sym, result: Sym) -> bool:
    """Whether `sym` is `result` itself, or a local every value of which is (an element
    unpacked or indexed from it is a structure's, which tf.function keeps)."""

    def follow(current: Sym) -> Iterable[Sym]:
        if is_local(current) or is_name(current):
            values = fn.locals.get(sym_name(current), ())
            return values if len(values) == 1 else ()
        return ()

    return any(current == result for current in walk_syms((sym,), follow))


def _values_of(fn: FunctionSummary) -> Iterator[Sym]:
    """Every value the function's body writes down, and the values they are made of."""
    stack: list[Sym] = [*fn.returns, *fn.conditions]
    for values in fn.locals.values():
        stack.extend(values)
    for store in fn.stores:
        stack.extend((store.target, store.value))
    for site in fn.calls:
        stack.extend((site.callee, *site.args, *(value for _, value in site.kwargs)))

    def follow(sym: Sym) -> Iterable[Sym]:
        return (sym[1], sym[2]) if is_item(sym) else made_of(sym)

    yield from walk_syms(stack, follow)


def _display(name: str) -> str:
    """An API's name as code writes it: `tf.random.uniform`, `print`."""
    return written_name(name).removeprefix("builtins.")


def _flows(
    fn: FunctionSummary,
    sym: Sym,
    result: Sym,
    casts: list[ResolvedCall] | None,
    framework: Framework,
) -> bool:
    """Whether `sym` is `result`, or holds or computes from it without leaving tensors:
    through locals, arithmetic, conditionals and displays; with `casts` (a traced caller)
    also through the builtins its `framework` makes ops (AutoGraph's `int()`/`float()`/`len()`,
    `Framework.tensor_casts` and `tensor_len`), which give tensors there. A
    reachability question, so each value is visited once."""
    by_index = {resolved.index: resolved for resolved in casts or ()}

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return fn.locals.get(current[1], ())
        if kind in ("op", "cond", "dict", "fstr", "seq", "item"):
            return made_of(current)
        if kind == "call" and current[1] in by_index:
            resolved = by_index[current[1]]
            if any(
                info.name in framework.tensor_casts or info.name == framework.tensor_len
                for info in resolved.api
            ):
                return resolved.site.args
        return ()

    return any(current == result for current in walk_syms((sym,), follow))


# ------------------------------------------------------------ removing a compiler decorator


def returns_changed_by_removal(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> str | None:
    """Why removing a compiled function's decorator would change what its callers get back,
    in words, or None.

    A compiled function returns the Python values it computes (a number, a string, a static
    shape) as tensors; without the decorator the same call gives the Python value (measured
    under TF 2.21: `tf.function(lambda n: n // 2)(5)` is `<tf.Tensor: numpy=2>`, the function
    itself gives `2`, and a caller's `.numpy()` then raises AttributeError). Only a caller that
    reads the result is concerned: one that calls the function for its effect is not."""
    fn = index.function(key)
    if fn.is_generator or fn.is_lambda:
        return None
    kinds = _python_kinds(fn, get_evaluator(index, facts, key))
    evidence = facts.param_atoms.get(key, {})
    if not kinds and any(_computed_from_python_arguments(fn, sym, evidence) for sym in fn.returns):
        # A type hint may call a parameter a tensor, but the callers pass Python values, which
        # reach the body as they are (`experimental_follow_type_hints` converts nothing under
        # TF 2.21, measured): the eager function computes a Python value from them.
        kinds.add("a Python value computed from its Python arguments")
    if not kinds:
        return None
    reader = _first_reader(index, facts, key)
    if reader is None:
        return None
    return (
        f"it returns {' or '.join(sorted(kinds))}, which the decorator returns as a tensor, and "
        f"{reader} reads the result: without the decorator it would get the Python value"
    )


def _computed_from_python_arguments(
    fn: FunctionSummary, sym: Sym, evidence: dict[str, set[Atom]]
) -> bool:
    """Whether a value is computed, by Python operators and conditionals, from literals and
    parameters every caller fills with Python numbers or strings only."""

    def follow(current: Sym) -> Iterable[Sym]:
        if is_local(current):
            return fn.locals.get(current[1], ())
        return made_of(current) if kind_of(current) in ("op", "cond") else ()

    parameters = 0
    for current in walk_syms((sym,), follow):
        kind: SymKind = current[0]
        if kind == "param":
            atoms = evidence.get(current[1])
            if not atoms or not all(
                is_lit_atom(a) and lit_type(a) in ("int", "float", "str") for a in atoms
            ):
                return False
            parameters += 1
        elif not (kind in ("lit", "op", "cond") or (kind == "local" and fn.locals.get(current[1]))):
            return False  # a call's result, an attribute, a local never assigned...
    return parameters > 0


def _first_reader(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> str | None:
    """The first caller (in path order) that reads what a call of `key` gives, in words."""
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        caller_fn = index.function(caller)
        roots = [
            sym
            for site in caller_fn.calls
            for sym in (site.callee, *site.args, *(value for _, value in site.kwargs))
        ]
        roots.extend([*caller_fn.returns, *caller_fn.conditions])
        roots.extend(store.value for store in caller_fn.stores)
        for resolved in facts.calls.get(caller, []):
            if not any(target == key for _, target in callees(index, resolved)):
                continue
            result: Sym = call_sym(resolved.index)
            if any(root != result and _reads(caller_fn, root, result) for root in roots) or _bound(
                caller_fn, result
            ):
                where = "module code" if caller.is_module_code else f"`{caller_fn.qualname}`"
                return f"{where} (line {cited_line(caller.file, resolved.site.span.start_line)})"
    return None


def _reads(fn: FunctionSummary, sym: Sym, result: Sym) -> bool:
    """Whether `sym` is made from `result` (through locals, operations, containers, items,
    attributes): a value the caller computes, passes or tests from it."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return fn.locals.get(current[1], ())
        if kind in ("op", "cond", "dict", "fstr", "seq", "item", "attr", "iter"):
            return made_of(current)
        return ()

    return any(current == result for current in walk_syms((sym,), follow))


def _bound(fn: FunctionSummary, result: Sym) -> bool:
    """Whether the caller keeps the result under a name that it then reads (a local read
    by nothing is as good as discarded, but the summaries keep no reads: a bound result
    counts as read)."""
    return any(result in values for values in fn.locals.values())
