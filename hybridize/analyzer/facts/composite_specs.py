"""Project subclasses of auto-composite framework classes whose type spec cannot be built.

TensorFlow Probability 0.25's concrete distributions and bijectors are auto-composite tensors
(`Framework.auto_composite`; TensorFlow's from `tensorflow_rules.AUTO_COMPOSITE_NAMESPACES`): `tf.function` flattens such
a receiver, argument or return value by its type spec, which TFP builds from the `__init__`
parameters of the object's class, each read back as `obj.k`, `obj._k` or
`obj.parameters[k]`. A project subclass whose first `__init__` keeps a parameter under none of
those names, or takes `*args`/`**kwargs`, fails there (ValueError); eagerly no spec is built
(measured on TF 2.21: tests/analyzer/test_hy442_composite_specs_measured.py). HY442 owns such a
receiver or argument, HY407 such a return value.
"""

from __future__ import annotations

from hybridize.analyzer.facts.refs import ext_dotted, is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import ClassKey
from hybridize.analyzer.summaries.syms import (
    attr_name,
    is_attr,
    is_name,
    local_sym,
    param_sym,
    sym_name,
)


def own_members(index: ProjectIndex, class_key: ClassKey) -> set[str]:
    """The names the class and its project bases define: methods and class-body names."""
    found: set[str] = set()
    for key in index.mro(class_key):
        cls = index.klass(key)
        found.update(cls.methods)
        body = index.modules[key.file].functions.get(f"{cls.qualname}.<body>")
        if body is not None:
            found.update(body.locals)
    return found


def _self_attributes(index: ProjectIndex, class_key: ClassKey) -> set[str]:
    """The attributes the methods of the class and of its project bases set on `self`."""
    found: set[str] = set()
    for key in index.mro(class_key):
        cls = index.klass(key)
        functions = index.modules[key.file].functions
        for method in cls.methods:
            fn = functions.get(f"{cls.qualname}.{method}")
            if fn is None or not fn.params:
                continue
            self_syms = {local_sym(fn.params[0].name), param_sym(fn.params[0].name)}
            found.update(
                store.name
                for store in fn.stores
                if store.kind == "attr" and store.target in self_syms
            )
    return found


def _handed_to_base(fn: FunctionSummary, name: str) -> bool:
    """The parameter goes to a base's `__init__` under its own name (`scores=scores`: the
    framework base keeps it in `parameters`) or by position (the base's name for that position
    is not known here: taken as kept)."""
    values = {local_sym(name), param_sym(name)}
    for site in fn.calls:
        if not (is_attr(site.callee) and attr_name(site.callee) == "__init__"):
            continue
        if any(arg in values for arg in site.args):
            return True
        if any(keyword == name and value in values for keyword, value in site.kwargs):
            return True
    return False


def _calls_any(fn: FunctionSummary, names: set[str]) -> bool:
    """The function calls a builtin of these names (`locals()`)."""
    return any(is_name(site.callee) and sym_name(site.callee) in names for site in fn.calls)


def unbuildable_composite(
    index: ProjectIndex, class_key: ClassKey, framework: Framework
) -> str | None:
    """Words for a project subclass of an auto-composite framework class (a TensorFlow
    Probability distribution or bijector: `Framework.auto_composite`) whose type spec cannot be
    built: the first `__init__` the class or a project base defines takes `*args` or
    `**kwargs`, or keeps a parameter under none of the names TFP reads it back by (`self.k`,
    `self._k`, a member `k` or `_k` of the class or a project base, a name every such base
    answers, or handed to the base's `__init__` as `k=k` or by position). One that passes
    `parameters = dict(locals())` on (or calls `setattr`) keeps them all. None for any other
    class."""
    outside = [ext_dotted(ref) for ref in index.external_bases(class_key) if is_ext_ref(ref)]
    if not any(framework.auto_composite(dotted) for dotted in outside):
        return None
    init_key = index.find_method(class_key, "__init__")
    init = (
        None if init_key is None else index.modules[init_key.file].functions.get(init_key.qualname)
    )
    if init is None or not init.params:
        return None  # the framework's own `__init__`: its parameters are kept
    name = f"`{init.qualname}`"
    starred = [p for p in init.params[1:] if p.kind in ("vararg", "kwarg")]
    if starred:
        shown = ("*" if starred[0].kind == "vararg" else "**") + starred[0].name
        return (
            f"{name} takes `{shown}`: TensorFlow Probability builds the type spec "
            "`tf.function` flattens the object by from the named parameters of `__init__` "
            'and rejects it ("ValueError: *args and **kwargs are not supported")'
        )
    if _calls_any(init, {"locals", "setattr", "vars"}):
        return None  # `parameters = dict(locals())` handed on: every parameter kept
    kept = own_members(index, class_key) | _self_attributes(index, class_key)
    kept |= framework.auto_composite_answers
    lost = [
        p.name
        for p in init.params[1:]
        if p.name not in kept and f"_{p.name}" not in kept and not _handed_to_base(init, p.name)
    ]
    if not lost:
        return None
    return (
        f"{name} keeps its parameter `{lost[0]}` under no name it can be read back by "
        f"(`self.{lost[0]}`, `self._{lost[0]}`, `parameters['{lost[0]}']`): the object is a "
        "TensorFlow Probability composite tensor, which `tf.function` flattens by a type spec "
        "built from the `__init__` parameters read back so, and the call fails "
        f'("ValueError: Could not determine an appropriate value for field `{lost[0]}`")'
    )
