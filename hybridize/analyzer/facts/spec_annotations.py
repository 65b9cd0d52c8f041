"""Type annotations that declare a `tf.TypeSpec`: a source of facts about what a value holds.

`restore(value, value_spec: tf.TensorSpec)`, or tensorflow-gnn's
`__init__(self, features_spec: FeaturesSpec)` with `FeaturesSpec = Mapping[str,
tf.RaggedTensorSpec]`: the names in the annotation (through module-level aliases, and project
classes deriving from a framework spec class) name a spec class the framework tables know.

An annotation is a claim Python does not check, so it only adds a possibility: a value so
annotated *may* be a spec (or a dict or list of them, as its outer type says), besides
whatever else the callers pass, an unknown value when nothing else is known. HY427 reads it
both on the function's own parameters and where such a value flows (an attribute set from
the parameter, then handed to a `map_structure` callback).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from hybridize.analyzer.facts.refs import (
    Ref,
    ext_dotted,
    is_class_ref,
    is_ext_ref,
    is_global_ref,
    ref_key,
)
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import SPEC, Atoms, dict_atom, seq_atom
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.summaries.keys import ClassKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    is_attr,
    is_item,
    is_local,
    is_name,
)

DOTTED_NAME = re.compile(r"[A-Za-z_][\w.]*")
MAX_BASE_DEPTH = 8
"""How far up a project class's bases a framework spec class is looked for."""
MAX_ALIAS_DEPTH = 6
"""How many module-level aliases an annotation is followed through."""


def is_spec_class(dotted: str) -> bool:
    """A framework class whose instances are type specs (`tf.TensorSpec`, `tf.TypeSpec`,
    `tf.RaggedTensorSpec`...), as the framework tables know it (role "spec")."""
    info = lookup(dotted)
    return info is not None and info.kind == "class" and info.returns == SPEC_ROLE


SPEC_ROLE = "spec"
"""The role the framework tables give type specs and what makes them."""


def _project_spec_class(index: ProjectIndex, class_key: ClassKey, depth: int = 0) -> bool:
    """A project class deriving from a framework spec class (tensorflow-gnn's
    `GraphTensorSpec`, through `BatchableExtensionTypeSpec`)."""
    if depth > MAX_BASE_DEPTH:
        return False
    for ref in index.base_refs(class_key):
        if is_ext_ref(ref) and is_spec_class(ext_dotted(ref)):
            return True
        if is_class_ref(ref) and _project_spec_class(index, ref_key(ref), depth + 1):
            return True
    return False


def annotated_spec(index: ProjectIndex, relpath: str, annotation: str | None) -> str | None:
    """The name in an annotation that stands for a spec class (`tf.TensorSpec`,
    `Optional[tf.TypeSpec]`, `GraphTensorSpec`, an alias such as tensorflow-gnn's
    `FeaturesSpec = Mapping[str, tf.RaggedTensorSpec]`), else None: the parameter is declared
    to receive specs."""
    if not annotation:
        return None
    for name in sorted(set(DOTTED_NAME.findall(annotation))):
        if _names_spec(index, index.resolve_dotted(relpath, name), 0):
            return name
    return None


def _names_spec(index: ProjectIndex, ref: Ref, depth: int) -> bool:
    """The name refers to a spec class, or to a module-level alias whose value names one."""
    if depth > MAX_ALIAS_DEPTH:
        return False
    if is_ext_ref(ref):
        return is_spec_class(ref[1])
    if is_class_ref(ref):
        return _project_spec_class(index, ref[1])
    if is_global_ref(ref):
        module = index.modules.get(ref[1])
        values = module.module_code.locals.get(ref[2], []) if module is not None else []
        return any(
            _names_spec(index, index.resolve_dotted(ref[1], dotted), depth + 1)
            for value in values
            for dotted in dotted_names(value)
        )
    return False


def dotted_names(value: object) -> Iterator[str]:
    """The dotted names an alias's value spells (`Union[tf.TensorSpec, Spec]`: `Union`,
    `tf.TensorSpec`, `Spec`): the name and attribute chains among its nested syms."""
    if isinstance(value, tuple) and value and isinstance(value[0], str):
        dotted = _dotted(value)
        if dotted is not None:
            yield dotted
            return
        parts: Iterable[object] = value[1:]
    elif isinstance(value, (tuple, list, frozenset)):
        parts = value
    else:
        return
    for part in parts:
        yield from dotted_names(part)


def _dotted(sym: tuple) -> str | None:
    if (is_name(sym) or is_local(sym)) and isinstance(sym[1], str):
        return sym[1]
    if is_attr(sym):
        base = _dotted(attr_base(sym))
        return f"{base}.{attr_name(sym)}" if base is not None else None
    return None


MAPPING_TYPES = frozenset({"Mapping", "MutableMapping", "Dict", "dict", "OrderedDict"})
"""Outer annotation types whose values are the spec (`Mapping[str, tf.TensorSpec]`)."""
SEQUENCE_TYPES = frozenset({"Sequence", "List", "list", "Tuple", "tuple", "Iterable"})
"""Outer annotation types whose elements are the spec (`List[tf.TensorSpec]`)."""


def spec_annotation_atoms(index: ProjectIndex, relpath: str, annotation: str | None) -> Atoms:
    """What a value annotated with a spec type may hold (empty for other annotations): a
    spec, and a dict or a list of them when the outer type (written, or an alias's value) is
    a mapping or a sequence. The evaluator adds an unknown value when no call site is known,
    since Python does not check annotations."""
    if annotated_spec(index, relpath, annotation) is None:
        return frozenset()
    inner = frozenset({SPEC})
    outer = _outer_type(index, relpath, annotation or "")
    if outer in MAPPING_TYPES:
        return frozenset({SPEC, dict_atom(inner)})
    if outer in SEQUENCE_TYPES:
        return frozenset({SPEC, seq_atom("list", inner)})
    return inner


def _outer_type(index: ProjectIndex, relpath: str, annotation: str) -> str:
    """The last part of the annotation's outer type name (`Mapping` for
    `typing.Mapping[str, X]`), following one module-level alias (`FeaturesSpec`)."""
    text = annotation.replace(" ", "")
    head = text.split("[", 1)[0]
    if "[" in text or not DOTTED_NAME.fullmatch(head):
        return head.rsplit(".", 1)[-1]
    ref = index.resolve_dotted(relpath, head)
    if not is_global_ref(ref):
        return head.rsplit(".", 1)[-1]
    module = index.modules.get(ref[1])
    values = module.module_code.locals.get(ref[2], []) if module is not None else []
    for value in values:
        if isinstance(value, tuple) and value and is_item(value):
            dotted = _dotted(value[1])
            if dotted is not None:
                return dotted.rsplit(".", 1)[-1]
    return ""
