"""Arguments `tf.function` cannot key its trace cache on: unhashable Python objects.

`tf.function` looks up a trace by a `TraceType` made from every argument (the receiver of a
method included). Lists, tuples and dicts are opened and their leaves typed one by one; any
other Python object must be hashable, and one that is not fails the call with "TypeError:
Could not generate a generic TraceType for ... Please verify that it is immutable/hashable"
(or "unhashable type" for the receiver). Measured under TF 2.21:

    fails: a set; a bytearray; a slice (Python < 3.12); an instance of a `@dataclass`
           (eq=True, frozen=False: the default), of a subclass of one, or of a class that
           defines `__eq__` without `__hash__`; any of these inside a list, tuple, dict
           value or namedtuple; such an instance as `self` of a decorated method; a set as a
           parameter's default
    works: plain class instances (hashed by identity), frozen or `unsafe_hash` dataclasses,
           `eq=False` dataclasses, classes defining both `__eq__` and `__hash__`, enums,
           frozensets, lists/tuples/dicts of hashable leaves
    also fails: a subclass of `tf.Variable` (larq's `QuantizedVariable`) as `self`: a
           TensorFlow variable compares by value and refuses to hash ("Variable is
           unhashable. Instead, use variable.ref() as the key."), so tf.function cannot look
           up the bound method of the instance (found by the oracle on larq 0.14.0;
           tests/analyzer/test_variable_subclass_methods.py measures it again); as an
           argument too, unless the class implements the tracing protocol
           (`__tf_tracing_type__`, as larq's does): then tf.function types it without hashing

    also fails: a dataclass hashed by its fields (`frozen=True`, `unsafe_hash=True`) holding
           a tensor, a variable or a NumPy array: its hash hashes the field, which raises
           (`unhashable_field_constructions`: the project's constructor calls say which)
    works: any attrs instance as an argument (frozen or not, `__hash__` None or not, of
           tensors or scalars, inside a list): `tf.function` opens it field by field, as it
           does a named tuple, and hashes nothing (`opened_record`); as `self` of a
           decorated method it is hashed: a mutable attrs class fails, a frozen one holding
           a tensor fails as a frozen dataclass does

The evidence is the parameter's value as the analysis knows it (the arguments of the
project's calls, its default, its annotation); instances of classes whose hashability
depends on something outside the project (an external base class, a decorator keyword that
is not a literal) are not claimed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal, cast

from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import local_values, made_of, walk_syms
from hybridize.analyzer.facts.refs import (
    ext_dotted,
    is_class_ref,
    is_ext_ref,
    is_global_ref,
    ref_key,
)
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import (
    MAX_NESTING,
    Atom,
    AtomKind,
    first_in_canonical_order,
)
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.frameworks.framework import Framework, framework_of_api
from hybridize.analyzer.frameworks.python_stdlib import NAMEDTUPLE_FACTORIES
from hybridize.analyzer.frameworks.record_classes import RECORD_DECORATORS, RecordDecorator
from hybridize.analyzer.summaries.ir import DecoratorInfo, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    NONE,
    attr_base,
    attr_name,
    call_index,
    is_attr,
    is_call,
    is_item,
    is_lit,
    is_name,
    is_op,
    lit_type,
    lit_value,
    local_sym,
    name_sym,
    param_sym,
    sym_name,
)

DOTTED_NAME = re.compile(r"[A-Za-z_][\w.]*")
HashStatus = Literal["hashable", "unhashable", "inherits", "unknown"]
OPENED_SEQUENCES = frozenset({"list", "tuple"})
"""Python sequences whose elements `tf.function` types one by one (a set is hashed whole)."""


def _literal_bool(value: Sym) -> bool | None:
    return (
        cast("bool | None", lit_value(value))
        if is_lit(value) and lit_type(value) == "bool"
        else None
    )


def _decorator_status(decorator: DecoratorInfo, record: RecordDecorator) -> tuple[HashStatus, str]:
    """What a record decorator does to `__hash__`, from its literal keyword arguments."""
    keywords = dict(decorator.kwargs)
    eq, frozen = record.eq, record.frozen
    for name in record.hash_keywords:
        if name in keywords:
            value = _literal_bool(keywords[name])
            if value is None:
                return "unknown", ""
            if value:
                return "hashable", ""
            if record.hash_false_inherits:
                return "inherits", ""
    for name in record.eq_keywords:
        if name in keywords:
            value = _literal_bool(keywords[name])
            if value is None:
                return "unknown", ""
            eq = value
    if "frozen" in keywords:
        value = _literal_bool(keywords["frozen"])
        if value is None:
            return "unknown", ""
        frozen = value
    if not eq:
        return "inherits", ""
    if frozen:
        return "hashable", ""
    return "unhashable", f"`@{decorator.name}` compares fields and is not frozen"


def own_hash_status(index: ProjectIndex, class_key: ClassKey) -> tuple[HashStatus, str]:
    """What the class's own body and decorators make of `__hash__`, with the reason."""
    cls = index.klass(class_key)
    body = index.modules[class_key.file].functions.get(f"{cls.qualname}.<body>")
    assigned = body.locals if body is not None else {}
    if "__hash__" in cls.methods:
        return "hashable", ""
    if "__hash__" in assigned:
        if all(v == NONE for v in assigned["__hash__"]):
            return "unhashable", "it sets `__hash__ = None`"
        return "hashable", ""
    relpath = class_key.file
    for decorator in cls.decorators:
        ref = index.resolve_dotted(relpath, decorator.name)
        record = RECORD_DECORATORS.get(ref[1]) if is_ext_ref(ref) else None
        if record is not None:
            status, reason = _decorator_status(decorator, record)
            if status != "inherits":
                return status, reason
    if "__eq__" in cls.methods or "__eq__" in assigned:
        return "unhashable", "it defines `__eq__` without `__hash__`"
    return "inherits", ""


