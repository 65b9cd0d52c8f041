"""The call graph (`digraph.DiGraph`) and the facts that follow its edges.

Edges come from the solved call sites: plain calls, methods on `self`/`cls`, `super()`, calls
through module aliases, Keras instance calls (`model(x)` reaches `Model.call`), constructors
(`__init__`), and callbacks handed to tf.data / `tf.map_fn` / `strategy.run`. From the graph:
recursion (a cycle through the function), tensor computation (a TF op anywhere below), and
covered callers (every caller already runs as a graph).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from typing import TypeVar, cast

from hybridize.analyzer.facts.digraph import (
    DiGraph,
    components_callers_first,
    strongly_connected_components,
)
from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    callees,
    get_evaluator,
    solved_evaluator,
)
from hybridize.analyzer.facts.predicates import is_tensor_like, is_unknown, local_values, walk_syms
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function, per_module
from hybridize.analyzer.facts.values import (
    AtomKind,
    boundext_role,
    is_boundext_atom,
    is_lit_atom,
    is_obj_atom,
    obj_role,
)
from hybridize.analyzer.frameworks.framework import FRAMEWORKS
from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    SymKind,
    call_sym,
    is_attr,
    kind_of,
    lit_sym,
    syms_of_kinds,
)

CREATES_FRAMEWORK_STATE = frozenset({"variable", "keras_symbolic"})
"""APIs whose call runs framework ops even when the table does not mark them as ops: creating
a variable, or a Keras Input (a model built on one creates its weights at once)."""


TRACED = "traced_callback"
"""Edge kind of a callback that TensorFlow traces into a graph of its own whatever the
caller's mode (`Dataset.map`): its ops run in that graph, not in the caller."""


def build_call_graph(
    index: ProjectIndex, facts: TensorFacts, keys: Iterable[FunctionKey]
) -> DiGraph:
    """Functions as nodes, caller -> callee edges."""
    graph = DiGraph()
    graph.add_nodes_from(keys)
    for caller, calls in facts.calls.items():
        for resolved in calls:
            for kind, target in callees(index, resolved):
                graph.add_edge(caller, target, kind=kind)
    for callee, callers in facts.callback_callers.items():
        for caller in callers:
            if graph.has_edge(caller, callee):
                continue  # also called directly: the call runs in the caller's mode
            in_callers_mode = caller in facts.caller_mode_callbacks.get(callee, ())
            graph.add_edge(caller, callee, kind="callback" if in_callers_mode else TRACED)
    return graph


def recursive_functions(graph: DiGraph) -> set[FunctionKey]:
    """Functions on a cycle: direct (self-loop) or mutual (a strongly connected component)."""
    found: set[FunctionKey] = set()
    for component in strongly_connected_components(graph):
        if len(component) > 1:
            found |= component
        else:
            (node,) = component
            if graph.has_edge(node, node):
                found.add(node)
    return found


def external_layer_call(resolved: ResolvedCall) -> bool:
    """A call of a framework's layer, model, loss or metric (Keras', PyTorch's) that is not a
    project class: it runs framework ops."""
    return not resolved.targets and any(
        role in ("layer", "model", "loss", "metric") for role in resolved.receiver_roles
    )


def local_tensor_computation(facts: TensorFacts, key: FunctionKey) -> bool:
    """A TF op in the body itself: an API call, a Keras call, or an operator on tensors."""
    for resolved in facts.calls.get(key, []):
        if any(info.tensor_op or info.returns in CREATES_FRAMEWORK_STATE for info in resolved.api):
            return True
        if external_layer_call(resolved):
            return True
    evaluator = facts.evaluators.get(key)
    if evaluator is not None:
        for sym, atoms in evaluator.memo.items():
            kind: SymKind = sym[0]  # read once: this walks every value of every function
            if kind == "op" and any(kind_of(a) in ("tensor", "variable") for a in atoms):
                return True
            if kind == "item":
                # Slicing a tensor is an op; picking an element of a Python tuple is not.
                base = evaluator.memo.get(sym[1], frozenset())
                if any(kind_of(a) in ("tensor", "variable") for a in base):
                    return True
    return False


def calls_by_result(facts: TensorFacts, key: FunctionKey) -> dict[Sym, ResolvedCall]:
    """A function's resolved calls by the sym that stands for each one's result (`call_sym`):
    which call a value the body computes is."""
    return {call_sym(resolved.index): resolved for resolved in facts.calls.get(key, [])}


