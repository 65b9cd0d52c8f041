"""Views of tensors made in compiled code that may reach a 2-D convolution.

Under torch.compile a 2-D convolution given a view made inside the compiled code (a channel
slice, bounded by names too, `chunk`, `split`, `narrow`, `permute`, `transpose`, a 4-D `view`
or `reshape` or one with unpacked sizes, an `unsqueeze`) fails to compile once a size other than the batch is symbolic
(`Framework.convolved_view_failure`; measured on torch 2.13). Whether callers pass varying
sizes is not known from the code, so such a view reaching such a convolution is the hazard.

What "reaches" means here is an over-approximation at the level of the compiled region,
since the modules a flow runs are often chosen at run time (`self.flows[i].inverse(z)` over
an `nn.ModuleList`, a network handed to a constructor: normflows' `GlowBlock`):

- the region is the function, the project functions it calls (`traced_with`), and, where one
  of those calls a module held by `self` that the analysis does not resolve, every public
  method (`forward`, `inverse`) of the project module classes `self`'s constructors build
  (`module_tree`, transitively), with what they call;
- a view counts when the function making it hands it on to the next module: passes it to a
  convolution (as its input) or a module, or returns it (alone or in a list or tuple) from
  a public method of a module class;
- a convolution counts when some function of the region calls a 2-D convolution function,
  or the constructor of a class owning one of them builds a 2-D convolution module.

A view that goes only through an op before leaving its function (`v * 1.0`, `torch.cat`) is
a new tensor, not a view, and measured safe.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.container_modules import own_constructors
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    call_sym,
    is_attr,
    is_call,
    is_cond,
    is_item,
    is_iter,
    is_lit,
    is_local,
    is_op,
    is_param,
    is_seq,
    is_slice,
    sym_name,
)
from hybridize.model import Span

MAX_REGION = 400
"""How many functions one region holds at most (the rest are not read)."""

DETACHING = frozenset({"detach", "detach_"})
"""Tensor methods giving a value that needs no gradient."""

MAX_TREE = 60
"""How many module classes one module tree holds at most."""


BasicSlices = Callable[[FunctionSummary], Collection[Sym]]
"""The subscripts of a function that are basic slices as written (every element a slice, an
int literal, `None` or `...`: `x[:, :c]`), by their values: the summaries keep a slice's
bounds but not whether a name is a bound or an index (`x[:, perm]` copies)."""


@dataclass(frozen=True, slots=True)
class _Entry:
    via: str
    """The words leading to the function ("calls `helper`, which "); "" for the function."""
    span: Span
    """The statement of the compiled function's own body that brings it into the region."""


def convolved_views(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, slices: BasicSlices
) -> list[Evidence]:
    """The first view made in the function's region and handed on, when the region also
    runs a 2-D convolution."""
    framework = index.function_framework(key)
    reason = framework.convolved_view_failure
    fn = index.function(key)
    if reason is None or fn.is_lambda or key.is_module_code:
        return []
    region = _region(index, facts, key)
    convolution = _convolution(index, facts, framework, region)
    if convolution is None:
        return []
    for reader, entry in region.items():
        found = _handed_on_view(index, facts, framework, reader, slices)
        if found is None:
            continue
        words, span = found
        return [
            Evidence(
                f"{entry.via}{words}, and the compiled code runs {convolution}: a 2-D "
                f"convolution given such a view {reason}",
                span if reader == key else entry.span,
            )
        ]
    return []


def convolution_layout(
    index: ProjectIndex, facts: TensorFacts, slices: BasicSlices
) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, str]]]:
    """What `convolved_views` reads of the project beyond a function's callees, as a value
    compared by equality: for each project module class of a framework with the failure, the
    module classes its constructors build and the 2-D convolution they build; for each public
    method of one, the view it hands on. An edit changing any of them may change the verdict
    of a function in another module whose region takes that class's methods."""
    classes: set[tuple[str, ...]] = set()
    views: set[tuple[str, str]] = set()
    targets = index.compile_targets()
    for relpath, module in index.modules.items():
        framework = targets.framework(relpath)
        if framework.convolved_view_failure is None:
            continue  # no class of the module counts: not one looked at
        for qualname, summary in module.classes.items():
            class_key = ClassKey(relpath, qualname)
            if index.layer_role(class_key) is None:
                continue
            built = tuple(str(key) for key in _built_modules(index, facts, class_key))
            convolution = next(
                (
                    name
                    for init in own_constructors(index, class_key)
                    if (name := _convolution_call(index, facts, framework, init)) is not None
                ),
                "",
            )
            classes.add((str(class_key), convolution, *built))
            for method in summary.methods:
                target = FunctionKey(relpath, f"{qualname}.{method}")
                if not _module_method(index, target, index.function(target)):
                    continue
                view = _handed_on_view(index, facts, framework, target, slices)
                if view is not None:
                    views.add((str(target), view[0]))
    return frozenset(classes), frozenset(views)