def unhashable_variable_class(dotted: str) -> Framework | None:
    """The framework of a variable class whose instances refuse to hash (`tf.Variable`,
    `tf.compat.v1.Variable`...: `Framework.unhashable_variables`), as its tables know it;
    None for any other class."""
    info = lookup(dotted)
    if info is None or info.kind != "class" or info.returns != "variable":
        return None
    owner = framework_of_api(info.framework)
    return owner if owner is not None and owner.unhashable_variables else None


def hash_status(
    index: ProjectIndex, class_key: ClassKey, seen: frozenset[ClassKey] = frozenset()
) -> tuple[HashStatus, str]:
    """Whether instances of a project class hash: its own body first, then its bases in
    order (a base outside the project, other than `object`, is not known, but for a
    TensorFlow variable class, whose instances never hash)."""
    status, reason = own_hash_status(index, class_key)
    if status != "inherits":
        return status, reason
    for base, ref in zip(index.klass(class_key).bases, index.base_refs(class_key), strict=True):
        if is_class_ref(ref) and ref_key(ref) not in seen:
            status, reason = hash_status(index, ref[1], seen | {class_key})
            if status == "unhashable":
                return status, f"its base `{base}`: {reason}"
            if status != "inherits":
                return status, reason
        elif is_ext_ref(ref) and (owner := unhashable_variable_class(ref[1])) is not None:
            return (
                "unhashable",
                f"its base `{base}` is a {owner.title} variable, which never hashes",
            )
        elif ref != ("ext", "builtins.object"):
            return "unknown", f"base `{base}` is outside the project"
    return "inherits", ""


def implements_tracing_protocol(index: ProjectIndex, class_key: ClassKey) -> bool:
    """The class (or a project base) defines `__tf_tracing_type__`: tf.function types an
    argument of it through that protocol, without hashing it (larq's `QuantizedVariable`
    passed to a tf.function). The receiver of a method is hashed all the same."""
    return any("__tf_tracing_type__" in index.klass(key).methods for key in index.mro(class_key))


