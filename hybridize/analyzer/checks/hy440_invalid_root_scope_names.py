"""HY440 has_invalid_root_scope_names: a name TensorFlow checks only at a graph's root."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.callgraph import calls_by_result
from hybridize.analyzer.facts.evaluator import Evaluator, ResolvedCall
from hybridize.analyzer.facts.refs import ext_dotted, is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import is_lit_atom, is_obj_atom, obj_class
from hybridize.analyzer.frameworks import lookup_parameters
from hybridize.analyzer.summaries.hooks import FunctionEnd, SummaryContext, SummaryHook
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import attr_base, attr_name, is_attr, lit_value
from hybridize.model import Finding, Span

from . import TENSORFLOW_ONLY, Check

#: What TensorFlow requires of a name scope opened at the root of a graph (TF 2.21,
#: `ops._VALID_OP_NAME_REGEX`); inside another scope a leading `_` is allowed.
ROOT_SCOPE_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
#: What it requires of a name inside another scope (`ops._VALID_SCOPE_NAME_REGEX`).
SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


@dataclass(frozen=True, slots=True)
class OpenedScope:
    """A `with ...name_scope("literal"):` block of the function: the call opening it (an
    index into `FunctionSummary.calls`), its literal name, and the block's body."""

    call: int
    name: str
    body: Span