def variable_update_in(
    fn: FunctionSummary,
    calls: dict[Sym, ResolvedCall],
    values: Iterable[Sym],
    methods: frozenset[str],
) -> str | None:
    """The variable update (canonical name, of `methods`: `Framework.unread_variable_results`)
    one of the values is, as it is or through a local (`calls`: `calls_by_result`)."""
    for sym in walk_syms(values, lambda current: local_values(fn, current)):
        resolved = calls.get(sym)
        if resolved is None:
            continue
        for info in resolved.api:
            if info.name in methods:
                return info.name
    return None


def opaque_tensor_call_sites(facts: TensorFacts, key: FunctionKey) -> Iterator[ResolvedCall]:
    """The calls in the body of something the analysis cannot see (a model loaded from disk,
    a callable of unknown kind) applied to tensors: they may well run framework operations."""
    for resolved in facts.calls.get(key, []):
        unknown_callee = not resolved.targets and not resolved.api and not resolved.receiver_roles
        if unknown_callee and all(map(is_unknown, resolved.callee_atoms)):
            arguments = [*resolved.args, *resolved.kwargs.values()]
            if any(is_tensor_like(a) for atoms in arguments for a in atoms):
                yield resolved


def local_opaque_tensor_call(facts: TensorFacts, key: FunctionKey) -> bool:
    """A call in the body of something the analysis cannot see applied to tensors."""
    return next(opaque_tensor_call_sites(facts, key), None) is not None


def local_opaque_tensor_calls(
    facts: TensorFacts, keys: Iterable[FunctionKey]
) -> dict[FunctionKey, bool]:
    """Whether each function's own body applies an unknown callable to tensors (read by
    `opaque_tensor_calls` and by `graph_breaks.graph_breaks`)."""
    return {k: local_opaque_tensor_call(facts, k) for k in keys}


def opaque_tensor_calls(graph: DiGraph, local: dict[FunctionKey, bool]) -> dict[FunctionKey, bool]:
    """Whether the function, or anything it calls, applies an unknown callable to tensors,
    from `local_opaque_tensor_calls`."""
    return reaching(graph, local)


def _holds_variable(atoms: Iterable[tuple], depth: int = 0) -> bool:
    """A `tf.Variable`, or a container of them (`model.trainable_variables`)."""
    for atom in atoms:
        kind: AtomKind = atom[0]  # read once: asked of every argument of every tensor op
        if kind == "variable":
            return True
        if depth < 3 and kind == "seq" and _holds_variable(atom[2], depth + 1):
            return True
        if depth < 3 and kind == "tup" and any(_holds_variable(p, depth + 1) for p in atom[1]):
            return True
    return False