def opened_record(index: ProjectIndex, class_key: ClassKey) -> bool:
    """The class or a project base is decorated by a record decorator whose instances
    `tf.function` opens field by field as arguments (attrs: `RecordDecorator.opened`): such
    an argument is never hashed, whatever its `__hash__`. The receiver of a method is."""
    for key in index.mro(class_key):
        relpath = key.file
        for decorator in index.klass(key).decorators:
            ref = index.resolve_dotted(relpath, decorator.name)
            record = RECORD_DECORATORS.get(ext_dotted(ref)) if is_ext_ref(ref) else None
            if record is not None and record.opened:
                return True
    return False


def unhashable_part(
    index: ProjectIndex, atom: Atom, depth: int = 0, tensor_fields: Mapping[ClassKey, str] = {}
) -> str | None:
    """Words for the first unhashable object the value may be or contain, else None;
    `tensor_fields`: the classes hashed by their fields built with a tensor field
    (`unhashable_field_constructions`)."""
    kind: AtomKind = atom[0]
    if kind == "seq":
        if atom[1] == "set":
            return "a set"
        if atom[1] in OPENED_SEQUENCES and depth < MAX_NESTING:
            return _first(index, atom[2], depth + 1, tensor_fields)
    elif kind == "tup" and depth < MAX_NESTING:
        return _first(index, (a for part in atom[1] for a in part), depth + 1, tensor_fields)
    elif kind == "dict" and depth < MAX_NESTING:
        return _first(index, atom[1], depth + 1, tensor_fields)
    elif (
        kind == "obj"
        and is_project_class(index, atom[2])
        and not implements_tracing_protocol(index, atom[2])
        and not opened_record(index, atom[2])
    ):
        status, reason = hash_status(index, atom[2])
        if status == "unhashable":
            return f"an instance of `{atom[2].qualname}` ({reason})"
        if status == "hashable" and atom[2] in tensor_fields:
            return field_hash_failure(atom[2], tensor_fields[atom[2]])
    return None


def _first(
    index: ProjectIndex,
    atoms: Iterable[Atom],
    depth: int,
    tensor_fields: Mapping[ClassKey, str] = {},
) -> str | None:
    """The unhashable part of the first atom that has one, in the same order in every run
    (`unhashable_part` is pure). Only a container or an object may have one: the atoms of
    other kinds (most of them: tensors, literals) are left out without a call."""
    parts: list[Atom] = []
    for atom in atoms:
        kind: AtomKind = atom[0]
        if kind in _PART_KINDS:
            parts.append(atom)
    if not parts:
        return None
    return first_in_canonical_order(
        parts, lambda atom: unhashable_part(index, atom, depth, tensor_fields)
    )


_PART_KINDS: frozenset[AtomKind] = frozenset({"seq", "tup", "dict", "obj"})
"""The kinds of atom `unhashable_part` may answer for."""


def is_project_class(index: ProjectIndex, key: object) -> bool:
    """A class of the project (an object atom's class may be None: a framework's)."""
    if not isinstance(key, FunctionKey):
        return False
    relpath, qualname = key
    module = index.modules.get(relpath)
    return module is not None and qualname in module.classes


UNHASHABLE_FIELD_KINDS = frozenset({"tensor", "variable", "numpy"})
"""Values whose `hash` raises (a tensor, a variable, a NumPy array): as a field of a
dataclass hashed by its fields they fail `hash(instance)`."""

FIELD_HASHED = "hashability_field_hashed"
"""The `facts.cache` entry of `unhashable_field_constructions`."""


def _hashes_fields(index: ProjectIndex, class_key: ClassKey) -> bool:
    """Instances of the class hash by their fields: the first class of its project MRO that
    decides `__hash__` does so by a record decorator (`@dataclasses.dataclass(frozen=True)`
    or `unsafe_hash=True`, `@attr.s(frozen=True)`, `@attrs.frozen`), not by a `__hash__` of
    its own. `tf.function` calls that hash on a dataclass argument, and on the receiver of
    a method of either (an attrs argument is opened field by field: `opened_record`)."""
    for key in index.mro(class_key):
        cls = index.klass(key)
        body = index.modules[key.file].functions.get(f"{cls.qualname}.<body>")
        if "__hash__" in cls.methods or (body is not None and "__hash__" in body.locals):
            return False
        status, _ = own_hash_status(index, key)
        if status == "hashable":
            return any(
                is_ext_ref(ref := index.resolve_dotted(key.file, decorator.name))
                and ext_dotted(ref) in RECORD_DECORATORS
                for decorator in cls.decorators
            )
        if status != "inherits":
            return False
    return False


