"""The vocabulary of references (`Ref`): what a name refers to, project-wide, with one
constructor, one typed shape and one test per kind.

A reference is a plain tuple whose first element names its kind, for the reasons symbolic
values are (`summaries/syms.py`), and because a function's, a class's, a module's or an
external name's reference is also the atom of its value (`evaluator.ref_atoms`): the same
tuple serves both vocabularies.

    ("module", relpath)        a module of the project
    ("func", key)              a project function, by its `FunctionKey`
    ("class", key)             a project class, by its `ClassKey`
    ("global", relpath, name)  a module-level variable of the project
    ("ext", "dotted.name")     something outside the project (tensorflow.keras.Model, print...)
    ("?",)                     unknown
"""

from __future__ import annotations

from typing import Literal, TypeGuard

from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey

Ref = tuple
"""What a name refers to: a plain tuple whose first element names its kind (the module's
docstring lists them)."""

RefKind = Literal["?", "module", "func", "class", "global", "ext"]
"""The kinds of reference, typed as `SymKind` is (`summaries/syms.py`)."""

UnknownRef = tuple[Literal["?"]]
ModuleRef = tuple[Literal["module"], str]
FuncRef = tuple[Literal["func"], FunctionKey]
ClassRef = tuple[Literal["class"], ClassKey]
GlobalRef = tuple[Literal["global"], str, str]
ExtRef = tuple[Literal["ext"], str]

UNKNOWN_REF: UnknownRef = ("?",)


def module_ref(relpath: str) -> ModuleRef:
    return ("module", relpath)


def func_ref(key: FunctionKey) -> FuncRef:
    return ("func", key)


def class_ref(key: ClassKey) -> ClassRef:
    return ("class", key)


def global_ref(relpath: str, name: str) -> GlobalRef:
    """A module-level variable `name` of the module `relpath`."""
    return ("global", relpath, name)


def ext_ref(dotted: str) -> ExtRef:
    """A name outside the project, by its canonical dotted name."""
    return ("ext", dotted)


def ref_kind(ref: Ref) -> RefKind:
    """The kind of a reference, typed (see `RefKind`)."""
    kind: RefKind = ref[0]
    return kind


def ref_key(ref: FuncRef | ClassRef) -> FunctionKey:
    """The project function or class a reference names."""
    return ref[1]


def module_relpath(ref: ModuleRef) -> str:
    """The relpath of the project module a module reference names."""
    return ref[1]


def ext_dotted(ref: ExtRef) -> str:
    """The canonical dotted name of what an external reference names."""
    return ref[1]


def is_module_ref(ref: Ref) -> TypeGuard[ModuleRef]:
    return ref[0] == "module"


def is_func_ref(ref: Ref) -> TypeGuard[FuncRef]:
    return ref[0] == "func"


def is_class_ref(ref: Ref) -> TypeGuard[ClassRef]:
    return ref[0] == "class"


def is_global_ref(ref: Ref) -> TypeGuard[GlobalRef]:
    return ref[0] == "global"


def is_ext_ref(ref: Ref) -> TypeGuard[ExtRef]:
    return ref[0] == "ext"