def local_stateful_computation(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """TensorFlow computation on state: a model or layer called (its weights are read), a
    variable read or updated by an op or an operator. Such a body computes on variables it
    captures (`self.w`, a module-level `tf.Variable`, a model held by a closure) or reaches
    through a non-tensor argument, even when no parameter is a tensor."""
    for resolved in facts.calls.get(key, []):
        if any(kind == "layer_call" for kind, _ in resolved.targets) or any(
            role in ("layer", "model") for role in resolved.receiver_roles
        ):
            return True
        variable_method = any(
            is_boundext_atom(a) and boundext_role(a) == "variable" for a in resolved.callee_atoms
        )
        if variable_method or any(info.tensor_op for info in resolved.api):
            arguments = [*resolved.args, *resolved.kwargs.values()]
            if variable_method or any(_holds_variable(atoms) for atoms in arguments):
                return True
    evaluator = solved_evaluator(index, facts, key)
    if evaluator is not None:
        for receiver, _attribute, _span, _calls in evaluator.fn.variable_reads:
            # `model.trainable_variables`: the weights themselves, whatever is done with them.
            if any(
                is_obj_atom(a) and obj_role(a) in ("layer", "model")
                for a in evaluator.eval(receiver)
            ):
                return True
        for sym in syms_of_kinds(evaluator.memo, "op"):
            if any(_holds_variable(evaluator.memo.get(operand, ())) for operand in sym[1]):
                return True
    return False


def stateful_computation(
    index: ProjectIndex, graph: DiGraph, facts: TensorFacts, keys: Iterable[FunctionKey]
) -> dict[FunctionKey, bool]:
    """Whether the function, or anything it calls, computes on variables, models or layers."""
    return reaching(graph, {k: local_stateful_computation(index, facts, k) for k in keys})


FRAMEWORK_COMPILED_METHODS: dict[str, frozenset[str]] = {
    role: frozenset().union(*(f.compiled_methods.get(role, ()) for f in FRAMEWORKS))
    for role in {role for f in FRAMEWORKS for role in f.compiled_methods}
}
"""Methods that a framework calls from a graph of its own, by the role of their class
(`Framework.compiled_methods`)."""


def framework_compiled(
    index: ProjectIndex, facts: TensorFacts, keys: Iterable[FunctionKey]
) -> set[FunctionKey]:
    """Functions a framework calls from a graph of its own: the `train_step`, `test_step` and
    `predict_step` overrides of Keras models, the per-variable update hooks of Keras
    optimizers (`FRAMEWORK_COMPILED_METHODS`). Not the steps of a model the project asks to
    run eagerly (`compile(run_eagerly=True)`, `model.run_eagerly = True`): Keras calls them as
    plain Python. That model's class and the classes it inherits the steps from are the ones
    concerned; when what is told to run eagerly is not known, every model is."""
    eager = eager_model_classes(index, facts)
    if eager is None:
        return set()
    found = set()
    wanted = index.key_set(keys)
    hooks = per_module(facts, index, "framework_hooks", lambda r, m: _framework_hooks(index, r, m))
    for module_hooks in hooks.values():
        for key, class_key, role in module_hooks:
            if key in wanted and not (role == "model" and class_key in eager):
                found.add(key)
    return found


def _framework_hooks(
    index: ProjectIndex, relpath: str, module: ModuleSummary
) -> list[tuple[FunctionKey, ClassKey, str]]:
    """The methods of a module's classes that the framework calls from a graph of its own
    (`FRAMEWORK_COMPILED_METHODS`), with their class and its role."""
    found = []
    for qualname, fn in module.functions.items():
        if fn.class_qualname is None:
            continue
        class_key = FunctionKey(relpath, fn.class_qualname)
        role = index.layer_role(class_key) or _framework_optimizer_role(index, class_key)
        if role is not None and fn.name in FRAMEWORK_COMPILED_METHODS.get(role, ()):
            found.append((FunctionKey(relpath, qualname), class_key, role))
    return found


def _framework_optimizer_role(index: ProjectIndex, class_key: FunctionKey) -> str | None:
    """The role "optimizer" when the class derives from a framework's optimizer
    (`Framework.optimizer_base`: `keras.optimizers.*`, `keras.Optimizer`, in any spelling)."""
    for key in index.mro(class_key):
        try:
            refs = index.base_refs(key)
        except KeyError:
            return None
        for ref in refs:
            if is_ext_ref(ref) and any(f.optimizer_base(ref[1]) for f in FRAMEWORKS):
                return "optimizer"
    return None


def eager_model_classes(index: ProjectIndex, facts: TensorFacts) -> set[ClassKey] | None:
    """The project model classes whose steps Keras runs eagerly: the class of every object
    compiled with `run_eagerly` not False (`.compile(run_eagerly=...)`) or given
    `.run_eagerly = ...`, with the classes it inherits from (its steps may be defined there).
    None when such an object's class is not known (a parameter, a factory's result): then any
    model may run eagerly."""
    eager: set[ClassKey] = set()
    compiled = per_function(facts, "eager_compiles", _eager_compiles)
    for key, receivers in compiled.items():
        for receiver in receivers:
            if not _add_model_classes(index, facts, key, receiver, eager):
                return None
    stores = per_module(facts, index, "run_eagerly_stores", _run_eagerly_stores)
    for module_stores in stores.values():
        for key, target in module_stores:
            if not _add_model_classes(index, facts, key, target, eager):
                return None
    return {base for class_key in eager for base in index.mro(class_key)}


def keras_loop_callers(facts: TensorFacts) -> Collection[FunctionKey]:
    """The functions that call Keras's `Model.fit`/`evaluate`/`predict` (on any receiver)."""
    return per_function(facts, "keras_loop_calls", _keras_loop_calls).keys()


def training_updates(facts: TensorFacts) -> dict[FunctionKey, list[bool]]:
    """The functions whose body applies a training update (a gradient, an optimizer's
    update: `ApiInfo.training_update`) -> per such call, whether it sits in a loop of the
    body (a training loop of its own)."""
    return per_function(facts, "training_updates", _training_updates)


def _training_updates(_key: FunctionKey, calls: list[ResolvedCall]) -> list[bool]:
    """Per training-update call of a function, whether it sits in a loop."""
    return [
        resolved.site.in_loop
        for resolved in calls
        if any(info.training_update for info in resolved.api)
    ]


def _keras_loop_calls(_key: FunctionKey, calls: list[ResolvedCall]) -> list[Sym]:
    """The receivers of a function's calls of Keras's `Model.fit`/`evaluate`/`predict`."""
    found = []
    for resolved in calls:
        callee = resolved.site.callee
        if not is_attr(callee) or callee[2] not in KERAS_GRAPH_LOOPS:
            continue
        if any(info.name.endswith(f"Model.{callee[2]}") for info in resolved.api):
            found.append(callee[1])
    return found


def _eager_compiles(_key: FunctionKey, calls: list[ResolvedCall]) -> list[Sym]:
    """The receivers of a function's `.compile(run_eagerly=...)` calls (not False)."""
    found = []
    for resolved in calls:
        site = resolved.site
        # `compile` is the Keras API that takes `run_eagerly` (a flag definition or a
        # config object of the same keyword sets nothing; its value reaches `compile`).
        if not is_attr(site.callee) or site.callee[2] != "compile":
            continue
        if any(n == "run_eagerly" and v != lit_sym("bool", False) for n, v in site.kwargs):
            found.append(site.callee[1])
    return found


def _run_eagerly_stores(relpath: str, module: ModuleSummary) -> list[tuple[FunctionKey, Sym]]:
    """Where a module's code assigns `.run_eagerly`: the function and the object."""
    return [
        (FunctionKey(relpath, fn.qualname), store.target)
        for fn in (module.module_code, *module.functions.values())
        for store in fn.stores
        if store.kind == "attr" and store.name == "run_eagerly"
    ]


def _add_model_classes(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, receiver: Sym, eager: set[ClassKey]
) -> bool:
    """Add the project classes `receiver` may be an instance of; False when it may be
    something unknown. A Keras object of no project class (`keras.Sequential([...])`) has no
    step of the project's to run."""
    try:
        atoms = get_evaluator(index, facts, key).eval(receiver)
    except KeyError:
        return False
    if not atoms:
        return False
    for atom in atoms:
        if is_obj_atom(atom):
            if atom[2] is not None:
                eager.add(atom[2])
        elif not is_lit_atom(atom):
            return False
    return True


def tensor_computation(
    graph: DiGraph, facts: TensorFacts, keys: Iterable[FunctionKey]
) -> dict[FunctionKey, bool]:
    """Whether a TF op runs in the function or anything it (transitively) calls in user code.

    A callback that tf.data traces (`ds.map(fn)`) runs in a graph of tf.data's, not in the
    function that builds the pipeline: building a dataset is not tensor computation.
    """
    return following_calls(graph, facts, {k: local_tensor_computation(facts, k) for k in keys})


def following_calls(
    graph: DiGraph, facts: TensorFacts, local: dict[FunctionKey, bool]
) -> dict[FunctionKey, bool]:
    """Whether each function, or anything it runs as part of its own execution (calls, and
    callbacks run in its mode), has a `local` property; callbacks that TensorFlow traces
    separately (`Dataset.map`) are not part of the caller's execution."""
    return reaching(graph, local, skip_kinds=frozenset({TRACED}))


def reaching(
    graph: DiGraph, local: dict[FunctionKey, bool], skip_kinds: frozenset[str] = frozenset()
) -> dict[FunctionKey, bool]:
    """Whether each function, or anything it (transitively) calls, has a `local` property;
    edges of a kind in `skip_kinds` are not followed."""
    result = dict(local)
    following = _callees_following(graph, skip_kinds)
    for nodes in components_bottom_up(graph):
        value = any(local.get(n, False) for n in nodes) or any(
            result.get(callee, False) for n in nodes for callee in following[n]
        )
        for n in nodes:
            result[n] = value
    return result


FOLLOWED_CALLEES = "followed_callees"
"""`graph.graph` key of `_callees_following`'s lists, by the edge kinds left out."""


def _callees_following(
    graph: DiGraph, skip_kinds: frozenset[str]
) -> dict[FunctionKey, list[FunctionKey]]:
    """Each function's callees along the edges not of a kind in `skip_kinds`, as plain lists:
    made once per graph and kinds left out (every `reaching` walks every edge, and reading
    them through the graph's dicts cost more than the walk), dropped with the graph's other
    derived facts when its edges change (`forget_derived`)."""
    by_kinds = graph.graph.setdefault(FOLLOWED_CALLEES, {})
    found = by_kinds.get(skip_kinds)
    if found is None:
        found = by_kinds[skip_kinds] = {
            node: [callee for callee, attrs in edges.items() if attrs.get("kind") not in skip_kinds]
            for node, edges in graph.adjacency()
        }
    return cast(dict[FunctionKey, list[FunctionKey]], found)


def forget_derived(graph: DiGraph) -> None:
    """Drop what is derived from the graph's edges (`components_bottom_up`,
    `_callees_following`): they changed."""
    graph.graph.pop("components_bottom_up", None)
    graph.graph.pop(FOLLOWED_CALLEES, None)


def components_bottom_up(graph: DiGraph) -> list[list[FunctionKey]]:
    """The strongly connected components (a cycle, or one function), callees first: a fact
    that flows from callees to callers is complete for every component when it is reached,
    except through the component's own cycle. Computed once per graph (it does not change
    once built) and shared by the facts that follow the edges."""
    cached = graph.graph.get("components_bottom_up")
    if cached is not None:
        return list(cached)
    # A cycle's members sorted: the facts iterated over a cycle then name the same first
    # witness in any file order.
    order = [sorted(component, key=str) for component in reversed(components_callers_first(graph))]
    graph.graph["components_bottom_up"] = order
    return list(order)


def covered_callers(
    graph: DiGraph,
    facts: TensorFacts,
    hybrid: set[FunctionKey],
    keys: Iterable[FunctionKey],
    compiled_by_framework: set[FunctionKey] | None = None,
) -> dict[FunctionKey, bool]:
    """True when the function has callers and every one already runs as a graph.

    A caller runs as a graph when it is hybrid, is a callback that TensorFlow traces whatever
    its caller's mode (tf.data's `Dataset.map`, `tf.function(f)`), or is itself covered. A
    `tf.map_fn`/`tf.cond`/`strategy.run` callback runs in its caller's mode, so its caller
    counts as a direct one. A function a framework calls from its own graph (a Keras
    `train_step`, see `framework_compiled`) has that caller too. Module-level code and tests
    are never graphs.
    """
    traced = hybrid | facts.traced_callbacks | (compiled_by_framework or set())
    covered: dict[FunctionKey, bool] = {}

    def is_covered(key: FunctionKey, stack: frozenset[FunctionKey]) -> bool:
        if key in covered:
            return covered[key]
        direct = [
            c
            for c in (*facts.callers.get(key, ()), *facts.caller_mode_callbacks.get(key, ()))
            if c != key
        ]
        if not direct:
            # Only handed to tf.data or a framework (which trace it), or never called at all.
            value = key in facts.traced_callbacks or key in (compiled_by_framework or set())
        elif key in stack:
            return False
        else:
            value = all(
                not c.is_module_code and (c in traced or is_covered(c, stack | {key}))
                for c in direct
            )
        covered[key] = value
        return value

    return {k: is_covered(k, frozenset()) for k in keys}


MAX_FUNCTIONS_RUN = 200
"""How many project functions `functions_run_by` collects (a bound no real model's forward
comes near)."""


Witness = TypeVar("Witness")
Starts = TypeVar("Starts")


def first_witness_of_runs(
    index: ProjectIndex,
    facts: TensorFacts,
    name: str,
    find: Callable[[FunctionKey, list[ResolvedCall]], list[tuple[Witness, list[FunctionKey]]]],
) -> dict[FunctionKey, Witness]:
    """For every function something runs (`functions_run_by` its starts), the first witness
    (in key order) that runs it. `find` gives, per function with resolved calls, its witnesses
    (a call that traces, a value differentiated twice, ...) with the functions each one starts
    running; it is kept with those calls across edits (`scan_memo`, under `name`), and the
    whole answer for the facts' life (`facts.cache`)."""
    return first_witness_of_expanded_runs(index, facts, name, find, _as_given)


def _as_given(_key: FunctionKey, starts: list[FunctionKey]) -> list[FunctionKey]:
    return starts


def first_witness_of_expanded_runs(
    index: ProjectIndex,
    facts: TensorFacts,
    name: str,
    find: Callable[[FunctionKey, list[ResolvedCall]], list[tuple[Witness, Starts]]],
    expand: Callable[[FunctionKey, Starts], Iterable[FunctionKey]],
) -> dict[FunctionKey, Witness]:
    """`first_witness_of_runs` where what a witness starts running is known only once the
    whole project is (what the callers of the function pass, say): `find` keeps, per
    function, what its own calls tell, and `expand(key, starts)` makes the functions of it
    when the answer is combined, from the current facts."""
    cached = facts.cache.get(name)
    if isinstance(cached, dict):
        return cached
    result: dict[FunctionKey, Witness] = {}
    found = per_function(facts, name, find)
    for key in sorted(found, key=str):
        for witness, starts in found[key]:
            for target in functions_run_by(index, facts, expand(key, starts)):
                result.setdefault(target, witness)
    facts.cache[name] = result
    return result


def call_sites(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> Iterator[tuple[FunctionKey, FunctionSummary, ResolvedCall, str]]:
    """Every call of the function in the project: the caller, its summary, the call, and how
    it reaches the function (`callees`)."""
    for caller in sorted(facts.callers.get(key, ()), key=str):
        caller_fn = index.function(caller)
        for resolved in facts.calls.get(caller, []):
            for kind, target in callees(index, resolved):
                if target == key:
                    yield caller, caller_fn, resolved, kind


def functions_run_by(
    index: ProjectIndex, facts: TensorFacts, starts: Iterable[FunctionKey]
) -> list[FunctionKey]:
    """The functions `starts` and the project functions they call, transitively, in
    breadth-first order: what runs when they run (a traced module's forward and its helpers,
    the function a value is differentiated through and its helpers)."""
    seen: dict[FunctionKey, None] = {}
    work = list(starts)
    while work and len(seen) < MAX_FUNCTIONS_RUN:
        key = work.pop(0)
        if key in seen:
            continue
        seen[key] = None
        for resolved in facts.calls.get(key, []):
            # (A project container module's call reaches the modules it holds among its
            # callees: `container_modules.instance_call_methods`.)
            work.extend(target for _, target in callees(index, resolved))
    return list(seen)


KERAS_GRAPH_LOOPS = frozenset({"fit", "evaluate", "predict"})
"""The Keras `Model` methods that run the model's steps (and so its `call`) as graphs of
their own (`tf.function`s Keras makes) unless the model runs eagerly."""


def keras_loop_compiled(
    index: ProjectIndex, facts: TensorFacts, keys: Iterable[FunctionKey]
) -> set[FunctionKey]:
    """The `call` methods of the project's model classes whose objects the project hands to
    Keras's own loops (`model.fit(...)`, `evaluate`, `predict`): Keras traces the model's
    `train_step`/`test_step`/`predict_step`, which call the model, so its `call` (and what it
    calls: the layers it holds) runs inside that graph. Not a model the project asks to run
    eagerly (`framework_compiled`'s rule); nothing when that is not known."""
    eager = eager_model_classes(index, facts)
    if eager is None:
        return set()
    wanted = set(keys)
    fitted: set[ClassKey] = set()
    # Each function's loop calls are kept with its resolved calls (`scan_memo`): after an edit
    # only the functions evaluated again are walked, not every call site of the project.
    for key, receivers in per_function(facts, "keras_loop_calls", _keras_loop_calls).items():
        for receiver in receivers:
            classes: set[ClassKey] = set()
            if _add_model_classes(index, facts, key, receiver, classes):
                fitted |= {c for c in classes if c not in eager}
    found: set[FunctionKey] = set()
    for class_key in fitted:
        for base in index.mro(class_key):
            method = FunctionKey(base.file, f"{base.qualname}.{index.instance_call(class_key)}")
            if method in wanted:
                found.add(method)
                break
    return found