def unhashable_field_constructions(index: ProjectIndex, facts: TensorFacts) -> dict[ClassKey, str]:
    """The classes hashed by their fields (`_hashes_fields`) that the project constructs
    with a tensor, variable or NumPy array among the arguments, each with words for the
    first such construction. Once per solve: the project's calls are read only when it has
    such a class."""
    found = cast("dict[ClassKey, str] | None", facts.cache.get(FIELD_HASHED))
    if found is not None:
        return found
    found = {}
    facts.cache[FIELD_HASHED] = found
    hashed = {
        key
        for relpath, module in index.modules.items()
        for qualname, cls in module.classes.items()
        if cls.decorators and _hashes_fields(index, key := FunctionKey(relpath, qualname))
    }
    if not hashed:
        return found
    for caller in sorted(facts.calls, key=str):
        for resolved in facts.calls[caller]:
            if not resolved.constructs:
                continue
            for kind, target in resolved.targets:
                if kind != "class" or target not in hashed or target in found:
                    continue
                values = (*resolved.args, *resolved.kwargs.values())
                if any(a[0] in UNHASHABLE_FIELD_KINDS for atoms in values for a in atoms):
                    line = resolved.site.span.start_line
                    found[target] = f"{caller.file}, line {line}"
    return found


def field_hash_failure(class_key: ClassKey, where: str) -> str:
    """Words for a dataclass hashed by its fields that the project builds with a tensor
    (an array, a variable) in a field (`where`): hashing it raises (measured on TF 2.21:
    "Could not generate a generic TraceType";
    tests/analyzer/test_python_object_arguments_measured.py)."""
    return (
        f"an instance of `{class_key.qualname}` (a frozen record class, hashed by its fields, "
        f"built with a tensor or array field ({where}), whose hash raises)"
    )


def _annotated(
    index: ProjectIndex,
    key: FunctionKey,
    annotation: str | None,
    tensor_fields: Mapping[ClassKey, str] = {},
) -> str | None:
    """An unhashable project class the annotation names (`Spec`, `Sequence[Spec]`,
    `Optional[Spec]`): the parameter is declared to receive its instances."""
    if not annotation:
        return None
    relpath = key.file
    for name in sorted(set(DOTTED_NAME.findall(annotation))):
        ref = index.resolve_dotted(relpath, name)
        if is_class_ref(ref) and not opened_record(index, ref_key(ref)):
            status, reason = hash_status(index, ref[1])
            if status == "unhashable":
                return f"instances of `{name}` by its annotation ({reason})"
            if status == "hashable" and ref[1] in tensor_fields:
                return f"(by its annotation) {field_hash_failure(ref[1], tensor_fields[ref[1]])}"
    return None


def receiver_class(index: ProjectIndex, key: FunctionKey) -> ClassKey | None:
    """The class of the receiver `tf.function` keys a method's traces on: the method's class
    when it binds `self` (not a class or static method), else None."""
    fn = index.function(key)
    decorators = {d.name.rsplit(".", 1)[-1] for d in fn.decorators}
    if (
        fn.binds_receiver
        and fn.class_qualname is not None
        and not decorators & {"classmethod", "staticmethod"}
    ):
        return key.sibling(fn.class_qualname)
    return None


def unhashable_receiving_subclass(
    index: ProjectIndex, key: FunctionKey, class_key: ClassKey
) -> tuple[str, str] | None:
    """A project subclass of the method's class whose instances cannot be hashed and that
    runs the method with `self` one of them: it inherits the method, or overrides it and
    calls it through `super()`. A method compiled on a hashable base class keys its traces
    on the subclass instance all the same (seqio 0.0.20: `Vocabulary.encode_tf`, inherited
    by five vocabularies that define `__eq__` alone, fails with "unhashable type:
    'SentencePieceVocabulary'"; tests/analyzer/test_unhashable_subclass_receivers_measured.py
    measures it again). The first such subclass (qualified name) with its reason, or None."""
    name = key.qualname.rsplit(".", 1)[-1]
    for subclass in sorted(index.subclasses(class_key), key=str):
        method = index.find_method(subclass, name)
        if method != key and (method is None or not _calls_super_method(index, method, name)):
            continue
        status, reason = hash_status(index, subclass)
        if status == "unhashable":
            return index.klass(subclass).qualname, reason
    return None