def _region(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> dict[FunctionKey, _Entry]:
    """The functions compiling `key` may trace, each with how it is reached."""
    region: dict[FunctionKey, _Entry] = {}
    pending: list[tuple[FunctionKey, _Entry]] = [(key, _Entry("", index.function(key).span))]
    while pending and len(region) < MAX_REGION:
        start, entry = pending.pop(0)
        if start in region:
            continue
        for reader, via, span in traced_with(index, facts, start):
            if reader in region or len(region) >= MAX_REGION:
                continue
            reached = _Entry(via, span) if start == key else _Entry(entry.via + via, entry.span)
            region[reader] = reached
            unresolved = _runs_unresolved_modules(index, facts, reader)
            if unresolved is None:
                continue
            owner, call = unresolved
            if reader == key:
                reached = _Entry("", call)
            for module in module_tree(index, facts, owner):
                for method in index.klass(module).methods:
                    target = FunctionKey(module.file, f"{module.qualname}.{method}")
                    if target not in region and _module_method(
                        index, target, index.function(target)
                    ):
                        words = (
                            f"{reached.via}may run `{target.qualname}` (a module it builds), which "
                        )
                        pending.append((target, _Entry(words, reached.span)))
    return region


def _runs_unresolved_modules(
    index: ProjectIndex, facts: TensorFacts, reader: FunctionKey
) -> tuple[ClassKey, Span] | None:
    """The class of a method calling a module it holds (`self.net(x)`, `self.flows[i].f(x)`)
    that the analysis resolves to no project function and no framework API, with the first
    such call; else None."""
    fn = index.function(reader)
    if fn.class_qualname is None or not fn.params:
        return None
    receiver = fn.params[0].name
    for resolved in facts.calls.get(reader, []):
        if resolved.targets or resolved.api:
            continue
        if _held_by(resolved.site.callee, receiver, fn):
            return FunctionKey(reader.file, fn.class_qualname), resolved.site.span
    return None


def _held_by(callee: Sym, receiver: str, fn: FunctionSummary, depth: int = 0) -> bool:
    """`callee` is an attribute of the receiver, an element of one (indexed, or a local the
    body iterates it into: `for flow in self.flows: flow(z)`), or a method of either."""
    current = callee
    for _ in range(4):
        if is_local(current) and sym_name(current) != receiver:
            return depth < 3 and any(
                _held_by(value[1] if is_iter(value) else value, receiver, fn, depth + 1)
                for value in fn.locals.get(sym_name(current), [])
                if not is_local(value)
            )
        if is_attr(current):
            base = attr_base(current)
        elif is_item(current):
            base = current[1]
        else:
            return False
        if (is_param(base) or is_local(base)) and sym_name(base) == receiver:
            return is_attr(current)
        current = base
    return False


def module_tree(index: ProjectIndex, facts: TensorFacts, class_key: ClassKey) -> list[ClassKey]:
    """The project module classes an instance of `class_key` builds in its constructors (the
    class's and its project bases'), and those these build in turn: what `self`'s modules
    may be, whichever attribute or list holds them."""
    tree = _built_modules(index, facts, class_key)
    for current in tree:  # grows while iterated
        if len(tree) >= MAX_TREE:
            break
        for built in _built_modules(index, facts, current):
            if built not in tree and built != class_key:
                tree.append(built)
    return tree


def _built_modules(index: ProjectIndex, facts: TensorFacts, class_key: ClassKey) -> list[ClassKey]:
    found: dict[ClassKey, None] = {}
    for init in own_constructors(index, class_key):
        for resolved in facts.calls.get(init, []):
            for kind, target in resolved.targets:
                if kind == "class" and target != class_key and index.layer_role(target):
                    found[target] = None
    return list(found)


def _convolution(
    index: ProjectIndex,
    facts: TensorFacts,
    framework: Framework,
    region: dict[FunctionKey, _Entry],
) -> str | None:
    """In words, a 2-D convolution the region runs: one a function of it calls, or one the
    constructor of a class owning one of its methods builds; None when there is none."""
    owners: dict[ClassKey, None] = {}
    for reader in region:
        found = _convolution_call(index, facts, framework, reader)
        if found is not None:
            return f"`{found}` (in `{reader.qualname}`)"
        fn = index.function(reader)
        if fn.class_qualname is not None:
            owners[FunctionKey(reader.file, fn.class_qualname)] = None
    for owner in owners:
        for init in own_constructors(index, owner):
            found = _convolution_call(index, facts, framework, init)
            if found is not None:
                return f"a `{found}` module (built in `{init.qualname}`)"
    return None


def _convolution_call(
    index: ProjectIndex, facts: TensorFacts, framework: Framework, reader: FunctionKey
) -> str | None:
    fn = index.function(reader)
    for resolved in facts.calls.get(reader, []):
        if _convolution_with_gradient(framework, resolved, fn):
            return next(
                info.name
                for info in resolved.api
                if info.name in framework.two_dimensional_convolutions
            )
    return None


def _convolution_with_gradient(
    framework: Framework, resolved: ResolvedCall, fn: FunctionSummary
) -> bool:
    """A call of a 2-D convolution (function or module class) whose weight may need a
    gradient: not one given a weight it detached (`w.detach()`; measured safe, as nothing is
    saved for a gradient)."""
    if not any(info.name in framework.two_dimensional_convolutions for info in resolved.api):
        return False
    site = resolved.site
    weights = [*site.args[1:2], *(value for name, value in site.kwargs if name == "weight")]
    return not any(_detached(fn, weight) for weight in weights)


def _detached(fn: FunctionSummary, sym: Sym, depth: int = 0) -> bool:
    """`sym` is, through locals, only ever the result of a `.detach()`."""
    if depth > 6:
        return False
    if is_local(sym):
        values = fn.locals.get(sym_name(sym), [])
        return bool(values) and all(_detached(fn, value, depth + 1) for value in values)
    if is_call(sym):
        index = sym[1]
        if 0 <= index < len(fn.calls):
            callee = fn.calls[index].callee
            return is_attr(callee) and attr_name(callee) in DETACHING
    return False


def _handed_on_view(
    index: ProjectIndex,
    facts: TensorFacts,
    framework: Framework,
    reader: FunctionKey,
    slices: BasicSlices,
) -> tuple[str, Span] | None:
    """A view the function makes and hands on (returns, or passes to a call), in words,
    with the statement that hands it on (the function's span for a return)."""
    fn = index.function(reader)
    resolved_calls = facts.calls.get(reader, [])
    made: dict[Sym, str] = {}
    for resolved in resolved_calls:
        name = _view_name(framework, resolved)
        if name is not None:
            made[call_sym(resolved.index)] = (
                f"`{name}` (line {cited_line(reader.file, resolved.site.span.start_line)})"
            )
    views = _ViewSyms(fn, made, slices(fn))
    for resolved in resolved_calls:
        if not _takes_tensors_on(index, facts, framework, resolved, reader):
            continue
        for argument in _handed(framework, resolved, fn):
            words = views.made_of(argument)
            if words is not None:
                return f"hands on a view of a tensor ({words})", resolved.site.span
    if not _module_method(index, reader, fn):
        return None
    for returned in fn.returns:
        words = views.made_of(returned)
        if words is not None:
            return f"returns a view of a tensor ({words})", fn.span
    return None


def _handed(framework: Framework, resolved: ResolvedCall, fn: FunctionSummary) -> list[Sym]:
    """The arguments a call hands on: of a convolution function its input only (a view as
    its weight, `w.view(c, c, 1, 1)`, measured safe), of any other call all."""
    site = resolved.site
    if any(info.name in framework.two_dimensional_convolutions for info in resolved.api):
        if not _convolution_with_gradient(framework, resolved, fn):
            return []
        return [*site.args[:1], *(value for name, value in site.kwargs if name == "input")]
    return [*site.args, *(value for _, value in site.kwargs)]


def _takes_tensors_on(
    index: ProjectIndex,
    facts: TensorFacts,
    framework: Framework,
    resolved: ResolvedCall,
    reader: FunctionKey,
) -> bool:
    """The call may hand its arguments on as they are to a convolution: it is one, or it
    calls a module (a framework layer, a project module, one held by `self` that the
    analysis does not resolve). A framework op (`torch.cat`, `v * 1.0`) makes a new tensor,
    measured safe; a helper function is read where it is traced (the region holds it)."""
    if resolved.api:
        return any(info.name in framework.two_dimensional_convolutions for info in resolved.api)
    if any(kind == "layer_call" for kind, _ in resolved.targets):
        return True
    if resolved.receiver_roles:
        return _may_convolve(index, facts, framework, resolved.site.callee, reader)
    if any(
        kind == "method" and _module_method(index, target, index.function(target))
        for kind, target in resolved.targets
    ):
        return True
    fn = index.function(reader)
    receiver = fn.params[0].name if fn.class_qualname is not None and fn.params else None
    if resolved.targets or receiver is None:
        return False
    return _held_by(resolved.site.callee, receiver, fn)


def _may_convolve(
    index: ProjectIndex,
    facts: TensorFacts,
    framework: Framework,
    callee: Sym,
    reader: FunctionKey,
) -> bool:
    """A framework module called may run a 2-D convolution: unless it is an attribute of
    `self` that the class's constructors set only to framework modules that are neither a
    2-D convolution nor a container (`self.fc = nn.Linear(4, 4)`)."""
    fn = index.function(reader)
    if fn.class_qualname is None or not fn.params or not is_attr(callee):
        return True
    receiver = attr_base(callee)
    if not ((is_local(receiver) or is_param(receiver)) and sym_name(receiver) == fn.params[0].name):
        return True
    owner = FunctionKey(reader.file, fn.class_qualname)
    built: list[ResolvedCall] = []
    for init in own_constructors(index, owner):
        init_fn = index.function(init)
        calls = {resolved.index: resolved for resolved in facts.calls.get(init, [])}
        for store in init_fn.stores:
            if store.kind != "attr" or store.name != attr_name(callee):
                continue
            value = store.value
            if not is_call(value) or value[1] not in calls:
                return True
            built.append(calls[value[1]])
    if not built:
        return True
    for resolved in built:
        if resolved.targets or not resolved.api:
            return True
        for info in resolved.api:
            if info.name in framework.two_dimensional_convolutions or info.chains_modules:
                return True
    return False


def _module_method(index: ProjectIndex, key: FunctionKey, fn: FunctionSummary) -> bool:
    """A public method of a project module class (`forward`, `inverse`): what a module
    holding it may call, its result going on to the next module."""
    if fn.class_qualname is None or fn.name.startswith("_"):
        return False
    return index.layer_role(FunctionKey(key.file, fn.class_qualname)) is not None


def _view_name(framework: Framework, resolved: ResolvedCall) -> str | None:
    """The view method or function the call is, as written; None when it is none."""
    callee = resolved.site.callee
    name: str | None = None
    if is_attr(callee) and attr_name(callee) in framework.rank_keeping_views:
        name = attr_name(callee)
    else:
        for info in resolved.api:
            last = info.name.rsplit(".", 1)[-1]
            if info.kind == "function" and last in framework.rank_keeping_views:
                name = last
    if name is None:
        return None
    if name in framework.view_size_arguments:
        site = resolved.site
        if site.has_star_args:
            return name  # `x.view(*shape)`: the rank is not known, it may be 4-D
        sizes = site.args
        if len(sizes) == 1 and is_seq(sizes[0]):
            sizes = sizes[0][2]
        positional = len(sizes) - (0 if is_attr(callee) else 1)
        if positional != 4:
            return None
    return name


class _ViewSyms:
    """Which values of one function are views it made: the result of a view call, an
    element of one (`a, b = x.chunk(2, 1)`), a slice of a tensor (`x[:, :c]`), and the
    locals bound to any of these."""

    def __init__(self, fn: FunctionSummary, made: dict[Sym, str], basic: Collection[Sym]) -> None:
        self.fn = fn
        self.made = made
        self.basic = basic
        self.memo: dict[Sym, str | None] = {}

    def made_of(self, sym: Sym, depth: int = 0) -> str | None:
        if depth > 12:
            return None
        if sym in self.memo:
            return self.memo[sym]
        self.memo[sym] = None  # cut cycles through locals
        found = self._made_of(sym, depth)
        self.memo[sym] = found
        return found

    def _made_of(self, sym: Sym, depth: int) -> str | None:
        if sym in self.made:
            return self.made[sym]
        if is_local(sym):
            for value in self.fn.locals.get(sym_name(sym), []):
                found = self.made_of(value, depth + 1)
                if found is not None:
                    return found
            return None
        if is_item(sym):
            base, subscript = sym[1], sym[2]
            if is_slice(subscript):
                if not _sliceable(base):
                    return None
                if sym not in self.basic and not all(_bound(b) for b in subscript[1]):
                    return None
                return "a slice"  # its line is not kept: the statement that hands it on is
            if is_call(base) or is_local(base):
                return self.made_of(base, depth + 1)
            return None
        elements: tuple[Sym, ...] = ()
        if is_seq(sym):
            elements = sym[2]
        elif is_cond(sym):
            elements = sym[1]
        if elements:
            for element in elements:
                found = self.made_of(element, depth + 1)
                if found is not None:
                    return found
        return None


def _bound(element: Sym) -> bool:
    """An element of a subscript that only a basic slice has: a literal bound or one computed
    by arithmetic (`: n // 2`). A name may be an index tensor (`z[:, self.perm]`: advanced
    indexing copies), so a subscript holding one is not taken for a view."""
    return is_lit(element) or is_op(element)


def _sliceable(base: Sym) -> bool:
    """A base whose slice may be a tensor's view: a parameter, a local, a call's result or
    an attribute (a literal or a display is a Python sequence)."""
    return is_param(base) or is_local(base) or is_call(base) or is_attr(base) or is_item(base)