def _name_scope_call(node: ast.Call, context: SummaryContext) -> Iterator[bool]:
    """Marks a function that calls a `name_scope` with a literal name: its blocks are read
    once the function is walked (`_opened_scopes`)."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called == "name_scope" and _literal_name(node) is not None:
        yield True


def _literal_name(node: ast.Call) -> str | None:
    """The literal first argument (or `name=`) of a call, if a string."""
    given = (
        node.args[0]
        if node.args
        else next((k.value for k in node.keywords if k.arg == "name"), None)
    )
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return given.value
    return None


def _opened_scopes(marks: Sequence[object], end: FunctionEnd) -> Iterator[OpenedScope]:
    """The function's own `with` blocks opened by a call named `name_scope` with a literal
    name (nested functions' blocks are theirs: their calls have no index here)."""
    if end.definition is None:
        return
    for node in ast.walk(end.definition):
        if not isinstance(node, ast.With | ast.AsyncWith) or not node.body:
            continue
        for item in node.items:
            call = item.context_expr
            if not isinstance(call, ast.Call):
                continue
            name = _literal_name(call)
            index = end.call_index(call)
            if name is None or index is None:
                continue
            first, last = node.body[0], node.body[-1]
            body = Span(
                first.lineno,
                first.col_offset,
                last.end_lineno or last.lineno,
                last.end_col_offset if last.end_col_offset is not None else 0,
            )
            yield OpenedScope(index, name, body)


class HasInvalidRootScopeNames(Check):
    """Names an op or a name scope, in its own graph's root scope, with a name TensorFlow
    accepts only inside another scope, or never.

    What it detects
    ---------------
    In the function's own body: an operation's `name=` (by keyword or by position) or a
    `tf.name_scope(...)` argument that is a string literal not matching
    `^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$` (`"_loss"`, `"my loss"`), or the `__name__` of a
    project object's class (`self.__class__.__name__`, `type(self).__name__`) when that
    class, or a project class deriving from it, is named so (`_Private...`). Also a
    `super().call(...)` in a class deriving from a Keras convolution (`Conv1D`/`Conv2D`/
    `Conv3D`): Keras 2's `Conv.call` passes `name=self.__class__.__name__` to
    `tf.nn.convolution`, so a class of that family named with a leading `_` is such a name.
    Inside a `with ...name_scope("outer"):` block the function opens with a literal name
    valid at the root, a name is checked against the inner pattern (`^[A-Za-z0-9_.\\/>-]*$`:
    a leading `_` passes there, a space does not). A scope opened by a helper or a caller is
    not seen.

    Why it matters in graph mode
    ----------------------------
    Eagerly no name is checked. A `tf.function` traces its body in a new graph whose scope
    is the root, where a name scope must match the pattern: `ValueError: '_Private' is not a
    valid root scope name` while tracing, whether the compiled function is called eagerly or
    from another tf.function (measured under TF 2.21, tests/analyzer/test_hy440_root_scope_names.py;
    the same name inside `with tf.name_scope("outer")` passes, and a Keras layer's `__call__`
    opens the layer's scope first, so only a body run at the root fails). edward2's
    `Conv2DBatchEnsemble.call`, compiled, fails on its private subclass
    `_Conv2DBatchEnsembleNoFastWeights` (tf_keras). Keras 3's convolutions pass no name, but
    which Keras runs is the environment's (`TF_USE_LEGACY_KERAS`), so the check does not
    tell them apart.

    Example
    -------
        def f(x):
            return tf.add(x, x, name="_double")

    Instead
    -------
    Use a name matching the pattern (`name="double"`), or open a valid scope around it
    (`with tf.name_scope("f"):`), or leave the function eager.

    Not for torch.compile
    ---------------------
    About TensorFlow graph names; PyTorch ops have none.
    """

    code = "HY440"
    unblock = "use names matching ^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$ (no leading `_`), or open a valid name scope first"
    frameworks = TENSORFLOW_ONLY
    name = "has_invalid_root_scope_names"
    severity = "error"
    summary = "Names an op or scope, at its graph's root, with a name TensorFlow rejects there."
    EXAMPLE_FUNCTION = "Net.f"
    fact = "has_invalid_root_scope_names"
    fact_meaning = (
        "an op or name scope named, at the graph's root, with a name TensorFlow rejects there"
    )
    decision_order = 132
    summary_hook = SummaryHook((ast.Call,), _name_scope_call, _opened_scopes)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        if not context.changes_on_compiling:
            return []
        index, key = context.index, context.key
        calls = calls_by_result(context.facts, key)
        evaluator = context.scan.evaluator
        resolved_calls = context.facts.calls.get(key, [])
        scoped = _valid_scope_bodies(context, resolved_calls)
        for resolved in resolved_calls:
            value = _name_argument(resolved)
            how = ""
            names: list[str] = []
            if value is not None:
                for atom in evaluator.eval(value):
                    text = lit_value(atom) if is_lit_atom(atom) else None
                    if isinstance(text, str) and text:
                        names.append(text)
                classes = _classes_named_by(value, calls, evaluator)
                names += [_class_name(c) for c in _with_subclasses(index, classes)]
            elif context.function.class_qualname is not None and _is_super_call_of(
                index, key, resolved, calls, context.framework.class_named_scope_layers
            ):
                own = ClassKey(key.file, context.function.class_qualname)
                names = [_class_name(c) for c in _with_subclasses(index, [own])]
                how = " (Keras 2's `Conv.call` names its convolution after the class)"
            # Inside a valid scope the function opens, only the inner pattern applies
            # (measured: `_a` passes inside `tf.name_scope("outer")`).
            inside = any(body.encloses(resolved.site.span) for body in scoped)
            pattern = SCOPE_NAME if inside else ROOT_SCOPE_NAME
            bad = sorted({n for n in names if not pattern.match(n)})
            if bad:
                return [
                    cls.finding(
                        f"names a scope `{bad[0]}` at its graph's root{how}; TensorFlow rejects "
                        "it there while tracing (`ValueError: ... is not a valid root scope name`)",
                        resolved.site.span,
                    )
                ]
        return []


def _valid_scope_bodies(context: CheckContext, resolved_calls: list[ResolvedCall]) -> list[Span]:
    """The bodies of the `with` blocks the function opens with a framework name scope whose
    literal name is valid at the root (`OpenedScope`)."""
    opened: tuple[OpenedScope, ...] = context.summary_facts(HasInvalidRootScopeNames)
    if not opened:
        return []
    sites = context.function.calls
    by_span = {resolved.site.span: resolved for resolved in resolved_calls}
    bodies = []
    for scope in opened:
        resolved = by_span.get(sites[scope.call].span) if scope.call < len(sites) else None
        if (
            resolved is not None
            and any(info.name.endswith("name_scope") for info in resolved.api)
            and ROOT_SCOPE_NAME.match(scope.name)
        ):
            bodies.append(scope.body)
    return bodies


def _name_argument(resolved: ResolvedCall) -> Sym | None:
    """What the call passes as an op's `name` or a name scope's name, if anything."""
    for info in resolved.api:
        if info.tensor_op or info.name.endswith("name_scope"):
            value = resolved.site.named_argument("name", lookup_parameters(info.name) or ())
            if value is not None:
                return value
    return None


def _classes_named_by(
    value: Sym, calls: dict[Sym, ResolvedCall], evaluator: Evaluator
) -> list[ClassKey]:
    """The project classes whose `__name__` the value is: `obj.__class__.__name__`,
    `type(obj).__name__`."""
    if not is_attr(value) or attr_name(value) != "__name__":
        return []
    of = attr_base(value)
    holder: Sym | None = None
    if is_attr(of) and attr_name(of) == "__class__":
        holder = attr_base(of)
    else:
        resolved = calls.get(of)
        if resolved is not None and any(i.name == "builtins.type" for i in resolved.api):
            args = resolved.site.args
            holder = args[0] if len(args) == 1 else None
    if holder is None:
        return []
    found = {obj_class(a) for a in evaluator.eval(holder) if is_obj_atom(a)}
    return sorted(k for k in found if k is not None)


def _is_super_call_of(
    index: ProjectIndex,
    key: FunctionKey,
    resolved: ResolvedCall,
    calls: dict[Sym, ResolvedCall],
    layers: frozenset[str],
) -> bool:
    """`super().call(...)` in a method of a class deriving from one of `layers` (a Keras 2
    convolution, `Framework.class_named_scope_layers`)."""
    callee = resolved.site.callee
    if not is_attr(callee) or attr_name(callee) != "call":
        return False
    made = calls.get(attr_base(callee))
    if made is None or made.site.callee != ("name", "super"):
        return False
    class_qualname = index.function(key).class_qualname
    if class_qualname is None:
        return False
    for klass in index.mro(ClassKey(key.file, class_qualname)):
        for ref in index.base_refs(klass):
            if is_ext_ref(ref) and ext_dotted(ref) in layers:
                return True
    return False


def _with_subclasses(index: ProjectIndex, classes: list[ClassKey]) -> list[ClassKey]:
    found: list[ClassKey] = []
    for klass in classes:
        for each in [klass, *index.subclasses(klass)]:
            if each not in found:
                found.append(each)
    return found


def _class_name(klass: ClassKey) -> str:
    return klass.qualname.rsplit(".", 1)[-1]