def _calls_super_method(index: ProjectIndex, key: FunctionKey, name: str) -> bool:
    """Whether the method calls `super().name(...)`."""
    fn = index.function(key)
    for call in fn.calls:
        callee = call.callee
        if is_attr(callee) and attr_name(callee) == name:
            base = attr_base(callee)
            if is_call(base) and fn.calls[call_index(base)].callee == SUPER:
                return True
    return False


SUPER = name_sym("super")
"""How `super` is written in a summary (the callee of `super()`)."""


def unhashable_arguments(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """Parameters (the receiver of a method too) that may receive an unhashable object."""
    fn = index.function(key)
    found: list[Evidence] = []
    class_key = receiver_class(index, key)
    tensor_fields = unhashable_field_constructions(index, facts)
    if class_key is not None and class_key in tensor_fields:
        found.append(
            Evidence(
                f"`self` is {field_hash_failure(class_key, tensor_fields[class_key])}: a "
                "`tf.function` method keys its traces on `self`",
                fn.span,
            )
        )
    elif class_key is not None:
        status, reason = hash_status(index, class_key)
        if status == "unhashable":
            found.append(
                Evidence(
                    f"instances of `{fn.class_qualname}` cannot be hashed ({reason}): "
                    "a `tf.function` method keys its traces on `self` and fails with "
                    '"unhashable type"',
                    fn.span,
                )
            )
        elif (subclass := unhashable_receiving_subclass(index, key, class_key)) is not None:
            name, reason = subclass
            found.append(
                Evidence(
                    f"`self` may be an instance of the subclass `{name}`, which cannot be "
                    f"hashed ({reason}): a `tf.function` method keys its traces on `self` "
                    'and fails with "unhashable type"',
                    fn.span,
                )
            )
    evaluator = get_evaluator(index, facts, key)
    for param in fn.explicit_params:
        atoms = evaluator.eval(param_sym(param.name))
        what = _first(index, atoms, 0, tensor_fields) or _annotated(
            index, key, param.annotation, tensor_fields
        )
        if what is None:
            continue
        found.append(
            Evidence(
                f"`{param.name}` may receive {what}: `tf.function` keys its traces on every "
                'argument and fails on an object it cannot hash ("Could not generate a '
                'generic TraceType")',
                fn.span,
            )
        )
    return found


def mapping_rebuilt_wrong(
    index: ProjectIndex, class_key: ClassKey, framework: Framework
) -> str | None:
    """Words for a project mapping class (a `dict`, `OrderedDict` or `Mapping` subclass)
    that `tf.function` cannot rebuild as it was, None for any other class and for one it
    rebuilds faithfully. TF 2.21 rebuilds a mapping argument as `type(x)(pairs)`
    (`default_types.Dict.placeholder_value`, a list of pairs) and a returned one both as
    `type(x)()` filled item by item (`nest.sequence_like`) and as `type(x)(pairs)`
    (`Dict.from_tensors`, a generator of pairs). Faithful: no project class defines
    `__init__`, or the first that does requires no argument, takes a positional one (or
    `*args`) and hands it to the base's `__init__` (`super().__init__(*args, **kwargs)`,
    `dict.__init__(self, pairs)`), and sets no item or attribute of `self` from its
    parameters. Measured on TF 2.21 (HY442, HY407): `__init__(self, x)` fails (TypeError);
    `__init__(self, alpha=0, beta=0)` setting `self["alpha"] = alpha` comes back with
    `alpha` the generator of pairs and `beta` 0, silently."""
    outside = {ext_dotted(ref) for ref in index.external_bases(class_key) if is_ext_ref(ref)}
    rebuilt = framework.traced_rebuilt_mappings
    if not outside & rebuilt or implements_tracing_protocol(index, class_key):
        return None
    init = next(
        (
            index.modules[key.file].functions.get(f"{index.klass(key).qualname}.__init__")
            for key in index.mro(class_key)
            if "__init__" in index.klass(key).methods
        ),
        None,
    )
    if init is None or len(init.params) < 1:
        return None
    name = f"`{init.qualname}`"
    own = init.params[1:]
    required = [p.name for p in own if p.kind not in ("vararg", "kwarg") and p.default is None]
    if required:
        return (
            f"{name} requires `{required[0]}`: `tf.function` rebuilds the mapping by calling "
            "its class with no argument or with the pairs alone (TypeError)"
        )
    carrier = next((p.name for p in own if p.kind == "vararg"), None) or next(
        (p.name for p in own if p.kind in ("posonly", "normal")), None
    )
    if carrier is None:
        return (
            f"{name} takes no positional argument: `tf.function` rebuilds the mapping as "
            "`type(x)(pairs)` (TypeError)"
        )
    forwarded = any(
        is_attr(site.callee)
        and attr_name(site.callee) == "__init__"
        and local_sym(carrier) in (*site.args, *site.star_values)
        for site in init.calls
    )
    if not forwarded:
        return (
            f"{name} does not hand its positional argument `{carrier}` to the mapping: "
            f"`tf.function` rebuilds it as `type(x)(pairs)`, whose `{carrier}` is then the "
            "pairs (another object, silently, or a TypeError)"
        )
    params = {local_sym(p.name) for p in own} | {param_sym(p.name) for p in own}
    self_syms = {local_sym(init.params[0].name), param_sym(init.params[0].name)}
    for store in init.stores:
        if (
            store.kind in ("attr", "item")
            and store.target in self_syms
            and any(sym in params for sym in walk_syms((store.value,), made_of))
        ):
            shown = f"`self.{store.name}`" if store.kind == "attr" else "an item of `self`"
            return (
                f"{name} sets {shown} from its parameters: the object `tf.function` rebuilds "
                "from the pairs is not the one made"
            )
    return None


def is_namedtuple_class(index: ProjectIndex, class_key: ClassKey) -> bool:
    """A project class made by `collections.namedtuple` or `typing.NamedTuple`, or based on
    one (directly, or on a module name bound to a `namedtuple(...)` call)."""
    for key in index.mro(class_key):
        for ref in index.base_refs(key):
            if is_ext_ref(ref) and ext_dotted(ref) in NAMEDTUPLE_FACTORIES:
                return True
            if is_global_ref(ref):
                _, relpath, name = ref
                if _binds_namedtuple(index, relpath, name):
                    return True
    return False


def names_namedtuple(index: ProjectIndex, relpath: str, callee: Sym) -> bool:
    """Whether `callee`, as written in module `relpath`, names a module binding made by a
    `namedtuple(...)` call (`NT = collections.namedtuple(...)`, here or imported): a call of
    it builds a named tuple, though no project class stands for it."""
    dotted = _dotted(callee)
    if dotted is None:
        return False
    ref = index.resolve_dotted(relpath, dotted)
    if not is_global_ref(ref):
        return False
    _, module, name = ref
    return _binds_namedtuple(index, module, name)


def _binds_namedtuple(index: ProjectIndex, relpath: str, name: str) -> bool:
    """The module binds `name` only to the result of a `namedtuple(...)` call."""
    module = index.modules.get(relpath)
    if module is None:
        return False
    code = module.module_code
    values = code.locals.get(name, ())
    return bool(values) and all(
        is_call(value)
        and call_index(value) < len(code.calls)
        and (callee := _dotted(code.calls[call_index(value)].callee)) is not None
        and ext_dotted_or_none(index, relpath, callee) in NAMEDTUPLE_FACTORIES
        for value in values
    )


def _dotted(sym: Sym) -> str | None:
    """`a.b.c` for a free name and the attributes read on it, else None."""
    parts: list[str] = []
    while is_attr(sym):
        parts.append(attr_name(sym))
        sym = attr_base(sym)
    if not is_name(sym):
        return None
    return ".".join([sym_name(sym), *reversed(parts)])


def ext_dotted_or_none(index: ProjectIndex, relpath: str, dotted: str) -> str | None:
    """What a dotted name of a module resolves to outside the project, or None."""
    ref = index.resolve_dotted(relpath, dotted)
    return ext_dotted(ref) if is_ext_ref(ref) else None


def namedtuple_rebuilt_wrong(index: ProjectIndex, class_key: ClassKey) -> str | None:
    """Words for a project named tuple class (`is_namedtuple_class`) that `tf.function`
    cannot rebuild as it was, None for any other class and for one it rebuilds faithfully.
    TF 2.21 rebuilds a named tuple as `type(x)(*fields)`: an argument from its fields'
    `TensorSpec`s and then their tensors, a returned one from the graph's outputs
    (`nest.sequence_like`). So the first `__new__` a project class defines must take the
    fields by position and hand them to the base's `__new__` unchanged, and the first
    `__init__` must need no keyword and keep no attribute of its parameters (which the
    rebuild does not pass again). Measured on TF 2.21 (tests/analyzer/
    test_rebuilt_namedtuples_measured.py): `__new__(cls, a, b)` passing `b + 1` comes back
    with `b` incremented again (silently); `__new__(cls, a)` making two fields, or a required
    keyword, fails (TypeError); `__init__(self, a, b, note=None)` setting `self.note` comes
    back with `note` None; `__init__(self, *args, **kwargs)` validating the fields
    (graph_nets' `GraphsTuple`) and added methods come back equal."""
    if not is_namedtuple_class(index, class_key) or implements_tracing_protocol(index, class_key):
        return None
    for method in ("__new__", "__init__"):
        fn = next(
            (
                index.modules[key.file].functions.get(f"{index.klass(key).qualname}.{method}")
                for key in index.mro(class_key)
                if method in index.klass(key).methods
            ),
            None,
        )
        if fn is None or not fn.params:
            continue
        name = f"`{fn.qualname}`"
        own = fn.params[1:]
        keyword = next((p.name for p in own if p.kind == "kwonly" and p.default is None), None)
        if keyword is not None:
            return (
                f"{name} requires the keyword `{keyword}`: `tf.function` rebuilds the named "
                "tuple as `type(x)(*fields)` (TypeError)"
            )
        if method == "__new__":
            wrong = _new_changes_fields(fn)
            if wrong is not None:
                return (
                    f"{name} {wrong}: `tf.function` rebuilds the named tuple as "
                    "`type(x)(*fields)`, calling it again on the fields it made (other "
                    "values, silently, or a TypeError)"
                )
            continue
        params = {local_sym(p.name) for p in own} | {param_sym(p.name) for p in own}
        self_syms = {local_sym(fn.params[0].name), param_sym(fn.params[0].name)}
        for store in fn.stores:
            if (
                store.kind == "attr"
                and store.target in self_syms
                and any(sym in params for sym in walk_syms((store.value,), made_of))
            ):
                return (
                    f"{name} sets `self.{store.name}` from its parameters: `tf.function` "
                    "rebuilds the named tuple as `type(x)(*fields)`, which passes the fields "
                    "alone (the attribute comes back from them, or None)"
                )
    return None


SPEC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "name"})
"""What a field's `TensorSpec` answers as the tensor does (`int(self.x.shape[0])` is the same
Python value in both rebuilds; measured)."""


