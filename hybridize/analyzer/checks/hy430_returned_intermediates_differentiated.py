"""HY430 returned_intermediates_differentiated: the function returns tensors computed from one
another, and the project differentiates with respect to tensors that may be no leaves."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.facts.callgraph import call_sites
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.differentiated_values import backward_inputs
from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    bind_written,
    get_evaluator,
)
from hybridize.analyzer.facts.predicates import leaf_atoms, local_values, made_of, walk_syms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.values import (
    canonical,
    is_class_atom,
    is_obj_atom,
    obj_class,
    obj_role,
    project_key,
)
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    Sym,
    SymKind,
    attr_base,
    attr_name,
    is_attr,
    is_call,
    is_item,
    is_lit,
    is_local,
    is_name,
    is_op,
    is_seq,
    lit_value,
    local_sym,
    param_sym,
    sym_name,
)
from hybridize.model import Finding

from . import TORCH_ONLY, Check

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext

NON_DIFFERENTIABLE_RESULTS = frozenset(
    {
        "isnan",
        "isinf",
        "isfinite",
        "isneginf",
        "isposinf",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "argmax",
        "argmin",
        "argsort",
    }
)
"""Tensor functions and methods whose result is boolean or integer: no gradient is taken with
respect to it (only floating tensors require grad)."""
MODULE_ROLES = frozenset({"layer", "model"})
"""Object roles that are modules: the tensors they hold are parameters, leaves of the graph."""


class ReturnedIntermediatesDifferentiated(Check):
    """Returns tensors computed from one another, and the project differentiates with respect
    to tensors that may be no leaves.

    What it detects
    ---------------
    A function whose result may hold a tensor computed from another tensor it also holds,
    where the project has a backward call (`torch.autograd.grad(out, inputs)`,
    `backward(inputs=...)`) whose `inputs` may be tensors with an autograd history: not
    leaves made where they come from (`x.detach().requires_grad_()`, `nn.Parameter`, a
    module's `parameters()`, a factory such as `torch.zeros_like`, a gradient taken without
    `create_graph`). Where they come from is followed through the function's locals, to what
    its callers pass for a parameter, to what a closure's enclosing function holds, and, for a
    custom `autograd.Function`'s `ctx.saved_tensors` and `ctx.name`, to what its methods save
    there and to the arguments of its `apply(...)` calls; anything else (an object's
    attribute, a caller the analysis does not know) may be no leaf. The result holds such a
    pair when it is a tuple, list or dict with an element computed in the function from
    another element that is no parameter as given nor a mask or an index (`return a,
    a.exp()`), or when it is an instance of a project class (not a module): its constructor,
    or those of the objects it holds, may keep a tensor and one computed from it (zuko's
    transforms keep their parameters `phi` and `exp(scale)`). Which returned tensors reach
    that backward the analysis cannot follow (they travel in objects and closures), so one
    such backward anywhere in the project makes every function returning such a pair a
    suspect; the first one (in file order) is named.

    Why it matters in graph mode
    ----------------------------
    AOTAutograd makes the compiled graph one autograd node: every tensor the function returns
    is an output of that node, so a returned tensor computed from another returned one no
    longer depends on it in autograd; both depend only on the graph's inputs. A derivative
    taken at a leaf or an input is unchanged, but one taken with respect to the returned
    intermediate through the tensor computed from it finds no path: measured (torch 2.13,
    Inductor and `aot_eager`; the `eager` backend, Dynamo alone, keeps the path) on
    `a = c @ w; return a, a.exp()`, `torch.autograd.grad(b.sum(), a)` raises "One of the
    differentiated Tensors appears to not have been used in the graph" for an intermediate,
    a view of an intermediate or of an input, `b` a view of `a`, and both held by a returned
    object; it passes when `a` is an input or a parameter returned as given
    (tests/analyzer/test_hy430_returned_intermediates_differentiated.py measures it again).
    zuko 1.x's `Flow.forward` returned a flow whose Gaussianization transforms kept `phi` and
    `exp(scale)`; the bisection inverse's `backward` differentiates `f(x)` with respect to
    `phi` and raised once `Flow.forward` was compiled.

    Example
    -------
        def params(c, w):
            a = c @ w
            return a, torch.exp(a)

        class Implicit(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return b * 2

            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                with torch.enable_grad():
                    return torch.autograd.grad(b * 2, a, grad)[0], None

    Instead
    -------
    Keep the function eager, return only the tensors the others are computed from and compute
    the rest where they are used, or differentiate with respect to the graph's inputs.

    Under torch.compile
    -------------------
    The hazard is AOTAutograd's, under `torch.compile` only: a `tf.function`'s outputs are
    differentiated by a `GradientTape` over the ops inside the function, output to output.
    """

    code = "HY430"
    frameworks = TORCH_ONLY
    name = "returned_intermediates_differentiated"
    severity = "error"
    summary = (
        "returns a tensor computed from another it returns, and the project differentiates "
        "with respect to tensors that may be no leaves: compiled, the returned tensors no "
        "longer depend on one another in autograd."
    )
    unblock = "keep the function eager, or differentiate with respect to the graph's inputs"
    fact = "returned_intermediates_differentiated"
    fact_meaning = (
        "(PyTorch) returns a tensor computed from another it returns (a pair, or an object), "
        "and some backward differentiates with respect to tensors that may be no leaves: "
        "compiled, the dependency between returned tensors is gone"
    )
    decision_order = 149
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """One finding naming the first backward with non-leaf inputs, for a function not
        compiled yet whose result may hold a tensor computed from another it holds."""
        if not context.changes_on_compiling:
            return []
        index, facts, key = context.index, context.facts, context.key
        fn = context.function
        if fn.is_generator or not fn.returns:
            return []
        backward = first_non_leaf_backward(index, facts)
        if backward is None:
            return []
        held = _derived_pair(fn) or _returned_object(index, facts, key, fn)
        if held is None:
            return []
        where = "module code" if backward.by.is_module_code else f"`{backward.by.qualname}`"
        return [
            cls.finding(
                f"returns {held}, and {where} (line {cited_line(backward.by.file, backward.line)}) differentiates with "
                "respect to tensors that may be no leaves: compiled, the returned tensors are "
                "outputs of one autograd node, a tensor computed from another no longer "
                'depends on it ("appears to not have been used in the graph")',
                fn.span,
            )
        ]

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """The first backward differentiating with respect to tensors its function did not
        make leaves: one added or removed changes the verdicts of every function returning
        tensors computed from one another."""
        return first_non_leaf_backward(index, facts)


@dataclass(frozen=True, slots=True)
class NonLeafBackward:
    """A backward call whose `inputs` may be tensors that are no leaves."""

    by: FunctionKey
    line: int


@dataclass(frozen=True, slots=True)
class _Demands:
    """What the `inputs` of a backward being leaves rests on beyond the function that runs it
    (each followed when the project's answer is combined, from the current project)."""

    parameters: frozenset[str] = frozenset()
    """The function's parameters: what every caller passes there must be leaves."""
    saved: bool = False
    """`ctx.saved_tensors`: what the class's methods pass to `ctx.save_for_backward`."""
    context_attributes: frozenset[str] = frozenset()
    """`ctx.name`: what the class's methods assign to `ctx.name`."""
    free_names: frozenset[str] = frozenset()
    """Names of the enclosing function (a closure's)."""


@dataclass(frozen=True, slots=True)
class _Backward:
    """One backward call of a function: its line, and what its `inputs` being leaves rests on
    (None: they may be no leaves whatever the rest of the project does)."""

    line: int
    demands: _Demands | None


MAX_FOLLOWED = 60
"""How many functions the question of one backward's `inputs` is followed through at most;
past that they are taken as possibly no leaves."""


def first_non_leaf_backward(index: ProjectIndex, facts: TensorFacts) -> NonLeafBackward | None:
    """The first backward (in key order) that may differentiate with respect to tensors that
    are no leaves. Memoised per solution; each function's part is kept across updates
    (`per_function`), and an incremental phase that sees the answer change decides every
    function again (`engine.ProjectWide`, `project_fact`)."""
    cached = cast("tuple[NonLeafBackward | None] | None", facts.cache.get("non_leaf_backward"))
    if cached is not None:
        return cached[0]
    found = per_function(
        facts, "non_leaf_backward", lambda key, calls: _backwards_in(index, key, calls)
    )
    first = None
    for key in sorted(found, key=str):
        backward = next(
            (b for b in found[key] if not _leaves(index, facts, key, b.demands, set())), None
        )
        if backward is not None:
            first = NonLeafBackward(key, backward.line)
            break
    facts.cache["non_leaf_backward"] = (first,)
    return first


def _backwards_in(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> tuple[_Backward, ...]:
    """The function's backward calls given `inputs`, with what those being leaves rests on."""
    framework = index.function_framework(key)
    backward_apis = framework.backward_inputs_arguments
    if not any(info.name in backward_apis for resolved in calls for info in resolved.api):
        return ()  # most functions: no backward call
    fn = index.function(key)
    by_index = {resolved.index: resolved for resolved in calls}
    found = []
    for resolved in calls:
        inputs = backward_inputs(resolved, framework)
        if inputs:
            line = resolved.site.span.start_line
            found.append(_Backward(line, _leaf_demands(fn, by_index, inputs, framework)))
    return tuple(found)


def _leaves(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    demands: _Demands | None,
    followed: set[tuple[FunctionKey, _Demands]],
) -> bool:
    """Whether the demands of a value of `key` hold: every tensor it may be is a leaf."""
    if demands is None:
        return False
    if (key, demands) in followed:
        return True  # a cycle adds nothing new
    if len(followed) >= MAX_FOLLOWED:
        return False
    followed.add((key, demands))
    fn = index.function(key)
    if demands.parameters:
        sites = list(call_sites(index, facts, key))
        if fn.class_qualname is not None and fn.name == "forward":
            # `Function.apply(...)` runs a custom `autograd.Function`'s `forward`, passing
            # the context first: the call's arguments bind after it.
            klass = FunctionKey(key.file, fn.class_qualname)
            for caller, resolved in _function_applies(index, facts).get(klass, ()):
                sites.append((caller, index.function(caller), resolved, "method"))
        if not sites:
            return False  # no caller known: anything may be passed
        for caller, caller_fn, resolved, kind in sites:
            bound = bind_written(fn, resolved, kind, key)
            star = frozenset(resolved.site.star_values)
            passed = frozenset(
                value for name in demands.parameters for value in bound.get(name, star)
            )
            if passed and not _leaves_in(index, facts, caller, caller_fn, passed, followed):
                return False
    if demands.free_names:
        if fn.parent_qualname is None:
            return False
        parent = FunctionKey(key.file, fn.parent_qualname)
        names = frozenset(local_sym(name) for name in demands.free_names)
        if not _leaves_in(index, facts, parent, index.function(parent), names, followed):
            return False
    if demands.saved or demands.context_attributes:
        if fn.class_qualname is None:
            return False
        klass = FunctionKey(key.file, fn.class_qualname)
        stored = [
            (method, values)
            for method in _methods(index, klass)
            if (values := _context_values(index.function(method), demands))
        ]
        if not stored:
            return False
        for method, values in stored:
            if not _leaves_in(index, facts, method, index.function(method), values, followed):
                return False
    return True


def _function_applies(
    index: ProjectIndex, facts: TensorFacts
) -> dict[FunctionKey, list[tuple[FunctionKey, ResolvedCall]]]:
    """The calls `C.apply(...)` of each project class `C` (a custom `autograd.Function`),
    which the call graph does not lead to `C.forward`, with the functions making them.
    Memoised per solution, each function's part kept across updates (`per_function`)."""
    cached = facts.cache.get("autograd_function_applies")
    if isinstance(cached, dict):
        return cached
    scanned = per_function(
        facts, "autograd_function_applies", lambda key, calls: _applies_in(index, facts, key, calls)
    )
    found: dict[FunctionKey, list[tuple[FunctionKey, ResolvedCall]]] = {}
    for caller in sorted(scanned, key=str):
        by_index = {resolved.index: resolved for resolved in facts.calls.get(caller, [])}
        for klass, number in scanned[caller]:
            if number in by_index:
                found.setdefault(klass, []).append((caller, by_index[number]))
    facts.cache["autograd_function_applies"] = found
    return found


def _applies_in(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, calls: list[ResolvedCall]
) -> tuple[tuple[FunctionKey, int], ...]:
    """The project classes whose `apply` the function calls, with the calls' indexes."""
    found = []
    for resolved in calls:
        callee = resolved.site.callee
        if not is_attr(callee) or attr_name(callee) != "apply" or resolved.targets:
            continue
        for atom in sorted(get_evaluator(index, facts, key).eval(attr_base(callee)), key=canonical):
            if is_class_atom(atom):
                found.append((project_key(atom), resolved.index))
    return tuple(found)


def _leaves_in(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    fn: FunctionSummary,
    values: frozenset[Sym],
    followed: set[tuple[FunctionKey, _Demands]],
) -> bool:
    """Whether every tensor `values` of the function `key` may be is a leaf."""
    by_index = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
    demands = _leaf_demands(fn, by_index, values, index.function_framework(key))
    return _leaves(index, facts, key, demands, followed)


def _methods(index: ProjectIndex, klass: FunctionKey) -> list[FunctionKey]:
    """The methods of a project class (a custom `autograd.Function`'s `forward`)."""
    try:
        names = index.klass(klass).methods
    except KeyError:
        return []
    return [FunctionKey(klass.file, f"{klass.qualname}.{name}") for name in names]


def _context_values(fn: FunctionSummary, demands: _Demands) -> frozenset[Sym]:
    """What a method of the class hands its context (`ctx`, its first parameter) that the
    demands read back: `save_for_backward`'s arguments, the values of `ctx.name = value`."""
    if not fn.params:
        return frozenset()
    context = param_sym(fn.params[0].name)
    found: set[Sym] = set()
    if demands.saved:
        for site in fn.calls:
            callee = site.callee
            saves = is_attr(callee) and attr_name(callee) == "save_for_backward"
            if saves and _is_context(fn, attr_base(callee), context):
                found.update(site.args)
                found.update(site.star_values)
    for store in fn.stores:
        read_back = store.kind == "attr" and store.name in demands.context_attributes
        if read_back and _is_context(fn, store.target, context):
            found.add(store.value)
    return frozenset(found)


def _is_context(fn: FunctionSummary, sym: Sym, context: Sym) -> bool:
    return sym == context or context in local_values(fn, sym)


def _leaf_demands(
    fn: FunctionSummary,
    by_index: dict[int, ResolvedCall],
    values: Iterable[Sym],
    framework: Framework,
) -> _Demands | None:
    """What every tensor `values` may be or hold being a leaf rests on beyond the function
    (through its locals, displays, operations, elements, the lists it appends to, `list()`
    and `tuple()`); None when some may be no leaf whatever the rest of the project does. A
    name the function assigns a leaf to is taken to hold that leaf where it is differentiated:
    the idiom rebinds the name it differentiates (`x = x.detach().requires_grad_()`), which
    the locals, read regardless of order, also show bound to the parameter."""
    parameters: set[str] = set()
    attributes: set[str] = set()
    free: set[str] = set()
    saved = False
    context = param_sym(fn.params[0].name) if fn.params else None
    receiver = fn.params[0].name if fn.binds_receiver and fn.params else None

    def parts(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            if _assigns_leaf(fn, by_index, current, framework):
                return ()
            return [*local_values(fn, current), *_appended(fn, current)]
        if kind == "call":
            resolved = by_index.get(current[1])
            if resolved is None or _makes_leaves(resolved, framework):
                return ()
            return [*resolved.site.args, *resolved.site.star_values]
        if kind == "attr":
            return ()
        if kind == "item":
            return _element(current)
        return made_of(current)

    for current in walk_syms(values, parts):
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            if not local_values(fn, current):
                if kind == "local" or fn.parent_qualname is None:
                    return None
                free.add(current[1])
        elif kind == "param":
            if current[1] == receiver:
                return None
            parameters.add(current[1])
        elif kind == "call":
            resolved = by_index.get(current[1])
            if resolved is None:
                return None
            if not _makes_leaves(resolved, framework) and not _passes_through(resolved):
                return None
        elif kind == "attr":
            if attr_name(current) == "saved_tensors":
                saved = True
            elif context is not None and fn.class_qualname and _is_context(fn, current[1], context):
                attributes.add(attr_name(current))
            else:
                return None
        elif kind == "op":
            # `[x] + params` joins lists; an operation on tensors makes a tensor with a history.
            if not any(is_seq(operand) for operand in made_of(current)):
                return None
        elif kind not in ("seq", "cond", "item", "iter", "lit"):
            return None
    return _Demands(frozenset(parameters), saved, frozenset(attributes), frozenset(free))


def _element(item: Sym) -> Sequence[Sym]:
    """What an element read may be: the element itself of a display read at a literal
    position (`g, x = ctx.g, ctx.x` binds `x` to `ctx.x` alone), else the whole base."""
    _, base, position = item
    if is_seq(base) and is_lit(position) and isinstance(lit_value(position), int):
        elements = made_of(base)
        index = cast("int", lit_value(position))
        if -len(elements) <= index < len(elements):
            return (elements[index],)
    return made_of(item)


def _passes_through(resolved: ResolvedCall) -> bool:
    """`list(x)` and `tuple(x)`: the elements are those of the argument."""
    return any(info.name in ("builtins.list", "builtins.tuple") for info in resolved.api)


def _assigns_leaf(
    fn: FunctionSummary, by_index: dict[int, ResolvedCall], sym: Sym, framework: Framework
) -> bool:
    """Whether the function assigns leaves to the local `sym`: the result of a leaf-making
    call, or a sequence of them (`x = tuple(xx.requires_grad_(True) for xx in x)`)."""
    return any(_all_leaves(by_index, value, framework) for value in local_values(fn, sym))


def _all_leaves(by_index: dict[int, ResolvedCall], value: Sym, framework: Framework) -> bool:
    """A leaf-making call's result; a display or comprehension whose every element is one, or
    `list()`/`tuple()` of such a sequence."""
    kind: SymKind = value[0]
    if kind == "seq":
        elements = made_of(value)
        return bool(elements) and all(
            _leaf_call(by_index, element, framework) for element in elements
        )
    resolved = by_index.get(value[1]) if kind == "call" else None
    if resolved is None:
        return False
    if _makes_leaves(resolved, framework):
        return True
    args = resolved.site.args
    return (
        _passes_through(resolved)
        and len(args) == 1
        and is_seq(args[0])
        and _all_leaves(by_index, args[0], framework)
    )


def _leaf_call(by_index: dict[int, ResolvedCall], value: Sym, framework: Framework) -> bool:
    kind: SymKind = value[0]
    resolved = by_index.get(value[1]) if kind == "call" else None
    return resolved is not None and _makes_leaves(resolved, framework)


def _appended(fn: FunctionSummary, sym: Sym) -> Iterator[Sym]:
    """The elements the body appends to a local list (`args.append(x)`)."""
    for site in fn.calls:
        callee = site.callee
        appends = is_attr(callee) and attr_base(callee) == sym and attr_name(callee) == "append"
        if appends and site.args:
            yield site.args[0]


def _makes_leaves(resolved: ResolvedCall, framework: Framework) -> bool:
    """A call whose result is a leaf tensor or leaves (`Framework.leaf_tensor_methods`,
    `leaf_tensor_calls`, a module's `parameters()`, any call given `requires_grad=True`), or a
    gradient taken without `create_graph` (`graphless_gradient_calls`: no graph behind it)."""
    callee = resolved.site.callee
    suffix = framework.parameters_method_suffix
    if is_attr(callee) and (
        attr_name(callee) in framework.leaf_tensor_methods
        or (suffix is not None and attr_name(callee).endswith(suffix))
    ):
        return True
    names = {info.name for info in resolved.api}
    kwargs = dict(resolved.site.kwargs)
    if names & framework.leaf_tensor_calls:
        return True
    graphless = next(
        (
            framework.graphless_gradient_calls[n]
            for n in sorted(names)
            if n in framework.graphless_gradient_calls
        ),
        None,
    )
    if graphless is not None:
        create = kwargs.get(graphless)
        return create is None or (is_lit(create) and lit_value(create) in (False, None))
    keyword = framework.leaf_making_keyword
    requires = None if keyword is None else kwargs.get(keyword)
    return requires is not None and is_lit(requires) and lit_value(requires) is True


def _derived_pair(fn: FunctionSummary) -> str | None:
    """`a` and `b` when a returned tuple, list or dict holds a local `a` computed in the
    function and an element computed from `a`."""
    for returned in fn.returns:
        for display in walk_syms((returned,), lambda s: local_values(fn, s)):
            kind: SymKind = display[0]
            if kind not in ("seq", "dict"):
                continue
            elements = made_of(display)
            for source in elements:
                if not is_local(source) or not _computed(fn, source):
                    continue
                for other in elements:
                    if other != source and _computed_from(fn, other, source):
                        return f"`{sym_name(source)}` and a tensor computed from it"
    return None


def _computed(fn: FunctionSummary, sym: Sym) -> bool:
    """A local holding a floating value computed in the function (a call's result or an
    operation), not only parameters or attributes as given, nor a mask or an index."""
    values = local_values(fn, sym)
    return any(is_call(value) or is_op(value) or is_item(value) for value in values) and not all(
        _non_differentiable(fn, value) for value in values
    )


def _non_differentiable(fn: FunctionSummary, value: Sym) -> bool:
    """A comparison, or a call of a function giving booleans or integers (`x.isnan()`)."""
    kind: SymKind = value[0]
    if kind == "op":
        return len(value) > 2 and value[2] == "compare"
    if kind != "call" or value[1] >= len(fn.calls):
        return False
    callee = fn.calls[value[1]].callee
    name = attr_name(callee) if is_attr(callee) else sym_name(callee) if is_name(callee) else None
    return name in NON_DIFFERENTIABLE_RESULTS


def _computed_from(fn: FunctionSummary, sym: Sym, source: Sym) -> bool:
    """Whether `sym` is computed from the local `source` (through locals, operations, and the
    arguments and receivers of calls)."""
    by_index = {n: site for n, site in enumerate(fn.calls)}

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if current == source:
            return ()
        if kind in ("local", "name"):
            return local_values(fn, current)
        if kind == "call" and current[1] in by_index:
            site = by_index[current[1]]
            parts = [*site.args, *(value for _, value in site.kwargs)]
            return [*parts, attr_base(site.callee)] if is_attr(site.callee) else parts
        return made_of(current)

    return any(current == source for current in walk_syms(follow(sym), follow))


def _returned_object(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, fn: FunctionSummary
) -> str | None:
    """An instance of a project class (not a module) the function may return, in words: its
    constructor, or those of the objects it holds, may keep a tensor and one computed from it."""
    evaluator = get_evaluator(index, facts, key)
    names = set()
    for returned in fn.returns:
        for atom in leaf_atoms(evaluator.eval(returned)):
            if is_obj_atom(atom) and obj_role(atom) not in MODULE_ROLES:
                klass = obj_class(atom)
                if klass is not None:
                    names.add(f"an instance of `{klass.qualname}`")
    return min(names) if names else None