def namedtuple_argument_rebuilt_wrong(index: ProjectIndex, class_key: ClassKey) -> str | None:
    """`namedtuple_rebuilt_wrong`, and for an ARGUMENT of the class also an `__init__` that
    computes an attribute from the fields (`self.n = tf.shape(self.x)[0]`, `self.total =
    self.x + self.y`, `self.v = self.x.numpy()`). TF 2.21 rebuilds an argument first from its
    fields' `TensorSpec`s, `type(x)(*specs)`, and then from the symbolic tensors: the
    computation raises while tracing (TypeError on the specs, AttributeError for `.numpy()`);
    only what a spec answers as the tensor does (`self.x.shape`, `.dtype`) comes back the
    same. A named tuple RETURNED is rebuilt from the eager outputs after the call, and
    computes its attributes as eagerly (measured: tests/analyzer/
    test_rebuilt_namedtuples_measured.py), so this is no `namedtuple_rebuilt_wrong`."""
    wrong = namedtuple_rebuilt_wrong(index, class_key)
    if wrong is not None or not is_namedtuple_class(index, class_key):
        return wrong
    if implements_tracing_protocol(index, class_key):
        return None
    for key in index.mro(class_key):
        if "__init__" not in index.klass(key).methods:
            continue
        fn = index.modules[key.file].functions.get(f"{index.klass(key).qualname}.__init__")
        if fn is None or not fn.params:
            return None
        self_syms = {local_sym(fn.params[0].name), param_sym(fn.params[0].name)}
        for store in fn.stores:
            if store.kind == "attr" and store.target in self_syms:
                read = _field_computation(fn, store.value, self_syms)
                if read is not None:
                    return (
                        f"`{fn.qualname}` computes `self.{store.name}` from `self.{read}`: "
                        "`tf.function` rebuilds a named tuple argument as `type(x)(*fields)`, "
                        "first from its fields' TensorSpecs, and the computation raises "
                        "while tracing (TypeError)"
                    )
        return None
    return None


def _field_computation(fn: FunctionSummary, value: Sym, self_syms: set[Sym]) -> str | None:
    """The attribute of `self` that `value` computes with (an operation, a call, a method or
    attribute other than what a TensorSpec answers), or None: `self.x + 1`, `tf.shape(self.x)`,
    `self.x.numpy()`; not `self.x` as it is, `self.x.shape[0]`, `int(self.x.shape[0])`."""
    stack: list[tuple[Sym, bool]] = [(value, False)]
    seen: set[Sym] = set()
    while stack:
        sym, computed = stack.pop()
        if sym in seen:
            continue
        seen.add(sym)
        if is_attr(sym) and attr_base(sym) in self_syms:
            if computed:
                return attr_name(sym)
            continue
        if is_attr(sym) and attr_name(sym) in SPEC_ATTRIBUTES:
            continue  # `self.x.shape`: answered by the spec as by the tensor
        if is_attr(sym):
            stack.append((attr_base(sym), True))  # `self.x.numpy`
            continue
        if is_call(sym) and call_index(sym) < len(fn.calls):
            site = fn.calls[call_index(sym)]
            stack.extend((part, True) for part in (site.callee, *site.args))
            stack.extend((part, True) for _, part in site.kwargs)
            continue
        locals_ = local_values(fn, sym)
        if locals_:
            stack.extend((part, computed) for part in locals_)
            continue
        # an operation or a subscript computes; a display or a conditional holds the value
        stack.extend((part, computed or is_item(sym) or is_op(sym)) for part in made_of(sym))
    return None


def _new_changes_fields(fn: FunctionSummary) -> str | None:
    """How a named tuple's `__new__` does not hand its positional parameters, unchanged and
    in order, to the base's `__new__` (`super().__new__(cls, a, b)`, `*args`), or None."""
    positional = [p for p in fn.params[1:] if p.kind in ("posonly", "normal")]
    star = next((p.name for p in fn.params[1:] if p.kind == "vararg"), None)
    for site in fn.calls:
        if not is_attr(site.callee) or attr_name(site.callee) != "__new__":
            continue
        passed = site.args[1:]
        if star is not None and local_sym(star) in site.star_values and not positional:
            return None
        # The fields are its leading positional parameters; those after them, left to
        # their defaults by the rebuild, are not the base's (the `__init__` may keep them).
        expected = [local_sym(p.name) for p in positional[: len(passed)]]
        rest = positional[len(passed) :]
        if (
            list(passed) == expected
            and not site.has_star_args
            and all(p.default is not None for p in rest)
        ):
            return None
        return "does not hand its parameters to the base's `__new__` unchanged and in order"
    return "does not call the base's `__new__`"
